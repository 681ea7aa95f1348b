"""Any Gomocup engine as a player: a small manager for the ``pbrain`` protocol (engine/pbrain.py), with the
limits enforced from outside.

Each move starts the engine, sends ``START``, the limits (``INFO``), the position (``BOARD`` … ``DONE``)
and reads one answer; then ``END`` and the process is gone. Stateless, so a crashed or stuck engine costs
one move and never a worker: every read has a deadline, and an engine that overruns is killed. What an engine
can do wrong is an :class:`EngineFailure` with its ``kind``:

- ``timeout``: no answer within the turn's limit (plus a grace for starting the process);
- ``crash``: the process could not start or ended without an answer;
- ``garbage``: a line that is not a move, ``ERROR …`` or a point off the board;
- ``illegal``: an occupied point, or a point forbidden to renju's Black.

The manager checks the move with our own rules; the caller decides what a failure costs (in the game
service: the engine loses that game, and the failure is kept on the engine's record).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import resource
import secrets
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from engine.board import Board
from engine.errors import EngineError
from engine.notation import Color, Point
from engine.pbrain import from_xy, rule_bits, to_xy
from engine.rules import Rules
from engine.sandbox import Box, preexec

START_GRACE_S = 3.0  # starting the process and answering START (our Python engine needs ~0.2 s; 15× that)
KINDS = ("timeout", "crash", "garbage", "illegal")


class EngineFailure(EngineError):
    """An engine that did not give a legal move in time; ``kind`` is one of :data:`KINDS`."""

    def __init__(self, kind: str, message: str, output: Sequence[str] = ()) -> None:
        super().__init__(message, f"engine_{kind}", kind=kind)
        self.kind = kind
        self.output = list(output)[-20:]  # the engine's last lines, for the report


@dataclass(frozen=True)
class EngineSpec:
    """How to run an engine, what it may spend on a move, and the box it runs in (see :class:`_Process`)."""

    command: tuple[str, ...]
    turn_ms: int = 2_000
    max_node: int = 0  # sent as INFO max_node when set (our engine honours it; others may ignore it)
    level: int = 0  # sent as INFO level when set (our engine's levels 1–5)
    extra_info: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)  # added to the minimal environment (never the server's)
    memory_mb: int = 2048  # address space (RLIMIT_AS)
    processes: int = 64  # RLIMIT_NPROC (not enforced for root: the process group is killed whatever it spawns)
    file_mb: int = 16  # largest file it may write (RLIMIT_FSIZE)
    box: Box | None = None  # an outside engine's box (engine.sandbox): its folder to read, a private one to write

    @classmethod
    def from_command(cls, command: str, **options: object) -> EngineSpec:
        return cls(tuple(shlex.split(command)), **options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class EngineMove:
    point: Point
    seconds: float  # from sending the position to the answer
    messages: tuple[str, ...] = ()  # MESSAGE / DEBUG lines it wrote meanwhile


MAX_LINE = 4096  # bytes in one line of the engine's output
MAX_OUTPUT = 1 << 20  # bytes of output per engine run (a move or an ABOUT)
MARKER = "GOMOCUP_ENGINE_RUN"  # in the engine's environment: its descendants are found by it and killed
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


def _limits(spec: EngineSpec, cpu_s: int) -> Callable[[], None]:
    """The child's limits, set between fork and exec (CPU seconds, memory, processes, file size, no core)."""

    def apply() -> None:
        for limit, value in (
            (resource.RLIMIT_CPU, cpu_s),
            (resource.RLIMIT_AS, spec.memory_mb << 20),
            (resource.RLIMIT_NPROC, spec.processes),
            (resource.RLIMIT_FSIZE, spec.file_mb << 20),
            (resource.RLIMIT_CORE, 0),
        ):
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(limit, (value, value))

    return apply


def _marked(marker: str) -> list[int]:
    """Pids of the processes whose environment carries ``marker`` (an engine's, and whatever it started)."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


class _Process:
    """An engine in a box: its own session and process group, a minimal environment (no secret of the
    server's: only PATH, HOME, LANG and a marker), limits on CPU, memory, processes and files, and output read
    without a thread straight from the pipe with a deadline, a bounded line length and a bounded volume. An
    outside engine's spec also carries a :class:`~engine.sandbox.Box`: the kernel then lets it read only the
    system and its own folder, write only a private folder made for the run, and reach no network.

    :meth:`close` kills the whole group, then every process still carrying the run's marker (a child that
    started a session of its own), and only then closes the pipes; nothing it does waits on the engine. So
    a worker is never held past the turn's limit, whatever the engine does (clocks.md: one slow engine must
    not lose other people's games)."""

    def __init__(self, spec: EngineSpec, cpu_s: int) -> None:
        self.seen: list[str] = []
        self.buffer = b""
        self.volume = 0
        self.eof = False
        self.marker = f"{os.getpid()}-{secrets.token_hex(8)}"  # the server process that started it, and the run
        env = {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "HOME": spec.cwd or "/nonexistent", **spec.env}
        env[MARKER] = self.marker
        box = spec.box
        self.private = ""
        if box is not None:  # a folder of its own for the run, its HOME and TMPDIR, gone when it ends
            self.private = tempfile.mkdtemp(prefix="engine-run-")
            box = replace(box, write=(*box.write, self.private))
            env.update(HOME=self.private, TMPDIR=self.private)
        try:
            self.proc = subprocess.Popen(
                list(spec.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=spec.cwd,
                env=env,
                start_new_session=True,
                preexec_fn=preexec(box, _limits(spec, cpu_s)),  # noqa: PLW1509 - system calls only
                close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            self._forget_private()
            raise EngineFailure("crash", f"the engine could not start: {exc}") from None
        assert self.proc.stdout is not None
        self.out = self.proc.stdout.fileno()
        os.set_blocking(self.out, False)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFailure("crash", "the engine closed its input", self.seen) from None

    def _line(self, deadline: float, clock: Callable[[], float]) -> str | None:
        """The next output line (``None`` at the end of the output), waiting until ``deadline`` at most."""
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                raw, self.buffer = self.buffer[:newline], self.buffer[newline + 1 :]
                return raw.decode("utf-8", "replace").rstrip("\r")
            if len(self.buffer) > MAX_LINE:
                raise EngineFailure("garbage", f"the engine wrote a line longer than {MAX_LINE} bytes", self.seen)
            if self.eof:
                if self.buffer:
                    raw, self.buffer = self.buffer, b""
                    return raw.decode("utf-8", "replace").rstrip("\r")
                return None
            left = deadline - clock()
            if left <= 0:
                raise EngineFailure("timeout", "the engine did not answer in time", self.seen)
            ready, _w, _x = select.select([self.out], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.out, 65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = True
                continue
            self.volume += len(chunk)
            if self.volume > MAX_OUTPUT:
                raise EngineFailure("garbage", f"the engine wrote more than {MAX_OUTPUT >> 20} MB", self.seen[-20:])
            self.buffer += chunk

    def answer(self, deadline: float, clock: Callable[[], float]) -> tuple[str, list[str]]:
        """The next line that is not a MESSAGE/DEBUG/SUGGEST note, and the notes before it."""
        notes: list[str] = []
        while True:
            line = self._line(deadline, clock)
            if line is None:
                raise EngineFailure("crash", "the engine stopped without an answer", self.seen)
            self.seen.append(line)
            del self.seen[:-40]  # the last lines only, for the report
            word = line.split(" ", 1)[0].upper()
            if word in ("MESSAGE", "DEBUG", "SUGGEST"):
                notes.append(line)
                del notes[:-40]
                continue
            if line.strip():
                return line.strip(), notes

    def close(self) -> None:
        """END, a moment to leave by itself, then the whole group and every marked descendant killed; then
        the pipes closed (a descendant that kept them open is dead by now, so nothing blocks)."""
        with contextlib.suppress(EngineFailure):
            self.send("END")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=0.2)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1)
        settle = time.monotonic() + 1.0
        while (left := _marked(self.marker)) and time.monotonic() < settle:  # children that left the group
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        self._forget_private()

    def _forget_private(self) -> None:
        if self.private:
            shutil.rmtree(self.private, ignore_errors=True)


def engine_move(
    spec: EngineSpec,
    board: Board,
    rules: Rules,
    *,
    time_left_ms: int | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> EngineMove:
    """The engine's move for the side to move on ``board`` under ``rules``, checked; or :class:`EngineFailure`."""
    size = board.size
    turn_ms = spec.turn_ms if time_left_ms is None else max(1, min(spec.turn_ms, time_left_ms))
    process = _Process(spec, cpu_s=math.ceil(START_GRACE_S + turn_ms / 1000) + 1)
    try:
        process.send(f"START {size}")
        reply, _notes = process.answer(clock() + START_GRACE_S, clock)
        if reply.upper() != "OK":
            raise EngineFailure("garbage", f"START answered {reply[:80]!r}", process.seen)
        info = [("timeout_turn", str(turn_ms)), ("timeout_match", "0"), ("rule", str(rule_bits(rules.name)))]
        if time_left_ms is not None:
            info.append(("time_left", str(time_left_ms)))
        if spec.max_node:
            info.append(("max_node", str(spec.max_node)))
        if spec.level:
            info.append(("level", str(spec.level)))
        info += list(spec.extra_info)
        me = board.turn
        stones = []
        for move in board.move_stack:
            if move.point is not None:
                owner = 1 if board.color_at(move.point) is me else 2
                stones.append(f"{to_xy(move.point, size)},{owner}")
        process.send(*(f"INFO {key} {value}" for key, value in info), "BOARD", *stones, "DONE")
        started = clock()
        # The turn's limit, and a little for the pipes; an engine is not given the process start twice.
        reply, notes = process.answer(started + turn_ms / 1000 + 0.5, clock)
        seconds = clock() - started
    finally:
        process.close()
    if reply.upper().startswith("ERROR") or reply.upper().startswith("UNKNOWN"):
        raise EngineFailure("garbage", f"the engine answered {reply[:80]!r}", process.seen)
    try:
        point = from_xy(reply, size)
    except EngineError:
        raise EngineFailure("garbage", f"{reply[:80]!r} is not a move", process.seen) from None
    check_move(board, rules, point, process.seen)
    return EngineMove(point, seconds, tuple(notes))


def check_move(board: Board, rules: Rules, point: Point, output: Sequence[str] = ()) -> None:
    """An engine's move must be on an empty point and, for renju's Black, not forbidden."""
    if not board.is_empty(point):
        raise EngineFailure("illegal", f"{point} is occupied", output)
    if board.turn is Color.BLACK and rules.black_forbidden:
        outcome = rules.move_outcome(board, point)
        if outcome is not None and outcome.winner is Color.WHITE:
            raise EngineFailure("illegal", f"{point} is forbidden to Black ({outcome.termination})", output)


def about(spec: EngineSpec, clock: Callable[[], float] = time.monotonic) -> str:
    """The engine's ``ABOUT`` line (its name, version, author), or :class:`EngineFailure`."""
    process = _Process(spec, cpu_s=math.ceil(START_GRACE_S) + 1)
    try:
        process.send("ABOUT")
        reply, _notes = process.answer(clock() + START_GRACE_S, clock)
        return reply
    finally:
        process.close()


ABOUT_NAME_MAX, ABOUT_VERSION_MAX = 40, 20


def about_fields(line: str) -> dict[str, str]:
    """The ``key="value"`` pairs of an ``ABOUT`` answer (Gomocup: ``name="…", version="…", author="…"``).

    >>> about_fields('name="Rapfi", version="2024.1", author="Rapfi devs"')["version"]
    '2024.1'
    """
    return {key.lower(): value for key, value in re.findall(r'(\w+)\s*=\s*"([^"]*)"', line)}


def public_about(line: str) -> str:
    """What may be published of an engine's ``ABOUT``: its name and version only (the version's first word), each
    short and made of letters, digits, spaces and ``. _ + - ( )``. Everything else an engine writes is kept for
    the organizer.

    >>> public_about('name="Evil", version="1", author="see https://x.example/?k=SECRET"')
    'Evil 1'
    >>> public_about('name="<script>alert(1)</script>"')
    'scriptalert(1)script'
    """
    fields = about_fields(line)

    def clean(text: str, most: int) -> str:
        kept = "".join(ch for ch in text if ch.isalnum() or ch in " ._+-()")
        return " ".join(kept.split())[:most]

    version = (fields.get("version", "").split() or [""])[0]  # a version is one word: "2024.1", "v1.2-beta"
    parts = (clean(fields.get("name", ""), ABOUT_NAME_MAX), clean(version, ABOUT_VERSION_MAX))
    return " ".join(p for p in parts if p)
