"""Concurrent play on the default stack: G games at once, every client moving at the same instant each second.

Starts ``make run``'s default stack (a SQLite file, an embedded Redis, gunicorn 2 workers × 8 threads with
the stamping worker, a Celery worker and beat; bench/stack.py) and, in the same run, the same stack on a
throw-away PostgreSQL. For each G (10, 50, 100) it creates G timed games (freestyle, the seed's quick play)
plus G/10 abandoned ones whose 3-second clocks run out during the run, so the worker writes timeouts while
the players write moves. One client thread per game waits for each whole second and then sends the move of
the side to act (stones that never make five); every fifth round it sends the same move twice at once on two
connections (a client's retry racing its first try): both must be 200 with the same ply, the move stored once.

Each (database, G) is measured ``--runs`` times (default 3) on fresh games; the lines give the median move
latency p99 and its spread, and errors summed over the runs. A 5xx is any answer ≥ 500 or a failed connection.
The last line is the default stack (SQLite) at the largest G:
``concurrency: games=100 moves=… errors_5xx=0 p99_ms=… twins_ok=…/…``.
Run: ``.venv/bin/python bench/concurrency.py [--games 10 50 100] [--rounds 12] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

QUIET = [f"{c}{r}" for c in "acegikmo" for r in (1, 3, 5, 7, 9, 11, 13, 15)]  # no two touch: never a five


def one_run(stack: Any, games: int, rounds: int, seed: int, label: str) -> dict[str, Any]:
    from django.utils import timezone
    from stack import make_players, percentile

    from games.services import game_create

    players = make_players(games * 2 + (games // 10) * 2, f"c{label}{games}-{seed}-")
    now = timezone.now()
    created = []
    for n in range(games + games // 10):
        (one, token_one), (two, token_two) = players[2 * n], players[2 * n + 1]
        abandoned = n >= games
        game = game_create(
            player_one=one,
            player_two=two,
            rules="freestyle",
            time_control={"preset": "quick", "move_ms": 3_000 if abandoned else 30_000},
            start_clock_at=now,
        )
        if not abandoned:
            created.append((game.pk, token_one, token_two))
    latencies: list[float] = []
    errors_5xx: list[str] = []
    other: list[str] = []
    doubles = {"ok": 0, "all": 0}
    lock = threading.Lock()
    start_at = time.time() + 2.0  # every client starts on the same whole second

    def post(conn: Any, game_id: int, token: str, ply: int, point: str) -> tuple[int, Any, float]:
        try:
            return stack.request(conn, "POST", f"/api/games/{game_id}/move/", token, {"ply": ply, "point": point})
        except OSError as exc:
            return 599, {"code": f"connection: {exc}"}, 0.0

    def client(game_id: int, tokens: tuple[str, str], rng: random.Random) -> None:
        conns = [stack.connection(), stack.connection()]
        points = QUIET[:]
        rng.shuffle(points)
        ply = 0
        mine_lat: list[float] = []
        mine_5xx: list[str] = []
        mine_other: list[str] = []
        ok = total = 0
        for round_number in range(rounds):
            time.sleep(max(0.0, start_at + round_number - time.time()))
            point, token = points[ply], tokens[ply % 2]
            if round_number % 5 == 4:  # a double submission: two connections, the same move, the same instant
                results: list[tuple[int, Any, float]] = []
                twin = threading.Thread(
                    target=lambda out=results, t=token, n=ply, p=point: out.append(post(conns[1], game_id, t, n, p))
                )
                twin.start()
                results.append(post(conns[0], game_id, token, ply, point))
                twin.join()
                codes = sorted(status for status, _b, _ms in results)
                total += 1
                if codes == [200, 200] and len({b.get("ply") for _s, b, _ms in results}) == 1:
                    ok += 1
            else:
                results = [post(conns[0], game_id, token, ply, point)]
            for status, body, elapsed in results:
                if status >= 500:
                    mine_5xx.append(f"{status} {body}")
                elif status == 200:
                    mine_lat.append(elapsed)
                elif status != 409:
                    mine_other.append(f"{status} {body}")
            if any(status == 200 for status, _b, _ms in results):
                ply += 1
            else:  # reload the ply and go on
                status, body, _ms = stack.request(conns[0], "GET", f"/api/games/{game_id}/", tokens[0])
                ply = body.get("ply", ply) if isinstance(body, dict) else ply
        for conn in conns:
            conn.close()
        with lock:
            latencies.extend(mine_lat)
            errors_5xx.extend(mine_5xx)
            other.extend(mine_other)
            doubles["ok"] += ok
            doubles["all"] += total

    threads = [
        threading.Thread(target=client, args=(pk, (a, b), random.Random(f"{seed}-{pk}"))) for pk, a, b in created
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "moves": len(latencies),
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "errors_5xx": len(errors_5xx),
        "other_errors": len(other),
        "stale_ok": doubles["ok"],
        "stale_all": doubles["all"],
        "samples": (errors_5xx + other)[:3],
    }


def measure(database: str, games: list[int], rounds: int, runs: int) -> list[dict[str, Any]]:
    """In this process: one stack on ``database``, every G measured ``runs`` times."""
    sys.path.insert(0, str(Path(__file__).parent))
    from stack import Stack

    stack = Stack(database=database, nice_web=False).start()
    out = []
    try:
        for g in games:
            results = [one_run(stack, g, rounds, seed, database[:2]) for seed in range(runs)]
            out.append({"database": database, "games": g, "runs": results})
    finally:
        stack.stop()
    return out


def line(prefix: str, row: dict[str, Any]) -> str:
    runs = row["runs"]
    p99s = [r["p99_ms"] for r in runs]
    return (
        f"{prefix}: games={row['games']} moves={sum(r['moves'] for r in runs)} "
        f"errors_5xx={sum(r['errors_5xx'] for r in runs)} p99_ms={statistics.median(p99s):.0f} "
        f"twins_ok={sum(r['stale_ok'] for r in runs)}/{sum(r['stale_all'] for r in runs)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--databases", nargs="+", default=["postgres", "sqlite"])
    parser.add_argument("--only", help=argparse.SUPPRESS)  # a child process: one database, JSON out
    args = parser.parse_args()
    if args.only:
        print(json.dumps(measure(args.only, args.games, args.rounds, args.runs)))
        return 0
    rows = []
    for database in args.databases:  # one process per database: Django binds one database per process
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--only",
                database,
                "--rounds",
                str(args.rounds),
                "--runs",
                str(args.runs),
                "--games",
                *map(str, args.games),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            print(child.stderr[-3000:], file=sys.stderr)
            return 1
        rows += json.loads(child.stdout.strip().splitlines()[-1])
    failed = False
    for row in rows:
        runs = row["runs"]
        p99s = ", ".join(f"{r['p99_ms']:.0f}" for r in runs)
        p50 = statistics.median(r["p50_ms"] for r in runs)
        print(
            f"  {row['database']:8} G={row['games']:3}: p50 {p50:.0f} ms, p99 per run [{p99s}] ms, "
            f"other 4xx {sum(r['other_errors'] for r in runs)}, samples {[s for r in runs for s in r['samples']][:2]}"
        )
        failed |= any(r["errors_5xx"] or r["stale_ok"] != r["stale_all"] for r in runs)
    for row in rows:
        if row["database"] != "sqlite":
            print(line(f"concurrency-{row['database']}", row))
    for row in rows:
        if row["database"] == "sqlite":
            print(line("concurrency", row))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
