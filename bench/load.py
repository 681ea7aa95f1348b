"""Load: N concurrent online games played over HTTP against the real stack.

Starts PostgreSQL, Redis, gunicorn (2 workers × 8 threads, one per core), a Celery worker
and beat (bench/stack.py); creates N timed games (the seed's quick play: 30 s a move) between
players with API tokens; one client thread per game plays random legal moves
for both sides as fast as the server answers, and after every move also calls
``GET /api/me/`` (a trivial authenticated DRF endpoint) on the same
connection, so both are measured under the same load in the same run. One
game in ten is abandoned at the start: its clock must be adjudicated by the
worker, and it counts as late if it finished more than the sweep interval
plus the slack after its flag deadline (or not at all): the deadline plus the
lag allowance the clock grants a move in flight (``games.clock.flag_deadline``,
stored on the game as ``Game.deadline``), before which nobody may flag it.

Prints moves per second, move latency p50/p99 and the baseline's, errors
(any answer other than 200, or a failed connection) and late adjudications
for each N; the last line:
``load: games=200 moves_per_s=… p99_ms=… baseline_p99_ms=… ratio=… errors=… late=…``.
Run: ``make load`` or ``.venv/bin/python bench/load.py [--games 50 200] [--seconds 40]`` (from the repository root).
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from datetime import timedelta
from typing import Any

from stack import Stack, make_players, percentile

MOVE_MS = 30_000  # the seed's 30 seconds a move
SWEEP_AND_SLACK = timedelta(seconds=1.0 + 0.3 + 0.2)  # beat interval, slack, a margin for the worker's own work


def run(stack: Stack, games: int, seconds: float, seed: int) -> dict[str, Any]:
    from django.utils import timezone

    from games.models import Game
    from games.services import game_create

    players = make_players(games * 2, f"load{games}-")
    now = timezone.now()
    created = []
    for n in range(games):
        (one, token_one), (two, token_two) = players[2 * n], players[2 * n + 1]
        game = game_create(
            player_one=one,
            player_two=two,
            rules="freestyle",
            time_control={"preset": "quick", "move_ms": MOVE_MS},
            start_clock_at=now,
        )
        created.append((game.pk, token_one, token_two))
    abandoned = {pk for pk, _a, _b in created[::10]}
    flag_at = dict(Game.objects.filter(pk__in=abandoned).values_list("pk", "deadline"))
    move_ms: list[float] = []
    base_ms: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def play(game_id: int, tokens: tuple[str, str], rng: random.Random) -> None:
        conn = stack.connection()
        empty = [f"{c}{r}" for c in "abcdefghijklmno" for r in range(1, 16)]
        rng.shuffle(empty)
        ply, mine_m, mine_b, mine_e = 0, [], [], []
        try:
            while time.monotonic() < stop_at and empty:
                point = empty.pop()
                status, body, ms = stack.request(
                    conn, "POST", f"/api/games/{game_id}/move/", tokens[ply % 2], {"ply": ply, "point": point}
                )
                if status != 200:
                    mine_e.append(f"move {status} {body}")
                    break
                mine_m.append(ms)
                ply += 1
                status, _body, ms = stack.request(conn, "GET", "/api/me/", tokens[ply % 2])
                if status != 200:
                    mine_e.append(f"baseline {status}")
                else:
                    mine_b.append(ms)
                if body.get("status") == "finished":
                    break
        except OSError as exc:
            mine_e.append(f"connection: {exc}")
        finally:
            conn.close()
            with lock:
                move_ms.extend(mine_m)
                base_ms.extend(mine_b)
                errors.extend(mine_e)

    threads = [
        threading.Thread(target=play, args=(pk, (a, b), random.Random(seed + pk)))
        for pk, a, b in created
        if pk not in abandoned
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    time.sleep(float(SWEEP_AND_SLACK.total_seconds()) + 1)  # let the last abandoned clocks be settled
    late, lateness = 0, []
    for game in Game.objects.filter(pk__in=abandoned):
        deadline = flag_at[game.pk] or now + timedelta(milliseconds=MOVE_MS)
        if game.finished_at is None or game.finished_at - deadline > SWEEP_AND_SLACK:
            late += 1
        if game.finished_at is not None:
            lateness.append((game.finished_at - deadline).total_seconds())
    p99, base_p99 = percentile(move_ms, 99), percentile(base_ms, 99)
    return {
        "games": games,
        "moves": len(move_ms),
        "moves_per_s": len(move_ms) / elapsed,
        "p50_ms": percentile(move_ms, 50),
        "p99_ms": p99,
        "baseline_p50_ms": percentile(base_ms, 50),
        "baseline_p99_ms": base_p99,
        "ratio": p99 / base_p99 if base_p99 else 0.0,
        "errors": len(errors),
        "late": late,
        "abandoned": len(abandoned),
        "lateness_max_s": max(lateness, default=0.0),
        "adjudicated_by": sorted({g.adjudicated_by for g in Game.objects.filter(pk__in=abandoned)}),
        "error_samples": errors[:3],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--seconds", type=float, default=40)  # longer than a move's limit: abandoned clocks run out
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=8)
    args = parser.parse_args()
    stack = Stack(web_workers=args.web_workers, web_threads=args.web_threads).start()
    try:
        for games in args.games:
            r = run(stack, games, args.seconds, args.seed)
            print(
                f"  games={r['games']} moves={r['moves']} move_p50_ms={r['p50_ms']:.1f} "
                f"baseline_p50_ms={r['baseline_p50_ms']:.1f} abandoned={r['abandoned']} "
                f"lateness_max_s={r['lateness_max_s']:.2f} adjudicated_by={r['adjudicated_by']} "
                f"error_samples={r['error_samples']}",
                flush=True,
            )
            print(
                f"load: games={r['games']} moves_per_s={r['moves_per_s']:.1f} p99_ms={r['p99_ms']:.1f} "
                f"baseline_p99_ms={r['baseline_p99_ms']:.1f} ratio={r['ratio']:.2f} errors={r['errors']} "
                f"late={r['late']}",
                flush=True,
            )
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
