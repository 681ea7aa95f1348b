"""An online open on one box: a 2,000-player online Swiss round (1,000 games at the seed's clock), watched live.

Starts ``make run``'s stack (bench/stack.py: SQLite, embedded Redis, gunicorn 2 × 8 with the stamping
worker, a Celery worker and beat, the live-push server), or the same on PostgreSQL (``--database
postgres``). In the bench process, through the real services: a Swiss tournament played online at the
seed's quick play (5 minutes for the game, 30 s a move, then 8 stones each at 30 s), ``--players`` players
with API tokens registered, the stage drawn and round 1 paired and published (1,000 games, their clocks
started as they are called to their boards).

One asyncio process is the whole crowd, so the server keeps most of the CPU:

- a client per game, seeing the game as soon as it is created (the bench polls for new games, as a
  player's console is pushed it), plays both seats on each player's socket of the game, as the page does
  (``LIVE_MOVES``, on by default), by HTTP over one keep-alive connection when the socket is closed, fails
  or answers busy (bench/seats.py; ``--moves http``: always by HTTP, as the page with ``LIVE_MOVES`` off): after each
  answer it thinks a realistic time (most moves 1–8 s, one in seven 8–20 s, one in twenty 25–29 s:
  never over the limit), then posts the move with its measured ``think_ms`` as the game page does; a
  broken connection or a 503 is retried for the same ply (the server answers a repeat as stored);
- ``--spectators`` sockets (2 per game by default) watch the games on ``/ws/live/``; each notes when
  each ply reaches it.

After ``--seconds`` of the round (counted from the last game's creation) the clients stop and resign.

Figures: ``moves_per_s`` (moves acknowledged in the window ÷ its length); ``move_p50_ms``/``move_p99_ms``
(a move's acknowledgement as the client sees it); ``push_p99_ms`` (from a move's sending to its arrival at
each spectator of its game); ``charged_p99_ms`` (the think time the server charged, after any lag credit,
beyond what the client really thought; the run's line also gives it less the crowd's own lateness: from
the server building the answer that began the turn, its clock's ``server_time``, to the client reading
it, and the client's loop letting it send later than it meant); ``time_losses`` (games lost on time while
their client was still playing: each meant to move within its limit, so any is the server's doing — except
a loss whose client the crowd's own event loop, on the server's cores, let read its answer or send its move
so late that it sent only as the flag fell: counted apart on the run's line, as the crowd's own lateness);
``errors_5xx`` (every answer
of 500 or more, a 503 retried included);
``cpu_ms_per_move`` (every server process's CPU — web, live push, worker, beat, Redis, PostgreSQL — in the
window ÷ the moves); ``noop_ratio`` (that ÷ the server CPU per trivial authenticated request, ``GET
/api/me/``, measured in the same run just before the round at the same concurrency, once the server has gone
quiet, counting the processes that serve it: web, proxy, Redis, PostgreSQL); and the queries of one
move and of one trivial request (counted in the bench process through the same API).

Last line: ``open: games=1000 held=0 spectators=2000 moves_per_s=… move_p99_ms=… push_p99_ms=… charged_p99_ms=…
time_losses=0 errors_5xx=0 cpu_ms_per_move=… noop_ratio=…`` (the median of ``--runs`` runs; each run's
line and the spread above it). ``games``: the games that ran; ``held``: the round's pairs that waited for room on
the server (``ONLINE_CAPACITY``, inherited from the environment: ``ONLINE_CAPACITY=0`` runs every game at once)
and, as no game ends in the window, never started.
Run: ``.venv/bin/python bench/open.py [--players 2000] [--spectators 2000] [--seconds 120] [--runs 1]
[--database sqlite|postgres] [--moves socket|http] [--explain PATH]``.

``--nodes N`` (N >= 2): the same round on the deployment of docs/deployment.md (bench/stack.py: N gunicorn, N
live-push servers, N workers behind nginx, one beat), first with one node, then with N, on the same cores:
``nodes: 1=… N=… moves/s ratio=…``, then the N-node ``open:`` line. ``--drills``: bench/nodes.py, a web, a
live-push and a worker process killed mid-round and a second beat started, one ``drill:`` line each.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from backlog import make_backlog, screened, waiting  # noqa: E402
from seats import SeatClosed, SocketSeat, pushed_ply  # noqa: E402
from stack import (  # noqa: E402
    Stack,
    descendants,
    online_swiss,
    percentile,
    process_tree,
    run_async,
    server_roots,
)

from devtools.processes import open_files_as_allowed  # noqa: E402

# Stones two points apart: never a five, never a forbidden move, so a game runs as long as the clients play.
QUIET = [f"{c}{r}" for c in "acegikmo" for r in (1, 3, 5, 7, 9, 11, 13, 15)]
QUICK = {"preset": "quick"}
CLIENT_LATE_S = 0.25  # a client let run this much after it meant to send was held back by the crowd's loop
SETTLE_S = 1.0  # a flag is settled within this of its deadline (bench/clocks.py)
TICK = os.sysconf("SC_CLK_TCK")
BACKGROUND = ("live", "worker", "beat")  # the server's parts that a trivial request does not touch


def think_s(rng: random.Random) -> float:
    """A player's thinking: mostly seconds, sometimes longer, now and then close to the 30-s limit."""
    roll = rng.random()
    if roll < 0.05:
        return rng.uniform(25, 29)
    if roll < 0.2:
        return rng.uniform(8, 20)
    return rng.uniform(1, 8)


# -- a light HTTP/1.1 client (keep-alive, one request at a time per connection) -----------------------------


class Http:
    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    async def request(
        self, method: str, path: str, token: str | None = None, body: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        reused = self.writer is not None
        try:
            return await self._request(method, path, token, body)
        except ConnectionError:
            if not reused:
                raise
        # The kept-alive connection had been closed by the server while idle (gunicorn's keep-alive: moves on
        # the socket leave it unused): sent again once on a new one, as a browser does (a repeated move is
        # answered as stored).
        return await self._request(method, path, token, body)

    async def _request(
        self, method: str, path: str, token: str | None = None, body: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Accept-Language: en", f"Content-Length: {len(data)}"]
        if token:
            head.append(f"Authorization: Token {token}")
        if body is not None:
            head.append("Content-Type: application/json")
        try:
            self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            await self.writer.drain()
            status_line = await self.reader.readline()
            if not status_line:
                raise ConnectionError("closed by the server")
            status = int(status_line.split()[1])
            headers: dict[str, str] = {}
            while (line := await self.reader.readline()) not in (b"\r\n", b""):
                name, _sep, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            if headers.get("transfer-encoding") == "chunked":
                raw = b""
                while (size := int((await self.reader.readline()).strip(), 16)) > 0:
                    raw += await self.reader.readexactly(size + 2)
                    raw = raw[:-2]
                await self.reader.readline()
            else:
                raw = await self.reader.readexactly(int(headers.get("content-length", "0")))
            if headers.get("connection", "").lower() == "close":
                await self.close()
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
            await self.close()
            raise ConnectionError(str(exc)) from None
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")


# -- the server's CPU ---------------------------------------------------------------------------------------


def server_cpu_ms(stack: Stack) -> dict[str, float]:
    """CPU used so far by each part of the server and its children (ms): web, live, worker, beat, redis, db."""
    tree = process_tree()
    used: dict[str, float] = {}
    for name, root in server_roots(stack).items():
        total = 0.0
        for pid in descendants(root, tree):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
                # utime, stime, and the waited-for children's (fields 14-17 of stat, here 11-14 after the name)
                total += sum(int(v) for v in fields[11:15]) * 1000 / TICK
            except (OSError, ValueError):
                continue
        used[name] = total
    return used


def cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after.get(name, 0.0) - before.get(name, 0.0) for name in after}


# -- the round --------------------------------------------------------------------------------------------


def make_round(players: int, run: int) -> tuple[Any, dict[int, str]]:
    """A Swiss tournament played online with ``players`` entrants, ready to pair round 1; their tokens."""
    return online_swiss(f"Online open {run}", players, 9, f"open{run}-")


def pair_round(tournament: Any) -> float:
    """Draw the stage and pair and publish round 1 (every game called to its board); returns the seconds."""
    from django.db import connection

    from tournament import services

    started = time.perf_counter()
    try:
        stage = tournament.stages.get(order=1)
        stage = services.draw_stage(stage=stage, seed=7)
        stage = services.start_stage(stage=stage)
        services.pair_next_round(stage=stage)
    finally:
        connection.close()
    return time.perf_counter() - started


def held_matches(tournament: Any) -> int:
    """The round's pairs not called once the pairing is done: they wait for room on the server
    (``ONLINE_CAPACITY``) and, in a window where no game ends, never start."""
    from django.db import connection

    from tournament.models import Match

    try:
        return Match.objects.filter(tournament=tournament, status=Match.Status.PENDING).count()
    finally:
        connection.close()


def cancel_held(tournament: Any) -> int:
    """The round's pairs still held for room, cancelled before the clients resign: as the games end they would be
    called, with no client to play them, and run (and lose on time) through the next run's start."""
    from django.db import connection

    from tournament.models import Match

    try:
        return Match.objects.filter(tournament=tournament, status=Match.Status.PENDING).update(
            status=Match.Status.CANCELLED
        )
    finally:
        connection.close()


def new_games(tournament: Any, known: set[int]) -> list[tuple[int, int, int]]:
    """Games of the tournament not yet handed to a client: (game, player one, player two)."""
    from games.models import Game

    rows = (
        Game.objects.filter(match_game__match__tournament=tournament)
        .exclude(pk__in=known)
        .values_list("pk", "player_one_id", "player_two_id")
    )
    return list(rows)


@dataclass
class Tally:
    sent: dict[tuple[int, int], float] = field(default_factory=dict)  # (game, ply after the move) -> sent at
    acked: dict[tuple[int, int], float] = field(default_factory=dict)  # -> acknowledged at
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (acknowledged at, ms)
    thought: dict[tuple[int, int], float] = field(default_factory=dict)  # (game, ply) -> the real think, ms
    arrivals: dict[tuple[int, int], list[tuple[float, float]]] = field(default_factory=dict)  # (connected, at)
    statuses: dict[int, int] = field(default_factory=dict)
    connection_errors: int = 0
    shed: int = 0  # socket moves answered busy by the socket server, then sent by HTTP (not errors)
    socket_errors: list[str] = field(default_factory=list)
    stopped_at: dict[int, float] = field(default_factory=dict)  # game -> when its client stopped playing
    ended_by_server: dict[int, str] = field(default_factory=dict)  # game -> the code that ended the client
    loop_lag_ms: list[float] = field(default_factory=list)  # the client's event loop, late by this much
    planned: dict[tuple[int, int], float] = field(default_factory=dict)  # (game, ply) -> meant to send at
    woke: dict[tuple[int, int], float] = field(default_factory=dict)  # -> the client's loop let it send at
    read_late: dict[tuple[int, int], float] = field(default_factory=dict)  # (game, ply) -> its answer, built to read, s
    watching: list[float] = field(default_factory=list)  # when each spectator's socket was accepted
    welcomed: list[float] = field(default_factory=list)  # when each spectator was sent its game's first state
    seated: list[float] = field(default_factory=list)  # when each player's socket was accepted (moves by socket)
    attempts: dict[tuple[int, int], list[tuple[float, str]]] = field(default_factory=dict)  # -> (sent, outcome)


async def play(
    http: Http,
    game: int,
    tokens: tuple[str, str],
    tally: Tally,
    stop: asyncio.Event,
    rng: random.Random,
    seats: tuple[SocketSeat, SocketSeat] | None = None,
) -> None:
    """One game's client: both players. With ``seats``, each move goes over its player's socket while it is
    open, as the game page sends it, and by HTTP otherwise (the same ply again after a socket lost)."""
    if seats is not None:
        for seat in seats:
            asyncio.create_task(connect_seat(seat, tally))
    points = QUIET[:]
    rng.shuffle(points)
    seen = time.time()
    ply = 0
    try:
        while ply < len(points) and not stop.is_set():
            # The first stone too: a player sees the game called, looks at the board and plays. (Sent at once,
            # the round's 1,000 first moves reached the server within a second: a herd no hall produces.)
            think = think_s(rng)
            tally.planned[(game, ply + 1)] = seen + think  # when the player means to send
            try:
                await asyncio.wait_for(stop.wait(), think)
                break  # the window closed while thinking
            except TimeoutError:
                pass
            tally.woke[(game, ply + 1)] = time.time()  # later than planned when the crowd's loop lags
            body = {"ply": ply, "point": points[ply], "think_ms": round((time.time() - seen) * 1000)}
            status, answer = 0, None
            for _attempt in range(20):  # as the game page: the same ply again after a broken connection or a 503
                sent = time.time()
                tally.sent.setdefault((game, ply + 1), sent)
                outcomes = tally.attempts.setdefault((game, ply + 1), [])
                try:
                    seat = seats[ply % 2] if seats is not None else None
                    if seat is not None and seat.open:
                        try:
                            status, answer = await seat.act("move", body)
                        except SeatClosed as exc:
                            outcomes.append((sent, f"socket: {exc}"))
                            tally.connection_errors += 1
                            continue  # at once by HTTP, as the page does
                        if isinstance(answer, dict) and answer.get("code") == "busy":  # not acted on: by HTTP
                            outcomes.append((sent, "socket: busy"))
                            tally.shed += 1
                            status, answer = await http.request(
                                "POST", f"/api/games/{game}/move/", tokens[ply % 2], body
                            )
                    else:
                        status, answer = await http.request("POST", f"/api/games/{game}/move/", tokens[ply % 2], body)
                except ConnectionError as exc:
                    outcomes.append((sent, f"connection: {exc}"))
                    tally.connection_errors += 1
                    await asyncio.sleep(0.2)
                    continue
                tally.statuses[status] = tally.statuses.get(status, 0) + 1
                outcomes.append((sent, f"{status} after {time.time() - sent:.3f} s"))
                if status != 503:
                    break
                await asyncio.sleep(0.5)
            now = time.time()
            if status != 200:
                tally.ended_by_server[game] = (
                    f"{status} {(answer or {}).get('code', '') if isinstance(answer, dict) else ''}"
                )
                return
            tally.latencies.append((now, (now - tally.sent[(game, ply + 1)]) * 1000))
            built = answer_built(answer)
            if built is not None:  # the server's clock reading in the answer: the crowd read it this much later
                tally.read_late[(game, ply + 1)] = max(0.0, now - built)
            tally.acked[(game, ply + 1)] = now
            tally.thought[(game, ply + 1)] = body["think_ms"]
            seen = now
            ply += 1
            if isinstance(answer, dict) and answer.get("status") == "finished":
                tally.ended_by_server[game] = f"finished {answer.get('result_reason', '')}"
                return
        tally.stopped_at[game] = time.time()
        await resign(http, game, tokens[ply % 2], tally)
    finally:
        await http.close()
        if seats is not None:
            await asyncio.gather(*(seat.close() for seat in seats), return_exceptions=True)


async def resign(http: Http, game: int, token: str, tally: Tally) -> None:
    """The window closed: the player to act resigns, so the round ends; retried as the page does (a broken
    connection — the keep-alive one may have idled out while the moves went on the socket — or a 503). A game
    left running would be flagged minutes later, in the next round's start, and that round would measure it."""
    for _attempt in range(10):
        try:
            status, _answer = await http.request("POST", f"/api/games/{game}/resign/", token, {})
        except ConnectionError:
            tally.connection_errors += 1
            await asyncio.sleep(0.2)
            continue
        tally.statuses[status] = tally.statuses.get(status, 0) + 1
        if status != 503:
            return
        await asyncio.sleep(0.5)


async def connect_seat(seat: SocketSeat, tally: Tally) -> None:
    await seat.connect()
    if seat.open:
        tally.seated.append(time.time())


async def loop_lag(tally: Tally, stop: asyncio.Event) -> None:
    """How late the crowd's own event loop wakes (it shares the cores): a client that sees an answer late
    and then thinks its full time is charged that lateness, which is the bench's doing, not the server's.

    Every second it also moves what the crowd holds to the collector's permanent generation (``gc.freeze``,
    as config.heap does for the server's processes). The crowd holds 1,000 clients' and 4,000 sockets' worth
    of objects, and each full collection walked them all: 350–530 ms with the whole crowd stopped, every
    20–25 s, collecting nothing. Each such pause sent a burst of late moves at once (the server's socket
    queue then answering some busy) and was measured as the server's latency. The young passes still run,
    so the cycles that die young are still found; :func:`the_round` thaws and collects once the round ends."""
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(0.1)
        tally.loop_lag_ms.append((time.perf_counter() - asked - 0.1) * 1000)
        if len(tally.loop_lag_ms) % 10 == 0:
            gc.freeze()


async def spectate(url: str, game: int, tally: Tally, stop: asyncio.Event) -> None:
    import websockets

    try:
        async with websockets.connect(
            f"{url}?topic=game:{game}&lang=en", max_size=2**22, open_timeout=60, ping_interval=None
        ) as ws:
            connected = time.time()
            tally.watching.append(connected)
            seen: set[int] = set()
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.time()
                if not seen:
                    tally.welcomed.append(now)
                ply = pushed_ply(raw)
                if ply is not None and ply not in seen:  # the first time this spectator sees the ply
                    seen.add(ply)
                    tally.arrivals.setdefault((game, ply), []).append((connected, now))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        tally.socket_errors.append(f"{type(exc).__name__}: {exc}")


async def quiet(stack: Stack, below_ms: float = 100.0, longest_s: float = 60.0) -> tuple[float, dict[str, float]]:
    """Wait until the server has gone quiet (under ``below_ms`` of CPU in a second, all processes): what the
    last run left behind (its sockets closing, its games' ends followed) must not be counted as the trivial
    request's cost. One run's noop measure fell to half the others' that way. Returns the seconds waited and
    the last second's CPU by process (ms)."""
    started = time.time()
    spent: dict[str, float] = {}
    while time.time() < started + longest_s:
        before = server_cpu_ms(stack)
        await asyncio.sleep(1.0)
        spent = cpu_delta(before, server_cpu_ms(stack))
        if sum(spent.values()) < below_ms:
            break
    return time.time() - started, spent


async def noop_phase(stack: Stack, tokens: list[str], concurrency: int, seconds: float) -> tuple[int, float, float]:
    """Trivial authenticated requests at ``concurrency`` for ``seconds``: (count, server CPU ms, p99 ms)."""
    done = 0
    latencies: list[float] = []
    waited, idle = await quiet(stack)
    split = {name: round(ms) for name, ms in idle.items() if ms >= 1}
    print(f"  (the server quiet after {waited:.0f} s: CPU ms in its last second {split})", flush=True)
    ends = time.time() + seconds

    async def loop(token: str) -> None:
        nonlocal done
        http = Http(stack.port)
        try:
            while time.time() < ends:
                sent = time.perf_counter()
                try:
                    status, _ = await http.request("GET", "/api/me/", token)
                except ConnectionError:
                    continue
                if status == 200:
                    done += 1
                    latencies.append((time.perf_counter() - sent) * 1000)
        finally:
            await http.close()

    before = server_cpu_ms(stack)
    await asyncio.gather(*(loop(tokens[n % len(tokens)]) for n in range(concurrency)))
    used = cpu_delta(before, server_cpu_ms(stack))
    # Only the processes that serve the request (web, proxy, Redis, the database): the live-push server, the
    # workers and the beat do nothing for it, and what they did meanwhile (the last run's leftovers, a sweep)
    # once doubled a run's figure and so halved its ratio.
    spent = sum(ms for name, ms in used.items() if not name.startswith(BACKGROUND))
    elsewhere = {name: round(ms) for name, ms in used.items() if name.startswith(BACKGROUND) and ms >= 1}
    print(f"  (the trivial requests: {done} in {seconds:.0f} s; not counted, CPU ms elsewhere {elsewhere})", flush=True)
    return done, spent, percentile(latencies, 99)


async def the_round(
    stack: Stack,
    tournament: Any,
    tokens: dict[int, str],
    spectators: int,
    seconds: float,
    seed: int,
    moves_by: str = "http",
) -> dict[str, Any]:
    tally = Tally()
    stop = asyncio.Event()
    lag = asyncio.create_task(loop_lag(tally, stop))
    known: set[int] = set()
    tasks: list[asyncio.Task[None]] = []
    url = f"ws://127.0.0.1:{stack.live_port}/ws/live/"
    pairing: dict[str, float] = {}
    expected = len(tokens) // 2

    def pair() -> None:
        pairing["seconds"] = pair_round(tournament)

    pairer = threading.Thread(target=pair)
    started = time.time()
    pairer.start()
    per_game = max(0, spectators // max(1, expected))
    extra = spectators - per_game * expected
    last_game_at = time.time()
    while len(known) < expected and (pairer.is_alive() or not known or len(known) < expected):
        found = await asyncio.to_thread(new_games, tournament, known)
        for game, one, two in found:
            known.add(game)
            rng = random.Random(f"{seed}-{game}")
            pair_of = (tokens[one], tokens[two])
            seats = None
            if moves_by == "socket":
                where = f"{url}?topic=game:{game}&lang=en"
                seats = (
                    SocketSeat(where, pair_of[0], tally.socket_errors),
                    SocketSeat(where, pair_of[1], tally.socket_errors),
                )
            tasks.append(asyncio.create_task(play(Http(stack.port), game, pair_of, tally, stop, rng, seats)))
            watchers = per_game + (1 if extra > 0 else 0)
            extra -= 1
            tasks += [asyncio.create_task(spectate(url, game, tally, stop)) for _ in range(watchers)]
        if found:
            last_game_at = time.time()
        if not pairer.is_alive() and not found and len(known) < expected:
            break  # an odd field: a bye
        await asyncio.sleep(0.5)
    pairer.join()
    held = await asyncio.to_thread(held_matches, tournament)
    # The sustained figures begin once every client is under way: its game seen, every player's socket
    # accepted, and every spectator watching: its socket accepted and its game's first state received (or the
    # socket refused). On 2 cores the live-push server takes several seconds to accept 4,000 sockets, and
    # the first states come a few seconds after: the moves made meanwhile reach those spectators only with
    # them, and are the start's figures, reported apart.
    window_start = max(last_game_at, started) + 5.0
    # the spectators of the games that started (a game held for room has none)
    watching = per_game * len(known) + min(len(known), spectators - per_game * expected)
    sockets = watching + (2 * len(known) if moves_by == "socket" else 0)
    while (
        len(tally.welcomed) + len(tally.seated) + len(tally.socket_errors) < sockets and time.time() < window_start + 60
    ):
        await asyncio.sleep(0.2)
    window_start = max(window_start, time.time() + 1.0)
    await asyncio.sleep(max(0.0, window_start - time.time()))
    print(f"  (the window opens at {time.strftime('%H:%M:%S')} for {seconds:.0f} s)", flush=True)  # to profile it
    cpu_before = server_cpu_ms(stack)
    acked_before = len(tally.acked)
    await asyncio.sleep(seconds)
    cpu = cpu_delta(cpu_before, server_cpu_ms(stack))
    acked_in_window = len(tally.acked) - acked_before
    window_end = time.time()
    await asyncio.to_thread(cancel_held, tournament)  # else they would start as these games end, in the next run
    stop.set()
    await asyncio.gather(*tasks, lag, return_exceptions=True)
    gc.unfreeze()  # the crowd's heap, frozen while it played (loop_lag), collected now that nothing is measured
    gc.collect()
    return {
        "tally": tally,
        "games": sorted(known),
        "held": held,
        "pair_s": pairing.get("seconds", 0.0),
        "window": (window_start, window_end),
        "start": (started, last_game_at),
        "moves_in_window": acked_in_window,
        "cpu": cpu,
    }


def queries_of_a_move_and_a_noop(tokens: list[str]) -> tuple[int, int]:
    """The queries one move and one trivial authenticated request make, counted through the same API."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games.models import Player
    from games.services import game_create

    one, two = (Player.objects.get(user__auth_token__key=t) for t in tokens[:2])
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control=QUICK)
    client = Client(HTTP_AUTHORIZATION=f"Token {tokens[0]}", HTTP_ACCEPT_LANGUAGE="en", HTTP_HOST="127.0.0.1")
    other = Client(HTTP_AUTHORIZATION=f"Token {tokens[1]}", HTTP_ACCEPT_LANGUAGE="en", HTTP_HOST="127.0.0.1")
    for ply, point in enumerate(QUIET[:3]):  # warm: the first moves start the clock
        (client if ply % 2 == 0 else other).post(
            f"/api/games/{game.pk}/move/",
            {"ply": ply, "point": point, "think_ms": 1000},
            content_type="application/json",
        )
    with CaptureQueriesContext(connection) as move:
        answer = other.post(
            f"/api/games/{game.pk}/move/",
            {"ply": 3, "point": QUIET[3], "think_ms": 1000},
            content_type="application/json",
        )
    assert answer.status_code == 200, answer.content
    with CaptureQueriesContext(connection) as noop:
        assert client.get("/api/me/").status_code == 200
    return len(move.captured_queries), len(noop.captured_queries)


def answer_built(answer: Any) -> float | None:
    """When the server built a move's answer (its clock's ``server_time``), epoch seconds."""
    try:
        return datetime.fromisoformat(answer["clock"]["server_time"]).timestamp()
    except (TypeError, KeyError, ValueError):
        return None


def crowd_late_s(tally: Tally, game: int, ply: int) -> float:
    """How late the crowd itself made the move that gave ``ply``: it read the answer that began the turn
    later than the server built it, and its loop let it send later than it meant to. Both are the
    crowd's event loop on the server's cores (and a socket's last bytes), not the server's queueing."""
    planned, woke = tally.planned.get((game, ply)), tally.woke.get((game, ply))
    woke_late = max(0.0, woke - planned) if planned is not None and woke is not None else 0.0
    return tally.read_late.get((game, ply - 1), 0.0) + woke_late


def late_client(tally: Tally, game: int, ply: int, flagged_at: float) -> bool:
    """Was a game lost on time because the crowd itself was late? Had its client read the answer that began
    the turn as the server built it, it meant to send before the flag fell; but the crowd's event loop (on
    the server's cores) let it read late, or send late, so that it sent only in the last second before the
    flag was settled, or after: a player's own device does not share the server's CPU, so that loss is the
    bench's, counted apart (``client_late_losses``). A client that ran in time and still lost, or that was
    waiting for the server's answer, is a loss by load."""
    planned, woke = tally.planned.get((game, ply)), tally.woke.get((game, ply))
    if planned is None:
        return False
    meant = planned - tally.read_late.get((game, ply - 1), 0.0)  # had it read the answer as it was built
    if meant >= flagged_at:
        return False
    return woke is None or (woke - meant > CLIENT_LATE_S and woke >= flagged_at - SETTLE_S)


def explain_losses(tally: Tally, games: list[Any]) -> list[dict[str, Any]]:
    """For each game lost on time, the client's side of its last turn beside the server's log of it: when the
    answer that began the turn was built and read, when the client meant to send, woke and sent (each
    attempt and its outcome), and the game's last events with their instants (``--explain PATH``)."""
    from games.models import GameEvent

    out = []
    for game in games:
        ply = game.ply + 1
        events = list(GameEvent.objects.filter(game=game).order_by("-id")[:6])
        out.append(
            {
                "game": game.pk,
                "ply": ply,
                "finished_at": game.finished_at.timestamp() if game.finished_at else None,
                "previous_acked": tally.acked.get((game.pk, ply - 1)),
                "previous_read_late": tally.read_late.get((game.pk, ply - 1)),
                "previous_attempts": tally.attempts.get((game.pk, ply - 1)),
                "planned": tally.planned.get((game.pk, ply)),
                "woke": tally.woke.get((game.pk, ply)),
                "attempts": tally.attempts.get((game.pk, ply)),
                "ended": tally.ended_by_server.get(game.pk),
                "events": [
                    {"kind": e.kind, "at": e.created_at.timestamp(), "interface": e.interface, "data": e.data}
                    for e in reversed(events)
                ],
            }
        )
    return out


def latency_series(tally: Tally, start: float, end: float, step: float = 5.0) -> list[dict[str, Any]]:
    """The acknowledgements over the window in ``step``-second slices, by when each was sent: how many, their
    p50, p99 and worst (ms), so that a tail can be placed in time (``--explain``)."""
    slices: dict[int, list[float]] = {}
    for at, ms in tally.latencies:
        sent = at - ms / 1000
        if start - 30 <= sent <= end:
            slices.setdefault(int((sent - start) // step), []).append(ms)
    return [
        {"from_s": n * step, "moves": len(v), "p50": percentile(v, 50), "p99": percentile(v, 99), "max": max(v)}
        for n, v in sorted(slices.items())
    ]


def pushed_ms(tally: Tally, start: float, end: float) -> list[float]:
    """How long each move sent between ``start`` and ``end`` took to reach each spectator already connected
    when it was sent (not the state sent on connecting)."""
    return [
        (arrived - tally.sent[key]) * 1000
        for key, times in tally.arrivals.items()
        if key in tally.sent and start <= tally.sent[key] <= end
        for connected, arrived in times
        if connected < tally.sent[key]
    ]


def figures(result: dict[str, Any], noop_cpu_ms: float, seconds: float) -> dict[str, Any]:
    from games.enums import GameStatus
    from games.models import Game, Move

    tally: Tally = result["tally"]
    start, end = result["window"]
    in_window = [ms for at, ms in tally.latencies if start <= at <= end]
    pushes = pushed_ms(tally, start, end)
    charged: list[float] = []
    charged_server: list[float] = []  # less the crowd's own lateness in reading the answer and in sending
    for game_id, ply, readings in Move.objects.filter(game_id__in=result["games"]).values_list(
        "game_id", "ply", "clock_ms"
    ):
        if ply > 1 and (game_id, ply) in tally.thought:
            beyond = readings.get("think_ms", 0) - tally.thought[(game_id, ply)]
            charged.append(beyond)
            charged_server.append(max(0.0, beyond - crowd_late_s(tally, game_id, ply) * 1000))
    losses, client_late = [], []
    for game in Game.objects.filter(pk__in=result["games"], result_reason="time"):
        stopped = tally.stopped_at.get(game.pk)
        if stopped is None or (game.finished_at is not None and game.finished_at.timestamp() < stopped):
            late = late_client(tally, game.pk, game.ply + 1, game.finished_at.timestamp() if game.finished_at else 0)
            (client_late if late else losses).append(game)
    at_start = [ms for at, ms in tally.latencies if at < start]
    left_open = Game.objects.filter(pk__in=result["games"], status__in=GameStatus.active()).count()
    moves = result["moves_in_window"]
    # the fair-play worker's screening is not the moves' cost: reported apart (--screening)
    cpu = {name: ms for name, ms in result["cpu"].items() if name != "fairplay"}
    cpu_per_move = sum(cpu.values()) / max(1, moves)
    return {
        "moves_per_s": moves / seconds,
        "move_p50": percentile(in_window, 50),
        "move_p99": percentile(in_window, 99),
        "push_p99": percentile(pushes, 99),
        "pushes": len(pushes),
        "charged_p99": percentile(charged, 99),
        "charged_server_p99": percentile(charged_server, 99),
        "read_late_p99": percentile([s * 1000 for s in tally.read_late.values()], 99),
        "time_losses": len(losses),
        "client_late_losses": len(client_late),
        "explained": explain_losses(tally, losses + client_late),
        "series": latency_series(tally, start, end),
        "errors_5xx": sum(n for status, n in tally.statuses.items() if status >= 500),
        "connection_errors": tally.connection_errors,
        "shed": tally.shed,
        "client_lag_p99": percentile(tally.loop_lag_ms, 99),
        "client_lag_max": max(tally.loop_lag_ms, default=0.0),
        "socket_errors": len(tally.socket_errors),
        "other_endings": sorted(set(tally.ended_by_server.values()))[:5],
        "left_open": left_open,  # games still running after their clients resigned: the next run would meet them
        "cpu_ms_per_move": cpu_per_move,
        "cpu_split": {name: round(ms / max(1, moves), 2) for name, ms in cpu.items()},
        "noop_ratio": cpu_per_move / noop_cpu_ms if noop_cpu_ms else 0.0,
        "pair_s": result["pair_s"],
        # The round's start, before the window: the moves acknowledged then, and the sockets' connecting.
        "start_moves": len(at_start),
        "start_p99": percentile(at_start, 99),
        "start_push_p99": percentile(pushed_ms(tally, result["start"][0], start), 99),
        "sockets_s": max(tally.watching + tally.seated, default=result["start"][1]) - result["start"][1],
        "states_s": max(tally.welcomed, default=result["start"][1]) - result["start"][1],
    }


def one_run(stack: Stack, args: argparse.Namespace, run: int) -> dict[str, Any]:
    tournament, tokens = make_round(args.players, run)
    backlog = make_backlog(args.screening, run) if args.screening else None
    queued = waiting() if backlog is not None else 0
    token_list = list(tokens.values())
    done, spent, noop_p99 = run_async(noop_phase(stack, token_list, concurrency=64, seconds=10))
    noop_cpu = spent / max(1, done)
    if backlog is not None:
        stack.start_fairplay()  # the worker screens the backlog through the whole round, niced as make run's
    try:
        result = run_async(
            the_round(stack, tournament, tokens, args.spectators, args.seconds, seed=run, moves_by=args.moves)
        )
    finally:
        stack.stop_fairplay()
    out = figures(result, noop_cpu, args.seconds)
    if backlog is not None:
        out.update(queued=queued, screened=screened(backlog), fairplay_cpu_s=result["cpu"].get("fairplay", 0) / 1000)
    out.update(
        games=len(result["games"]), held=result["held"], noop_cpu_ms=noop_cpu, noop_per_s=done / 10, noop_p99=noop_p99
    )
    out["queries_move"], out["queries_noop"] = queries_of_a_move_and_a_noop(token_list)
    return out


def measure(args: argparse.Namespace, nodes: int) -> list[dict[str, Any]]:
    """``--runs`` rounds on one stack (``nodes`` behind nginx, or 0: make run's stack); each run's line."""
    results = []
    # N nodes share the same two cores: the web processes are split between them (2 in all), so the
    # comparison asks whether anything serialises or is done twice, not whether more processes help.
    stack = Stack(
        database=args.database,
        nice_web=False,
        nodes=nodes,
        web_workers=max(1, 2 // max(1, nodes)),
        web_threads=args.web_threads,
    )
    stack.start()
    where = f"{args.database}, {nodes} node{'s' if nodes > 1 else ''} behind nginx" if nodes else args.database
    try:
        if not nodes:
            stack.start_live()
        for run in range(args.runs):
            r = one_run(stack, args, run)
            results.append(r)
            if args.explain:
                with open(args.explain, "a") as out:
                    out.write(
                        json.dumps({"run": run + 1, "where": where, "losses": r["explained"], "series": r["series"]})
                        + "\n"
                    )
            print(
                f"  run {run + 1} ({where}): games={r['games']} held for room={r['held']} "
                f"paired in {r['pair_s']:.1f} s; "
                f"start: sockets connected in {r['sockets_s']:.1f} s, first states by {r['states_s']:.1f} s, "
                f"{r['start_moves']} moves p99={r['start_p99']:.0f} ms, push p99={r['start_push_p99']:.0f} ms; "
                f"moves/s={r['moves_per_s']:.1f} move p50={r['move_p50']:.0f} p99={r['move_p99']:.0f} ms; "
                f"push p99={r['push_p99']:.0f} ms over {r['pushes']} pushes; charged p99={r['charged_p99']:.0f} ms "
                f"(less the crowd's own lateness {r['charged_server_p99']:.0f} ms; answers read late p99="
                f"{r['read_late_p99']:.0f} ms); "
                f"time losses={r['time_losses']} (and {r['client_late_losses']} by the crowd's own lateness) "
                f"5xx={r['errors_5xx']} connection errors={r['connection_errors']} sent by HTTP when busy={r['shed']} "
                f"socket errors={r['socket_errors']}; client loop lag p99={r['client_lag_p99']:.0f} "
                f"max={r['client_lag_max']:.0f} ms; cpu ms/move={r['cpu_ms_per_move']:.1f} {r['cpu_split']}; "
                f"noop: {r['noop_per_s']:.0f}/s p99={r['noop_p99']:.0f} ms cpu={r['noop_cpu_ms']:.2f} ms; "
                f"queries: move={r['queries_move']} noop={r['queries_noop']}; other endings {r['other_endings']}; "
                f"left running={r['left_open']}"
                + (
                    f"; screening: {r['queued']} queued, {r['screened']} games screened during the round, "
                    f"fair-play worker {r['fairplay_cpu_s']:.1f} CPU-s in the window (niced)"
                    if "screened" in r
                    else ""
                ),
                flush=True,
            )
    finally:
        stack.stop()
    if len(results) > 1:
        for key in ("moves_per_s", "move_p99", "push_p99", "charged_p99", "cpu_ms_per_move", "noop_ratio"):
            values = [r[key] for r in results]
            print(f"  {key}: median {statistics.median(values):.1f}, spread {min(values):.1f}–{max(values):.1f}")
    return results


def summary(results: list[dict[str, Any]], spectators: int) -> str:
    def median(key: str) -> float:
        return statistics.median(r[key] for r in results)

    return (
        f"open: games={results[0]['games']} held={results[0]['held']} spectators={spectators} "
        f"moves_per_s={median('moves_per_s'):.1f} "
        f"move_p99_ms={median('move_p99'):.0f} push_p99_ms={median('push_p99'):.0f} "
        f"charged_p99_ms={median('charged_p99'):.0f} time_losses={sum(r['time_losses'] for r in results)} "
        f"errors_5xx={sum(r['errors_5xx'] for r in results)} cpu_ms_per_move={median('cpu_ms_per_move'):.1f} "
        f"noop_ratio={median('noop_ratio'):.1f}"
        + (
            f" screened={sum(r['screened'] for r in results)} fairplay_cpu_s={median('fairplay_cpu_s'):.1f}"
            if "screened" in results[0]
            else ""
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--spectators", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--nodes", type=int, default=0, help="N web, live and worker processes behind nginx")
    parser.add_argument("--drills", action="store_true", help="kill a web, live and worker process mid-round")
    parser.add_argument("--alone", action="store_true", help="with --nodes N: only N nodes, no 1-node comparison")
    parser.add_argument("--explain", metavar="PATH", help="append each loss on time's timeline to PATH (JSON lines)")
    parser.add_argument("--web-threads", type=int, default=8, help="threads per gunicorn process (make run: 8)")
    parser.add_argument(
        "--moves",
        choices=["socket", "http"],
        default="socket",
        help="how the players send their moves: on the game's socket, as the game page does (LIVE_MOVES, on by "
        "default; by HTTP when the socket is closed, fails or answers busy), or always by HTTP (LIVE_MOVES off)",
    )
    parser.add_argument(
        "--screening",
        type=int,
        default=0,
        metavar="N",
        help="N finished games of another tournament queued for fair-play screening, and make run's niced fair-play "
        "worker screening them through the round (bench/backlog.py)",
    )
    args = parser.parse_args()
    if args.drills:
        from nodes import run_drills

        return 0 if run_drills(max(2, args.nodes), args.moves) else 1
    open_files_as_allowed()
    os.environ["SWISS_SYNC_PLAYERS"] = str(args.players + 1)  # the bench pairs in its own process
    if args.nodes < 2 or args.alone:
        print(summary(measure(args, args.nodes), args.spectators), flush=True)
        return 0
    # The same round with one node and with N behind the same proxy, on the same cores, each in a process of
    # its own (a stack per process): the ratio shows whether anything serialises that should not.
    rates, last = {}, ""
    for nodes in (1, args.nodes):
        argv = [sys.executable, __file__, *sys.argv[1:], "--nodes", str(nodes), "--alone"]
        child = subprocess.run(argv, capture_output=True, text=True, check=False)
        lines = [line for line in child.stdout.splitlines() if line.startswith(("  run", "  ", "open:"))]
        for line in lines:
            print(f"  [{nodes} node{'s' if nodes > 1 else ''}] {line.strip()}", flush=True)
        found = [line for line in lines if line.startswith("open:")]
        if child.returncode or not found:
            print(child.stderr[-2000:], file=sys.stderr)
            return 1
        last = found[-1]
        rates[nodes] = float(last.split("moves_per_s=")[1].split()[0])
    ratio = rates[args.nodes] / max(rates[1], 0.01)
    print(f"nodes: 1={rates[1]:.1f} {args.nodes}={rates[args.nodes]:.1f} moves/s ratio={ratio:.2f}", flush=True)
    print(last, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
