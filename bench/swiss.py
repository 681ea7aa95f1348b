"""Benchmark: a 9-round Swiss simulated for 100, 500 and 2,000 players through the real services.

Each round is paired by the services (the state read from the database, written as TRF, paired by the
FIDE Dutch program, explained, published as matches called to boards) and every game's result is
reported and confirmed as players do. Runs on a throw-away SQLite database in a temporary directory.
For each size it prints every round's pairing time, then the pairing times' maximum and median, and the
time (median of 5, after one cold read) and number of queries of one Swiss standings read (which must
not grow with the field).

Last line: ``swiss: players=2000 rounds=9 pair_s_max=… pair_s_p50=… standings_ms=… standings_queries=…``.
Run: ``.venv/bin/python bench/swiss.py [--players 100 500 2000] [--rounds 9]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.benchdb import throwaway_django  # noqa: E402 - after the path is set


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[100, 500, 2000])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    throwaway_django()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournament.simulate import simulate
    from tournament.swiss.selectors import standings

    line = ""
    for players in args.players:
        pairing: list[float] = []

        def on_round(number: int, seconds: float, n: int = players, times: list[float] = pairing) -> None:
            times.append(seconds)
            print(f"  players={n} round={number} pair_s={seconds:.2f}", flush=True)

        started = time.perf_counter()
        sim = simulate(players=players, preset="swiss", rounds=args.rounds, seed=args.seed, on_round=on_round)
        total = time.perf_counter() - started
        stage = sim.stages[0].stage
        standings(stage)  # the first read after the run: cold caches in Python, warm in SQLite
        timings = []
        for _ in range(5):
            with CaptureQueriesContext(connection) as queries:
                t0 = time.perf_counter()
                standings(stage)
                timings.append((time.perf_counter() - t0) * 1000)
        print(f"  players={players} simulate_s={total:.1f}", flush=True)
        line = (
            f"swiss: players={players} rounds={args.rounds} pair_s_max={max(pairing):.2f} "
            f"pair_s_p50={statistics.median(pairing):.2f} standings_ms={statistics.median(timings):.1f} "
            f"standings_queries={len(queries)}"
        )
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
