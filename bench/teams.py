"""Benchmark: a team event through the real services — 64 teams of 4 boards (and a reserve), a Swiss of
9 rounds by default (the Dutch system over the teams), every board an ordinary game.

Runs on a throw-away SQLite database in a temporary directory (migrated at start). Prints each round's
pairing time (the team matches, the standing orders as lineups, the boards made and called), then for the
finished event the team standings and the public payload (standings, every round's boards, board prizes):
median milliseconds of 5 reads and the queries each makes — which must not grow with the number of teams.

Last line: ``teams: teams=64 boards=4 rounds=9 simulate_s=… pair_ms_max=… standings_ms=… standings_queries=…
payload_ms=… payload_queries=…``.
Run: ``.venv/bin/python bench/teams.py [--teams 16 64] [--boards 4] [--rounds 9] [--system swiss]``.
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
    parser.add_argument("--teams", type=int, nargs="+", default=[64])
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--system", default="swiss", choices=["swiss", "round_robin", "double_round_robin"])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    throwaway_django()

    from tournament.simulate import simulate
    from tournament.teams.selectors import team_rounds, team_stage
    from tournament.teams.services import team_standings

    line = ""
    for teams in args.teams:
        pair_ms: list[float] = []
        started = time.perf_counter()
        sim = simulate(
            players=teams,
            preset="teams",
            stage_options={"boards": args.boards, "system": args.system},
            rounds=args.rounds,
            seed=args.seed,
            on_round=lambda _n, s, pair_ms=pair_ms: pair_ms.append(s * 1000),
        )
        total = time.perf_counter() - started
        stage = sim.stages[0].stage
        standings_ms, standings_queries = timed_reads(lambda stage=stage: team_standings(stage))
        payload_ms, payload_queries = timed_reads(lambda stage=stage: (team_stage(stage), team_rounds(stage)))
        line = (
            f"teams: teams={teams} boards={args.boards} rounds={len(pair_ms)} simulate_s={total:.1f} "
            f"pair_ms_max={max(pair_ms, default=0):.0f} pair_ms_p50={sorted(pair_ms)[len(pair_ms) // 2]:.0f} "
            f"standings_ms={standings_ms:.1f} standings_queries={standings_queries} "
            f"payload_ms={payload_ms:.1f} payload_queries={payload_queries}"
        )
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
