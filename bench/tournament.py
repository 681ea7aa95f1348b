"""Benchmark: simulate the seed format for 22, 300 and 2000 players through the real services.

Runs on a throw-away SQLite database in a temporary directory (migrated at
start), so it never touches your data. For each size it prints the wall time
per stage, then the number of queries one standings request makes and its
time, for the largest stage of the run (the preliminary groups). The query
count must not grow with the number of players.

Last line: ``tournament: players=2000 simulate_s=… standings_queries=… standings_ms=…``.
Run: ``make bench`` or ``.venv/bin/python bench/tournament.py [--players 22 300 2000]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.benchdb import throwaway_django, timed_reads  # noqa: E402 - after the path is set


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[22, 300, 2000])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    throwaway_django()

    from tournament.simulate import simulate
    from tournament.stage_formats import stage_standings

    line = ""
    for players in args.players:
        started = time.perf_counter()
        sim = simulate(
            players=players,
            seed=args.seed,
            on_stage=lambda r, n=players: print(
                f"  players={n} stage={r.stage.name!r} groups={len(r.tables)} seconds={r.seconds:.2f}", flush=True
            ),
        )
        total = time.perf_counter() - started
        stage = sim.stages[0].stage
        standings_ms, queries = timed_reads(lambda stage=stage: stage_standings(stage))
        line = (
            f"tournament: players={players} simulate_s={total:.1f} standings_queries={queries} "
            f"standings_ms={standings_ms:.1f}"
        )
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
