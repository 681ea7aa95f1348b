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
import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.board import Board
from engine.errors import EngineError
from engine.notation import Color, Point
from engine.pbrain import from_xy, rule_bits, to_xy
from engine.rules import Rules

START_GRACE_S = 10.0  # starting the process and answering START (a Python engine imports its modules)
KINDS = ("timeout", "crash", "garbage", "illegal")


class EngineFailure(EngineError):
    """An engine that did not give a legal move in time; ``kind`` is one of :data:`KINDS`."""

    def __init__(self, kind: str, message: str, output: Sequence[str] = ()) -> None:
        super().__init__(message, f"engine_{kind}", kind=kind)
        self.kind = kind
        self.output = list(output)[-20:]  # the engine's last lines, for the report


@dataclass(frozen=True)
class EngineSpec:
    """How to run an engine and what it may spend on a move."""

    command: tuple[str, ...]
    turn_ms: int = 2_000
    max_node: int = 0  # sent as INFO max_node when set (our engine honours it; others may ignore it)
    level: int = 0  # sent as INFO level when set (our engine's levels 1–5)
    extra_info: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_command(cls, command: str, **options: object) -> EngineSpec:
        return cls(tuple(shlex.split(command)), **options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class EngineMove:
    point: Point
    seconds: float  # from sending the position to the answer
    messages: tuple[str, ...] = ()  # MESSAGE / DEBUG lines it wrote meanwhile


class _Process:
    """An engine process whose output lines are read on a thread into a queue (so reads can time out)."""

    def __init__(self, spec: EngineSpec) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        try:
            self.proc = subprocess.Popen(
                list(spec.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                cwd=spec.cwd,
                env={**os.environ, **spec.env} if spec.env else None,
                start_new_session=True,
            )
        except OSError as exc:
            raise EngineFailure("crash", f"the engine could not start: {exc}") from None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("".join(f"{line}\n" for line in lines))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineFailure("crash", "the engine closed its input", self.seen) from None

    def answer(self, deadline: float, clock: Callable[[], float]) -> tuple[str, list[str]]:
        """The next line that is not a MESSAGE/DEBUG/SUGGEST note, and the notes before it."""
        notes: list[str] = []
        while True:
            left = deadline - clock()
            if left <= 0:
                raise EngineFailure("timeout", "the engine did not answer in time", self.seen)
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise EngineFailure("timeout", "the engine did not answer in time", self.seen) from None
            if line is None:
                raise EngineFailure("crash", "the engine stopped without an answer", self.seen)
            self.seen.append(line)
            word = line.split(" ", 1)[0].upper()
            if word in ("MESSAGE", "DEBUG", "SUGGEST"):
                notes.append(line)
                continue
            if line.strip():
                return line.strip(), notes

    def close(self) -> None:
        with contextlib.suppress(EngineFailure):
            self.send("END")
        try:
            self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


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
    process = _Process(spec)
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
    process = _Process(spec)
    try:
        process.send("ABOUT")
        reply, _notes = process.answer(clock() + START_GRACE_S, clock)
        return reply
    finally:
        process.close()
