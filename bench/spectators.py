"""Spectators on live push: S sockets watching G games being played, against make run's stack.

Starts the default stack (SQLite, embedded Redis, gunicorn with the stamping worker, a Celery worker and
beat) and the live-push socket server (uvicorn, config/live.py), as ``make run`` does. Creates G public
online games and connects S WebSocket spectators spread over them (``/ws/live/?topic=game:N``); then
one client per game plays a move every 2 s through the API for ``--seconds``. Each spectator notes when
each new ply reaches it; the push latency is from the moment the move was sent to that arrival, for
every (spectator, move). ``errors`` counts sockets refused or lost, pushes that never came, and
failed moves. Then, with the games still being played and the sockets still open, it finds how many
1-second pollers (``GET /api/games/N/`` with ETag, as the game page polls without a socket) the same
machine holds with a poll p99 ≤ 1 s: 5, 10, 20, 40 … pollers for 10 s each; ``poll_capacity`` is the
largest level that held.

Three runs by default (fresh stack each); the lines give each run, then the median and the spread.
The last line: ``spectators: connected=… games=… push_p99_ms=… errors=0 poll_capacity=…``.
Run: ``.venv/bin/python bench/spectators.py [--spectators 2000] [--games 10] [--seconds 30] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from seats import pushed_ply  # noqa: E402

from devtools.processes import open_files_as_allowed  # noqa: E402

QUIET = [f"{c}{r}" for c in "acegikmo" for r in (1, 3, 5, 7, 9, 11, 13, 15)]  # no two touch: never a five


async def spectate(
    url: str, game: int, arrivals: dict[tuple[int, int], list[float]], errors: list[str], ready: list[int]
) -> None:
    import websockets

    try:
        async with websockets.connect(
            f"{url}?topic=game:{game}&lang=en", max_size=2**22, open_timeout=60, ping_interval=None
        ) as ws:
            ready.append(1)
            async for raw in ws:
                now = time.time()
                ply = pushed_ply(raw)
                if ply is not None:
                    arrivals.setdefault((game, ply), []).append(now)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        errors.append(f"socket: {type(exc).__name__}: {exc}")


def play(
    stack: Any,
    game: int,
    tokens: tuple[str, str],
    sent: dict[tuple[int, int], float],
    errors: list[str],
    start: float,
    seconds: float,
    offset: float,
) -> None:
    conn = stack.connection()
    ply = 0
    while True:
        at = start + offset + 2.0 * ply
        if at > start + seconds:
            return
        time.sleep(max(0.0, at - time.time()))
        sent[(game, ply + 1)] = time.time()
        try:
            status, body, _ms = stack.request(
                conn, "POST", f"/api/games/{game}/move/", tokens[ply % 2], {"ply": ply, "point": QUIET[ply]}
            )
        except OSError as exc:
            errors.append(f"move: {exc}")
            conn = stack.connection()
            continue
        if status != 200:
            errors.append(f"move {status}: {body}")
            return
        ply += 1


def pollers_hold(stack: Any, games: list[int], count: int, seconds: float) -> float:
    """``count`` clients polling a game every second with If-None-Match; the p99 of their polls (ms)."""
    from stack import percentile

    latencies: list[float] = []
    lock = threading.Lock()
    end = time.time() + seconds

    def poller(n: int) -> None:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
        etag = None
        path = f"/api/games/{games[n % len(games)]}/"
        next_at = time.time() + (n % 10) / 10
        mine = []
        while next_at < end:
            time.sleep(max(0.0, next_at - time.time()))
            started = time.perf_counter()
            headers = {"Accept-Language": "en", "Accept-Encoding": "gzip"}
            if etag:
                headers["If-None-Match"] = etag
            try:
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                etag = response.getheader("ETag") or etag
            except OSError:
                conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
                mine.append(30_000.0)
                next_at += 1.0
                continue
            mine.append((time.perf_counter() - started) * 1000)
            next_at += 1.0
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=poller, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return percentile(latencies, 99)


def one_run(spectators: int, games: int, seconds: float, seed: int) -> dict[str, Any]:
    from stack import Stack, make_players, percentile

    stack = Stack(database="sqlite", nice_web=False).start()
    try:
        stack.start_live()
        from games.services import game_create

        players = make_players(games * 2, f"s{seed}-")
        created = []
        for n in range(games):
            (one, t1), (two, t2) = players[2 * n], players[2 * n + 1]
            game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
            created.append((game.pk, (t1, t2)))
        ids = [g for g, _t in created]
        url = f"ws://127.0.0.1:{stack.live_port}/ws/live/"
        arrivals: dict[tuple[int, int], list[float]] = {}
        sent: dict[tuple[int, int], float] = {}
        errors: list[str] = []
        ready: list[int] = []
        loop = asyncio.new_event_loop()
        tasks: list[asyncio.Task[None]] = []

        async def connect_all() -> None:
            for n in range(spectators):
                tasks.append(asyncio.ensure_future(spectate(url, ids[n % games], arrivals, errors, ready)))
                if n % 50 == 49:
                    await asyncio.sleep(0.05)  # a crowd arriving, not one burst of SYNs
            deadline = time.time() + 120
            while len(ready) + len(errors) < spectators and time.time() < deadline:
                await asyncio.sleep(0.2)

        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        asyncio.run_coroutine_threadsafe(connect_all(), loop).result()
        connected = len(ready)
        time.sleep(2.0)  # the first state reaches everyone
        start = time.time() + 1.0
        players_threads = [
            threading.Thread(target=play, args=(stack, g, tokens, sent, errors, start, seconds, 2.0 * k / games))
            for k, (g, tokens) in enumerate(created)
        ]
        for t in players_threads:
            t.start()
        for t in players_threads:
            t.join()
        time.sleep(3.0)  # the last pushes arrive
        watchers = {g: sum(1 for n in range(spectators) if ids[n % games] == g) for g in ids}
        latencies = []
        missing = 0
        for (game, ply), at in sent.items():
            got = arrivals.get((game, ply), [])
            latencies += [(t - at) * 1000 for t in got]
            missing += max(0, watchers[game] - len(got))
        push_p99 = percentile(latencies, 99)
        push_p50 = percentile(latencies, 50)
        # Poll capacity, with the games still being played and the sockets still open.
        start = time.time() + 0.5
        background = [
            threading.Thread(target=play, args=(stack, g, tokens, {}, [], start, 10_000, 2.0 * k / games), daemon=True)
            for k, (g, tokens) in enumerate(created)
        ]
        for t in background:
            t.start()
        capacity, level = 0, 5
        while level <= 640:
            p99 = pollers_hold(stack, ids, level, 10.0)
            print(f"  run {seed}: {level} pollers p99 {p99:.0f} ms", file=sys.stderr, flush=True)
            if p99 > 1000:
                break
            capacity, level = level, level * 2
        for task in tasks:
            loop.call_soon_threadsafe(task.cancel)
        return {
            "connected": connected,
            "moves": len(sent),
            "push_p50_ms": push_p50,
            "push_p99_ms": push_p99,
            "errors": len(errors) + missing,
            "missing": missing,
            "poll_capacity": capacity,
            "error_samples": errors[:3],
        }
    finally:
        stack.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=2000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", type=int, help=argparse.SUPPRESS)  # a child process: one run, JSON out
    args = parser.parse_args()
    open_files_as_allowed()
    if args.only is not None:
        print(json.dumps(one_run(args.spectators, args.games, args.seconds, args.only)))
        return 0
    import subprocess

    runs = []
    for seed in range(args.runs):  # one process per run: a fresh stack and a fresh Django
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--only",
                str(seed),
                "--spectators",
                str(args.spectators),
                "--games",
                str(args.games),
                "--seconds",
                str(args.seconds),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        sys.stderr.write(child.stderr[-2000:])
        if child.returncode != 0:
            return 1
        run = json.loads(child.stdout.strip().splitlines()[-1])
        runs.append(run)
        print(
            f"run {seed}: connected={run['connected']} moves={run['moves']} push_p50_ms={run['push_p50_ms']:.0f} "
            f"push_p99_ms={run['push_p99_ms']:.0f} errors={run['errors']} (missing pushes {run['missing']}) "
            f"poll_capacity={run['poll_capacity']} {run['error_samples'] or ''}",
            flush=True,
        )
    p99s = [r["push_p99_ms"] for r in runs]
    caps = [r["poll_capacity"] for r in runs]
    print(
        f"push p99 median {statistics.median(p99s):.0f} ms (runs {min(p99s):.0f}–{max(p99s):.0f}); "
        f"poll capacity median {statistics.median(caps):.0f} (runs {min(caps)}–{max(caps)})"
    )
    print(
        f"spectators: connected={min(r['connected'] for r in runs)} games={args.games} "
        f"push_p99_ms={statistics.median(p99s):.0f} errors={sum(r['errors'] for r in runs)} "
        f"poll_capacity={statistics.median(caps):.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
