"""Benchmark: renju forbidden-move maps and single-point checks.

Builds a reproducible set of positions reached by legal renju play (10 to 60
stones, biased towards moves that make and block threes and fours), then
measures, in the same run:

- this engine: full-board forbidden maps per second (every empty point) and
  single-point checks per second, medians over several runs; the first,
  cold run (empty line cache) is printed separately;
- the ``renju`` package from PyPI (a port of the Piskvork judge) as the
  reference, on a subset of the same positions, and whether both agree;
- positions seen once, as search and the command line meet them: 3,000
  positions from random legal play (20 to 80 stones), the line cache emptied
  first and each position mapped once, against a literal checker written
  straight from the rules' definitions (``engine/tests/literal.py``) on the
  same positions; ``cold_ratio`` is how many times faster the engine is;
  ``cold_vs_baseline``: against the frozen engine of 2026-12-02
  (``bench/baseline.py``) on the same positions, from its own empty caches,
  ``--runs`` interleaved runs, the median of their ratios; ``cold_vs_baseline_no_gc``: the same with
  the garbage collector off for each whole batch, for both engines (the engines' own work, without the
  collector's full passes over whatever else the process holds — here the 3,000 boards' move records).

Which build ran is printed (``compiled`` where ``make native`` built one, ``pure``
with ``ENGINE_PURE=1``); run it both ways to compare them.

Last line: ``engine: build=… maps_per_s=… checks_per_s=… pypi_renju_maps_per_s=… cold_ratio=… cold_vs_baseline=…
cold_vs_baseline_no_gc=…``.
Run: ``make bench`` or ``.venv/bin/python bench/engine.py [--positions N]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import baseline  # noqa: E402

from engine import Board, Color, Point, Renju, native  # noqa: E402
from engine.renju import DOUBLE_FOUR, DOUBLE_THREE, OVERLINE, Judge, clear_cache  # noqa: E402

SIZE = 15
NEIGHBOURS = [(dc, dr) for dc in range(-2, 3) for dr in range(-2, 3) if (dc, dr) != (0, 0)]
LINES = [(1, 0), (0, 1), (1, 1), (1, -1)]


def shape_score(board: Board, point: Point, color: int) -> int:
    """Stones of ``color`` within 4 points on the lines through ``point``:
    a rough measure of the threes and fours a stone there takes part in."""
    score = 0
    stones = board.stones
    for dc, dr in LINES:
        for sign in (1, -1):
            for step in range(1, 5):
                c, r = point.col + sign * step * dc, point.row + sign * step * dr
                if not (0 <= c < SIZE and 0 <= r < SIZE):
                    break
                value = stones[r * SIZE + c]
                if value == color:
                    score += 5 - step
                elif value:
                    break
    return score


def play_game(rng: random.Random, rules: Renju, max_stones: int) -> list[Board]:
    """One game of plausible legal renju play; returns snapshots after 10..60 stones."""
    board = Board()
    board.push(Point(7, 7))
    snapshots = []
    target = set(rng.sample(range(10, max_stones + 1), 4))
    while board.stone_count < max_stones:
        color = board.turn
        candidates = {
            Point(p.col + dc, p.row + dr)
            for p in board.points(Color.BLACK) + board.points(Color.WHITE)
            for dc, dr in NEIGHBOURS
        }
        candidates = [p for p in candidates if p.on_board(SIZE) and board.is_empty(p)]
        scored = sorted(
            candidates,
            key=lambda p: -(shape_score(board, p, color) * 2 + shape_score(board, p, color.other) + rng.random() * 6),
        )
        for point in scored[:40]:
            outcome = rules.move_outcome(board, point)
            if outcome is None:
                break
        else:
            return snapshots  # only wins or fouls left near the stones: stop here
        board.push(point)
        if board.stone_count in target:
            snapshots.append(board.copy())
    return snapshots


def build_positions(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    rules = Renju()
    positions: list[Board] = []
    while len(positions) < count:
        positions.extend(play_game(rng, rules, 60))
    return positions[:count]


def random_play_positions(count: int, seed: int) -> list[Board]:
    """Positions from random legal play: each move uniform among the empty points
    next to a stone (within two), a move that would end the game skipped; one
    snapshot per game at a stone count drawn from 20..80."""
    rng = random.Random(seed)
    rules = Renju()
    positions: list[Board] = []
    while len(positions) < count:
        board = Board()
        board.push(Point(7, 7))
        target = rng.randint(20, 80)
        stuck = 0
        while board.stone_count < target and stuck < 50:
            near = {
                Point(p.col + dc, p.row + dr)
                for p in board.points(Color.BLACK) + board.points(Color.WHITE)
                for dc, dr in NEIGHBOURS
            }
            empty = sorted(p for p in near if p.on_board(SIZE) and board.is_empty(p))
            point = rng.choice(empty)
            if rules.move_outcome(board, point) is not None:
                stuck += 1
                continue
            board.push(point)
        if board.stone_count == target:
            positions.append(board)
    return positions


def time_cold(positions: list[Board]) -> tuple[float, float, int]:
    """Maps per second, engine (cache emptied first, each position once) and literal; disagreements."""
    from engine.tests.literal import forbidden_map as literal_map

    clear_cache()
    start = time.perf_counter()
    ours = [Judge(board).forbidden_map() for board in positions]
    engine_rate = len(positions) / (time.perf_counter() - start)
    start = time.perf_counter()
    theirs = [literal_map(board) for board in positions]
    literal_rate = len(positions) / (time.perf_counter() - start)
    names = {OVERLINE: "overline", DOUBLE_FOUR: "double-four", DOUBLE_THREE: "double-three"}
    differ = sum({i: names[c] for i, c in o.items()} != t for o, t in zip(ours, theirs, strict=True))
    return engine_rate, literal_rate, differ


def time_cold_pair(positions: list[Board], collector: bool = True) -> tuple[float, float]:
    """Cold maps per second of this engine and of the frozen baseline, each from its own empty caches; with
    ``collector`` False, the garbage collector is off for each whole batch (as a caller mapping many positions
    may choose), which shows the engines' own work without the collector's passes over the process's heap."""
    old = baseline.load()
    from baseline_engine.renju import Judge as OldJudge
    from baseline_engine.renju import clear_cache as old_clear

    theirs = [old.Board.replay(b.moves_text()) for b in positions]
    rates = []
    for judge, boards, clear in ((Judge, positions, clear_cache), (OldJudge, theirs, old_clear)):
        clear()
        gc.collect()
        if not collector:
            gc.disable()
        try:
            start = time.perf_counter()
            for board in boards:
                judge(board).forbidden_map()
            rates.append(len(boards) / (time.perf_counter() - start))
        finally:
            gc.enable()
    return rates[0], rates[1]


def time_maps(positions: list[Board]) -> tuple[float, int]:
    start = time.perf_counter()
    found = 0
    for board in positions:
        found += len(Judge(board).forbidden_map())
    return len(positions) / (time.perf_counter() - start), found


def time_checks(positions: list[Board]) -> float:
    points = [(board, i) for board in positions for i, v in enumerate(board.stones) if not v]
    start = time.perf_counter()
    for board, index in points:
        Judge(board).status(index)
    return len(points) / (time.perf_counter() - start)


def pypi_map(board: Board) -> dict[int, int]:
    from renju.check_forbid import get_foul_type

    grid = [[0] * SIZE for _ in range(SIZE)]
    for index, value in enumerate(board.stones):
        grid[index % SIZE][index // SIZE] = value
    result = {}
    for index, value in enumerate(board.stones):
        if not value:
            foul = get_foul_type(grid, index % SIZE, index // SIZE)
            if foul:
                result[index] = foul
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--pypi-positions", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cold-positions", type=int, default=3000)
    args = parser.parse_args()

    build = "compiled" if native.active() else "pure"
    print(f"build: {build}")
    t0 = time.perf_counter()
    positions = build_positions(args.positions, args.seed)
    stones = [b.stone_count for b in positions]
    print(
        f"positions: {len(positions)} (stones {min(stones)}-{max(stones)}, median {statistics.median(stones)}), "
        f"built in {time.perf_counter() - t0:.1f}s, seed {args.seed}"
    )

    clear_cache()
    cold, found = time_maps(positions)
    print(f"this engine, cold line cache: {cold:,.0f} maps/s; forbidden points found: {found}")
    maps = [time_maps(positions)[0] for _ in range(args.runs)]
    checks = [time_checks(positions) for _ in range(args.runs)]
    print(f"this engine, maps/s per run: {', '.join(f'{m:,.0f}' for m in maps)}")
    print(f"this engine, checks/s per run: {', '.join(f'{c:,.0f}' for c in checks)}")

    subset = positions[: args.pypi_positions]
    code = {2: 3, 3: 2, 4: 1}  # our OVERLINE/DOUBLE_FOUR/DOUBLE_THREE -> renju package codes
    disagreements = sum({i: code[c] for i, c in Judge(b).forbidden_map().items()} != pypi_map(b) for b in subset)
    pypi_runs = []
    for _ in range(3):
        start = time.perf_counter()
        for board in subset:
            pypi_map(board)
        pypi_runs.append(len(subset) / (time.perf_counter() - start))
    maps_med, checks_med, pypi_med = statistics.median(maps), statistics.median(checks), statistics.median(pypi_runs)
    print(
        f"pypi renju (Piskvork judge port) on {len(subset)} positions: {pypi_med:,.1f} maps/s; "
        f"positions where the maps differ: {disagreements}"
    )
    print(f"ratio this engine / pypi renju: {maps_med / pypi_med:,.0f}x")

    cold_set = random_play_positions(args.cold_positions, args.seed + 1)
    cold_stones = [b.stone_count for b in cold_set]
    engine_rate, literal_rate, differ = time_cold(cold_set)
    cold_ratio = engine_rate / literal_rate
    print(
        f"seen once: {len(cold_set)} positions from random legal play (stones {min(cold_stones)}-{max(cold_stones)}, "
        f"median {statistics.median(cold_stones)}): engine {engine_rate:,.0f} maps/s from an empty line cache, "
        f"literal checker {literal_rate:,.1f} maps/s; positions where they differ: {differ}"
    )
    pairs, quiet = [], []
    for _ in range(args.runs):
        ours, theirs = time_cold_pair(cold_set)
        pairs.append(ours / theirs)
        print(
            f"seen once, against the baseline: {ours:,.0f} maps/s; the baseline's {theirs:,.0f}; ratio {pairs[-1]:.2f}"
        )
        ours, theirs = time_cold_pair(cold_set, collector=False)
        quiet.append(ours / theirs)
        print(
            f"seen once, the collector off for the batch: {ours:,.0f} maps/s; the baseline's {theirs:,.0f}; "
            f"ratio {quiet[-1]:.2f}"
        )
    print(
        f"engine: build={build} maps_per_s={maps_med:.0f} checks_per_s={checks_med:.0f} "
        f"pypi_renju_maps_per_s={pypi_med:.1f} cold_ratio={cold_ratio:.1f} "
        f"cold_vs_baseline={statistics.median(pairs):.2f} cold_vs_baseline_no_gc={statistics.median(quiet):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
