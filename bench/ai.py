"""Benchmark: the computer opponent (engine.search).

Measures, in one run:

- ``nodes_per_s``: alpha-beta positions per second over varied positions from
  plausible play (10 to 60 stones), each searched once to 3,000 nodes, every
  cache emptied first; the median of ``--runs`` runs;
- ``vcf_solved``: of the public VCF set (``engine/tests/data/vcf.txt``, built
  with ``--build-vcf`` and every solution checked move by move by the brute-force
  checker in ``engine/search/verify.py``), how many the solver proves with its
  default limits (30 fours, 200,000 nodes), each checked again; ``vcf_ms_p50``
  the median time per position (caches emptied first);
- ``move_s``: how long a move takes on the quick clock (30 s a move: the
  computer thinks at most a fifth of it, and its level's own limit,
  ``games.services.computer.THINK_S``): levels 3, 4 and 5 on the same varied
  positions, caches emptied before each move; the median and the longest per
  level, against the budget (``--latency-positions``, 40; 0 skips it);
- ``ladder``: each level against the level below over ``--games`` games (100)
  of renju from the 26 openings, each opening played with both colours (seeds
  differ per game); a win 1, a draw ½. Two worker processes.

Last line: ``ai: nodes_per_s=… vcf_solved=… vcf_ms_p50=… move_s_max=… ladder=…``.
Run: ``.venv/bin/python bench/ai.py [--games 100] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Board, Color, Point, Renju  # noqa: E402
from engine.openings import load_openings  # noqa: E402
from engine.renju import clear_cache  # noqa: E402
from engine.search import evaluate as evaluation  # noqa: E402
from engine.search.alphabeta import AlphaBeta  # noqa: E402
from engine.search.players import ComputerPlayer, play_out  # noqa: E402
from engine.search.solver import Solver  # noqa: E402
from engine.search.verify import check_vcf  # noqa: E402

VCF_FILE = Path(__file__).resolve().parent.parent / "engine" / "tests" / "data" / "vcf.txt"
OPENINGS = [o for o in load_openings() if o.is_standard]


def cold() -> None:
    clear_cache()
    evaluation._EVAL_CACHE.clear()


def plausible_positions(count: int, seed: int) -> list[Board]:
    """Positions from games of level 1 against level 2 (varied, human-like shapes)."""
    rng = random.Random(seed)
    rules = Renju()
    positions: list[Board] = []
    game = 0
    while len(positions) < count:
        opening = OPENINGS[game % 26]
        board, _winner = play_out(
            rules,
            ComputerPlayer(rules, 1 + game % 2, seed=rng.randrange(10**6)),
            ComputerPlayer(rules, 2 - game % 2, seed=rng.randrange(10**6)),
            opening.stones,
            limit=rng.randint(10, 60),
        )
        game += 1
        if board.stone_count >= 10 and rules.outcome(board) is None:
            positions.append(board)
    return positions


def nodes_per_second(positions: list[Board]) -> float:
    cold()
    nodes = 0
    start = time.perf_counter()
    for board in positions:
        result = AlphaBeta(board.copy(), Renju(), max_depth=8, nodes=3_000).run()
        nodes += result.nodes
    return nodes / (time.perf_counter() - start)


# -- the VCF set ----------------------------------------------------------------


def read_vcf_set() -> list[tuple[str, str]]:
    """(moves, a checked solution) per line of the public set; ``#`` starts a comment."""
    rows = []
    for raw in VCF_FILE.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            moves, solution = (part.strip() for part in line.split("|"))
            rows.append((moves, solution))
    return rows


def solve_set(rows: list[tuple[str, str]]) -> tuple[int, float]:
    cold()
    rules = Renju()
    solved = 0
    times = []
    for moves, _solution in rows:
        board = Board.replay(moves)
        start = time.perf_counter()
        line = Solver(board.copy(), rules).solve()
        times.append((time.perf_counter() - start) * 1000)
        if line is not None:
            points = [Point.from_index(i, 15) for i in line]
            if check_vcf(board, rules, points) is None:
                solved += 1
    return solved, statistics.median(times)


def build_vcf_set(count: int, seed: int) -> None:
    """Collect positions with a VCF of at least three fours from level 2 and 3 games; check each."""
    rng = random.Random(seed)
    rules = Renju()
    found: list[str] = []
    seen: set[str] = set()
    game = 0
    while len(found) < count:
        opening = OPENINGS[game % 26]
        board, _winner = play_out(
            rules,
            ComputerPlayer(rules, 2 + game % 2, seed=rng.randrange(10**6)),
            ComputerPlayer(rules, 3 - game % 2, seed=rng.randrange(10**6)),
            opening.stones,
        )
        game += 1
        moves = list(board.move_stack)
        replay = Board()
        for move in moves:
            if replay.stone_count >= 9 and rules.outcome(replay) is None:
                key = replay.moves_text()
                line = Solver(replay.copy(), rules, depth=60, nodes=2_000_000).solve()
                if line is not None and len(line) >= 5 and key not in seen:
                    points = [Point.from_index(i, 15) for i in line]
                    if check_vcf(replay, rules, points) is None:
                        seen.add(key)
                        side = "black" if replay.turn is Color.BLACK else "white"
                        fours = len(line) // 2 + 1
                        found.append(f"{key} | {' '.join(map(str, points))}  # {side} to move, {fours} fours")
                        break  # one position per game keeps the set varied
            replay.push(move)
    header = [
        "# Public VCF set: renju positions from computer games (levels 2 and 3, the 26 openings) where the",
        "# side to move has a victory by continuous fours of at least three fours. Each line: the moves,",
        "# '|', a solution (both sides' moves, ending with the attacker's). Every solution was checked by the",
        "# brute-force checker in engine/search/verify.py (every defender move forced, every black move legal).",
        f"# Built by: .venv/bin/python bench/ai.py --build-vcf {count} --seed {seed}",
    ]
    VCF_FILE.write_text("\n".join(header + found) + "\n", encoding="utf-8")
    print(f"wrote {len(found)} positions to {VCF_FILE}")


# -- move times on the quick clock ------------------------------------------------------


def quick_clock_budgets(levels: list[int]) -> dict[int, float]:
    """Each level's thinking time on the quick clock, as the games app gives it: its own limit, within a fifth
    of the 30-second turn."""
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from games.services.computer import THINK_S

    return {level: min(THINK_S[level], 30 / 5) for level in levels}


def move_times(positions: list[Board], levels: list[int]) -> dict[int, tuple[float, float, float]]:
    """Per level: (median, longest, budget) seconds a move took, over the positions, each move from cold."""
    out = {}
    for level, budget in quick_clock_budgets(levels).items():
        times = []
        for n, board in enumerate(positions):
            cold()
            player = ComputerPlayer(Renju(), level, seed=n, seconds=budget)
            start = time.perf_counter()
            player.best_move(board)
            times.append(time.perf_counter() - start)
        out[level] = (statistics.median(times), max(times), budget)
        print(
            f"level {level} on the quick clock: median {out[level][0]:.2f} s, longest {out[level][1]:.2f} s "
            f"over {len(times)} positions (budget {budget:.1f} s)",
            flush=True,
        )
    return out


# -- the ladder ---------------------------------------------------------------------


def ladder_game(args: tuple[int, int]) -> float:
    """Game ``number`` of level ``high`` against ``high - 1``: the higher level's score."""
    high, number = args
    rules = Renju()
    opening = OPENINGS[(number // 2) % 26]
    high_black = number % 2 == 0
    black = ComputerPlayer(rules, high if high_black else high - 1, seed=10_000 + number)
    white = ComputerPlayer(rules, high - 1 if high_black else high, seed=20_000 + number)
    _board, winner = play_out(rules, black, white, opening.stones)
    if winner is None:
        return 0.5
    return 1.0 if (winner is Color.BLACK) == high_black else 0.0


def ladder(games: int, workers: int, levels: list[int]) -> dict[int, float]:
    scores = {}
    with Pool(workers) as pool:
        for high in levels:
            start = time.perf_counter()
            results = pool.map(ladder_game, [(high, n) for n in range(games)], chunksize=1)
            scores[high] = sum(results) / games
            print(
                f"level {high} vs level {high - 1}: {scores[high]:.2f} over {games} games "
                f"(wins {results.count(1.0)}, draws {results.count(0.5)}, losses {results.count(0.0)}; "
                f"{time.perf_counter() - start:.0f} s)",
                flush=True,
            )
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--levels", default="2,3,4,5", help="the ladder's upper levels (each plays the one below)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--latency-positions", type=int, default=40)
    parser.add_argument("--build-vcf", type=int, default=0, metavar="N", help="rebuild the public VCF set")
    args = parser.parse_args()
    if args.build_vcf:
        build_vcf_set(args.build_vcf, args.seed)
        return 0

    positions = plausible_positions(args.positions, args.seed)
    rates = [nodes_per_second(positions) for _ in range(args.runs)]
    per_run = ", ".join(f"{r:,.0f}" for r in rates)
    print(f"alpha-beta nodes/s per run ({len(positions)} positions, 3,000 nodes each): {per_run}")

    rows = read_vcf_set()
    runs = [solve_set(rows) for _ in range(args.runs)]
    solved = runs[0][0]
    p50 = statistics.median(ms for _s, ms in runs)
    per_run = ", ".join(f"{ms:.1f}" for _s, ms in runs)
    print(f"VCF set: {solved}/{len(rows)} proved and checked; ms per position (median) per run: {per_run}")

    latency = (
        move_times(plausible_positions(args.latency_positions, args.seed + 1), [3, 4, 5])
        if args.latency_positions
        else {}
    )
    worst = ",".join(f"{level}:{longest:.2f}/{budget:.1f}" for level, (_p50, longest, budget) in latency.items())

    scores = ladder(args.games, args.workers, [int(x) for x in args.levels.split(",")]) if args.games else {}
    text = ",".join(f"{level}:{score:.2f}" for level, score in scores.items()) or "-"
    print(
        f"ai: nodes_per_s={statistics.median(rates):.0f} vcf_solved={solved}/{len(rows)} "
        f"vcf_ms_p50={p50:.1f} move_s_max={worst or '-'} ladder={text}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
