"""500 deadlines in one second: how late the real worker settles clocks that all run out together.

Starts the whole stack (bench/stack.py: ``make run``'s default SQLite, or PostgreSQL with ``--database
postgres``; an embedded Redis, gunicorn, one Celery worker and beat), creates G timed games (the seed's
quick play: 30 s a move) and starts their clocks so that their deadlines fall within the same second
(deadline i = D + i·1000/G ms). Nobody moves: every game must be lost on time by the side to act, settled by
the worker's deadline task (or the sweep). For each game it reads the stored finish and reports the lateness
(finish − the game's stored deadline, which is when anyone but the actor may flag: the 30 s plus the actor's
lag allowance, 3 s at the start of quick play — see ``games.clock.flag_deadline``); ``missed`` counts games
not settled within 15 s of their deadline, ``early`` games settled
before their deadline, ``double`` games with more than one flag or finish in their event log.

The run is repeated ``--runs`` times (default 3) on fresh games; the per-run figures are printed and the
last line gives the medians over the runs and the sums of the counts:
``clocks: games=500 p50_ms=… p99_ms=… max_ms=… missed=0 early=0 double=0``.
Run: ``.venv/bin/python bench/clocks.py [--games 500] [--runs 3] [--database sqlite|postgres]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from stack import Stack, make_players, percentile  # noqa: E402

MOVE_MS = 30_000


def one_run(games: int, run: int) -> dict[str, Any]:
    from django.db.models import Count, Q
    from django.utils import timezone

    from games.models import Game
    from games.services import game_clock_action, game_create

    players = make_players(games * 2, f"clk{run}-")
    created = [
        game_create(
            player_one=players[2 * n][0], player_two=players[2 * n + 1][0], rules="freestyle", time_control="quick"
        )
        for n in range(games)
    ]
    first_deadline = timezone.now() + timedelta(seconds=8)  # time to start every clock before the first runs out
    for n, game in enumerate(created):
        deadline = first_deadline + timedelta(milliseconds=n * 1000 // games)
        game_clock_action(game_id=game.pk, op="start", at=deadline - timedelta(milliseconds=MOVE_MS))
    if timezone.now() >= first_deadline:
        raise SystemExit("starting the clocks took longer than the margin; lower --games")
    # the stored deadline is when anyone but the actor may flag: the 30 s plus the actor's lag allowance
    deadlines = dict(Game.objects.filter(pk__in=[g.pk for g in created]).values_list("pk", "deadline"))
    last = max(deadlines.values())
    ids = list(deadlines)
    while timezone.now() < last + timedelta(seconds=15):
        if not Game.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
            break
        time.sleep(0.5)
    time.sleep(1.0)  # a late duplicate would show up now
    rows = Game.objects.filter(pk__in=ids).annotate(
        flags=Count("events", filter=Q(events__kind="clock", events__data__op="flag")),
        finishes=Count("events", filter=Q(events__kind="finished")),
    )
    lateness, missed, early, double, paths = [], 0, 0, 0, Counter()
    for game in rows:
        if game.finished_at is None or game.result_reason != "time":
            missed += 1
            continue
        late_ms = (game.finished_at - deadlines[game.pk]).total_seconds() * 1000
        if late_ms > 15_000:
            missed += 1
        if late_ms < 0:
            early += 1
        if game.flags > 1 or game.finishes > 1:
            double += 1
        lateness.append(late_ms)
        paths[game.adjudicated_by] += 1
    return {
        "p50": percentile(lateness, 50),
        "p99": percentile(lateness, 99),
        "max": max(lateness, default=0.0),
        "missed": missed,
        "early": early,
        "double": double,
        "paths": dict(paths),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--worker-threads", type=int, default=None, help="default: the stack's (run.py's)")
    args = parser.parse_args()
    stack = Stack(database=args.database, nice_web=False, worker_concurrency=args.worker_threads).start()
    try:
        results = []
        for run in range(args.runs):
            r = one_run(args.games, run)
            results.append(r)
            print(
                f"  run {run + 1}: p50_ms={r['p50']:.0f} p99_ms={r['p99']:.0f} max_ms={r['max']:.0f} "
                f"missed={r['missed']} early={r['early']} double={r['double']} settled_by={r['paths']}",
                flush=True,
            )
    finally:
        stack.stop()
    med = {k: statistics.median(r[k] for r in results) for k in ("p50", "p99", "max")}
    spread = {k: (min(r[k] for r in results), max(r[k] for r in results)) for k in ("p99", "max")}
    print(
        f"  {args.database}: p99 spread {spread['p99'][0]:.0f}–{spread['p99'][1]:.0f} ms, "
        f"max spread {spread['max'][0]:.0f}–{spread['max'][1]:.0f} ms over {args.runs} runs"
    )
    print(
        f"clocks: games={args.games} p50_ms={med['p50']:.0f} p99_ms={med['p99']:.0f} max_ms={med['max']:.0f} "
        f"missed={sum(r['missed'] for r in results)} early={sum(r['early'] for r in results)} "
        f"double={sum(r['double'] for r in results)}"
    )
    return 0 if all(not (r["missed"] or r["early"] or r["double"]) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
