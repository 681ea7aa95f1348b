"""Benchmark: the computer opponent (engine.search).

Measures, in one run:

- ``nodes_per_s``: alpha-beta positions per second over varied positions from
  plausible play (10 to 60 stones), each searched once to 3,000 nodes, every
  cache emptied first; the median of ``--runs`` runs; ``nodes_ratio``: against
  the frozen baseline (the engine of 2026-12-02, ``bench/baseline.py``) on the
  same positions, runs interleaved, the median of the runs' ratios;
- ``vcf_solved``: of the public VCF set (``engine/tests/data/vcf.txt``, built
  with ``--build-vcf`` and every solution checked move by move by the brute-force
  checker in ``engine/search/verify.py``), how many the solver proves with its
  default limits (30 fours, 200,000 nodes), each checked again; ``vcf_ms_p50``
  the median time per position (caches emptied first);
- ``move_s``: how long a move takes on the quick clock (30 s a move: the
  computer thinks at most a fifth of it, and its level's own limit,
  ``games.services.computer.THINK_S``): levels 1 to 5 on the same varied
  positions, caches emptied before each move; the median, the 99th percentile
  and the longest per level, against the budget (``--latency-positions``, 40;
  0 skips it);
- ``ladder``: each level against the level below over ``--games`` games (100)
  of renju from the 26 openings, each opening played with both colours (seeds
  differ per game); a win 1, a draw ½; with the Elo difference the score means
  (400·log10(s/(1−s))). Two worker processes;
- ``vs_baseline``: level 5 against the frozen baseline's level 5 over
  ``--vs-baseline`` games (0 skips it), the same way.

Which build ran is printed (``compiled`` where ``make native`` built one, ``pure``
with ``ENGINE_PURE=1``); run it both ways to compare them.

Last line: ``ai: build=… nodes_per_s=… nodes_ratio=… vcf_solved=… vcf_ms_p50=… move_s_p99=… ladder=… vs_baseline=…``.
Run: ``.venv/bin/python bench/ai.py [--games 100] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import baseline  # noqa: E402

from engine import Board, Color, Point, Renju, native  # noqa: E402
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
    evaluation.clear_cache()  # the winning lines, the shapes and the leaves


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


def baseline_nodes_per_second(positions: list[Board]) -> float:
    """The same measure for the frozen baseline, on the same positions (its own board class)."""
    old = baseline.load()
    from baseline_engine.renju import clear_cache as old_clear
    from baseline_engine.search import evaluate as old_evaluation
    from baseline_engine.search.alphabeta import AlphaBeta as OldAlphaBeta

    boards = [old.Board.replay(b.moves_text()) for b in positions]
    old_clear()
    old_evaluation._EVAL_CACHE.clear()
    nodes = 0
    start = time.perf_counter()
    for board in boards:
        nodes += OldAlphaBeta(board, old.Renju(), max_depth=8, nodes=3_000).run().nodes
    return nodes / (time.perf_counter() - start)


def elo(score: float, games: int) -> float:
    """The Elo difference a score means (a clean sweep is counted as half a game short of it)."""
    s = min(max(score, 0.5 / games), 1 - 0.5 / games)
    return 400 * math.log10(s / (1 - s))


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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def move_times(positions: list[Board], levels: list[int]) -> dict[int, tuple[float, float, float, float]]:
    """Per level: (median, p99, longest, budget) seconds a move took, over the positions, each move from cold."""
    out = {}
    for level, budget in quick_clock_budgets(levels).items():
        times = []
        for n, board in enumerate(positions):
            cold()
            player = ComputerPlayer(Renju(), level, seed=n, seconds=budget)
            start = time.perf_counter()
            player.best_move(board)
            times.append(time.perf_counter() - start)
        out[level] = (statistics.median(times), percentile(times, 0.99), max(times), budget)
        print(
            f"level {level} on the quick clock: median {out[level][0]:.2f} s, p99 {out[level][1]:.2f} s, "
            f"longest {out[level][2]:.2f} s over {len(times)} positions (budget {budget:.1f} s)",
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
                f"level {high} vs level {high - 1}: {scores[high]:.2f} over {games} games, "
                f"Elo {elo(scores[high], games):+.0f} "
                f"(wins {results.count(1.0)}, draws {results.count(0.5)}, losses {results.count(0.0)}; "
                f"{time.perf_counter() - start:.0f} s)",
                flush=True,
            )
    return scores


class Frozen:
    """A player of the frozen baseline, playing on today's boards (it reads each position into its own)."""

    def __init__(self, level: int, seed: int) -> None:
        old = baseline.load()
        from baseline_engine.search.players import ComputerPlayer as OldPlayer

        self.board_class = old.Board
        self.player = OldPlayer(old.Renju(), level, seed=seed)

    def best_move(self, board: Board) -> Point:
        point = self.player.best_move(self.board_class.replay(board.moves_text()))
        return Point(point.col, point.row)


def baseline_game(number: int) -> float:
    """Game ``number`` of today's level 5 against the baseline's level 5: today's score."""
    rules = Renju()
    opening = OPENINGS[(number // 2) % 26]
    ours_black = number % 2 == 0
    ours = ComputerPlayer(rules, 5, seed=30_000 + number)
    theirs = Frozen(5, seed=40_000 + number)
    black, white = (ours, theirs) if ours_black else (theirs, ours)
    _board, winner = play_out(rules, black, white, opening.stones)  # type: ignore[arg-type]
    if winner is None:
        return 0.5
    return 1.0 if (winner is Color.BLACK) == ours_black else 0.0


def versus_baseline(games: int, workers: int) -> float:
    start = time.perf_counter()
    with Pool(workers) as pool:
        results = pool.map(baseline_game, range(games), chunksize=1)
    score = sum(results) / games
    print(
        f"level 5 vs the baseline's level 5: {score:.2f} over {games} games, Elo {elo(score, games):+.0f} "
        f"(wins {results.count(1.0)}, draws {results.count(0.5)}, losses {results.count(0.0)}; "
        f"{time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    return score


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
    parser.add_argument("--vs-baseline", type=int, default=100, metavar="N", help="level 5 against the baseline's")
    args = parser.parse_args()
    if args.build_vcf:
        build_vcf_set(args.build_vcf, args.seed)
        return 0

    build = "compiled" if native.active() else "pure"
    print(f"build: {build}")
    positions = plausible_positions(args.positions, args.seed)
    rates, ratios = [], []
    for _ in range(args.runs):  # interleaved, so a machine that slows down slows both alike
        rates.append(nodes_per_second(positions))
        old = baseline_nodes_per_second(positions)
        ratios.append(rates[-1] / old)
        print(f"alpha-beta nodes/s: {rates[-1]:,.0f}; the baseline's {old:,.0f}; ratio {ratios[-1]:.2f}", flush=True)
    per_run = ", ".join(f"{r:,.0f}" for r in rates)
    print(f"alpha-beta nodes/s per run ({len(positions)} positions, 3,000 nodes each): {per_run}")

    rows = read_vcf_set()
    runs = [solve_set(rows) for _ in range(args.runs)]
    solved = runs[0][0]
    p50 = statistics.median(ms for _s, ms in runs)
    per_run = ", ".join(f"{ms:.1f}" for _s, ms in runs)
    print(f"VCF set: {solved}/{len(rows)} proved and checked; ms per position (median) per run: {per_run}")

    latency = (
        move_times(plausible_positions(args.latency_positions, args.seed + 1), [1, 2, 3, 4, 5])
        if args.latency_positions
        else {}
    )
    worst = ",".join(f"{level}:{p99:.2f}/{budget:.1f}" for level, (_p50, p99, _max, budget) in latency.items())

    scores = ladder(args.games, args.workers, [int(x) for x in args.levels.split(",")]) if args.games else {}
    text = ",".join(f"{level}:{score:.2f}({elo(score, args.games):+.0f})" for level, score in scores.items()) or "-"
    versus = f"{versus_baseline(args.vs_baseline, args.workers):.2f}" if args.vs_baseline else "-"
    print(
        f"ai: build={build} nodes_per_s={statistics.median(rates):.0f} nodes_ratio={statistics.median(ratios):.2f} "
        f"vcf_solved={solved}/{len(rows)} vcf_ms_p50={p50:.1f} move_s_p99={worst or '-'} ladder={text} "
        f"vs_baseline={versus}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
