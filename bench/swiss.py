"""Benchmark: pairing 9-round Swiss events of 500 and 2,000 players by each text of FIDE's Dutch rules, and
reading a large Swiss stage's standings through the real services.

Pairing: for each size and rule set, a field with ratings drawn at random is paired round after round by
the program the system uses for those rules (``tournament.swiss.pairing.pairer``), results drawn by the
Elo expectation (``tournament.swiss.sim``); every round is a new call on a new state (nothing cached
between rounds), as in the services. Prints each round's seconds, then the worst and the median.

Standings: a Swiss stage of ``--standings-players`` players is played through the services on a
throw-away SQLite database (the state read from the database, paired, published, every result reported
and confirmed); the time (median of 5, after one cold read) and number of queries of one standings read
are printed. So that the database part does not wait on the pairing, that stage is paired by a stand-in
(top half of each score against the bottom half, no FIDE criteria): the standings read does not depend
on who met whom.

Last line: ``swiss: players=2000 rounds=9 pair_s_max=… pair_s_p50=… standings_ms=… standings_queries=…``
(the pairing figures of the largest size and the first rule set named).
Run: ``.venv/bin/python bench/swiss.py [--players 500 2000] [--rules 2026 2017] [--rounds 9]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.benchdb import throwaway_django, timed_reads  # noqa: E402 - after the path is set


def pairing_times(players: int, rules: str, rounds: int, seed: int) -> list[float]:
    from tournament.swiss import sim
    from tournament.swiss.pairing import pairer
    from tournament.swiss.state import SwissPlayer, SwissState

    rng = random.Random(seed)
    ratings = sorted((rng.randint(1200, 2700) for _ in range(players)), reverse=True)
    state = SwissState("bench", rounds, [SwissPlayer(i + 1, f"P{i + 1}", r) for i, r in enumerate(ratings)])
    state.rules = rules
    times = []
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        boards = pairer(rules).pair(state)
        times.append(time.perf_counter() - started)
        print(f"  players={players} rules={rules} round={number} pair_s={times[-1]:.2f}", flush=True)
        sim.play(state, boards, rng)
    return times


class StandIn:
    """Pairs each score group's top half against its bottom half, floaters down, the last player out."""

    name = "bench-stand-in"

    def pair(self, state):  # type: ignore[no-untyped-def]
        from tournament.swiss.pairing import Board

        ranked = sorted(state.players, key=lambda p: (-state.pairing_score(p), p.number))
        ranked = [p for p in ranked if p.number not in state.absent and p.number not in state.preassigned]
        boards = []
        half = len(ranked) // 2
        for a, b in zip(ranked[:half], ranked[half : 2 * half], strict=True):
            boards.append(Board(a.number, b.number))
        if len(ranked) % 2:
            boards.append(Board(ranked[-1].number, None))
        return boards


def standings_figures(players: int, rounds: int, seed: int) -> tuple[float, int]:
    throwaway_django()

    from tournament.simulate import simulate
    from tournament.swiss import services as swiss_services
    from tournament.swiss.selectors import standings

    swiss_services.pairer = lambda rules, isolated=False: StandIn()  # type: ignore[assignment]
    sim = simulate(players=players, preset="swiss", rounds=rounds, seed=seed)
    stage = sim.stages[0].stage
    standings(stage)  # the first read after the run: cold caches in Python, warm in SQLite
    return timed_reads(lambda: standings(stage))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--rules", nargs="+", default=["2026", "2017"])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--standings-players", type=int, default=2000)
    args = parser.parse_args()
    throwaway_django()

    figures: dict[tuple[int, str], tuple[float, float]] = {}
    for players in args.players:
        for rules in args.rules:
            times = pairing_times(players, rules, args.rounds, args.seed)
            figures[players, rules] = (max(times), statistics.median(times))
            print(
                f"pairing: players={players} rules={rules} rounds={args.rounds} "
                f"pair_s_max={max(times):.2f} pair_s_p50={statistics.median(times):.2f}",
                flush=True,
            )
    standings_ms, queries = standings_figures(args.standings_players, args.rounds, args.seed)
    print(f"standings: players={args.standings_players} standings_ms={standings_ms:.1f} queries={queries}")
    worst, median = figures[max(args.players), args.rules[0]]
    print(
        f"swiss: players={max(args.players)} rounds={args.rounds} pair_s_max={worst:.2f} pair_s_p50={median:.2f} "
        f"standings_ms={standings_ms:.1f} standings_queries={queries}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
