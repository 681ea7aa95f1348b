"""What the compiled and the pure build are compared on (test_native.py runs it in both)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from engine import Board, Freestyle, Point, Renju
from engine.search import ComputerPlayer, find_vcf
from engine.search.threats import Threats

VCF_SET = Path(__file__).parent / "data" / "vcf.txt"


def random_positions(count: int, seed: int) -> list[str]:
    """Move lists of random legal renju play near the stones (10 to 70 stones)."""
    rng = random.Random(seed)
    rules = Renju()
    found: list[str] = []
    while len(found) < count:
        board = Board()
        board.push("h8")
        target = rng.randint(10, 70)
        for _ in range(400):
            if board.stone_count >= target:
                break
            stones = [i for i, v in enumerate(board.stones) if v]
            col, row = divmod(rng.choice(stones), 15)[::-1]
            c, r = col + rng.randint(-2, 2), row + rng.randint(-2, 2)
            if not (0 <= c < 15 and 0 <= r < 15) or board.stones[r * 15 + c]:
                continue
            point = Point(c, r)
            if rules.move_outcome(board, point) is None:
                board.push(point)
        found.append(board.moves_text())
    return found


def answers(count: int = 60) -> dict[str, Any]:
    """Everything compared, as plain data."""
    renju, freestyle = Renju(), Freestyle()
    positions = random_positions(count, 2026)
    out: dict[str, Any] = {"maps": [], "threats": [], "moves": [], "vcf": []}
    for moves in positions:
        board = Board.replay(moves)
        out["maps"].append({str(p): str(r) for p, r in renju.forbidden_points(board).items()})
        t = Threats(board, renju)
        out["threats"].append([t.fives(1), t.fives(2), sorted(t.fours(1)), sorted(t.fours(2)), t.threes(2)])
    for moves in positions[:12]:
        board = Board.replay(moves)
        for rules in (renju, freestyle):
            if rules.outcome(board) is None:
                out["moves"].append(str(ComputerPlayer(rules, level=4, seed=7).best_move(board)))
    rows = [line.split("#")[0] for line in VCF_SET.read_text().splitlines() if line and not line.startswith("#")]
    for row in rows[:40]:
        board = Board.replay(row.split("|")[0])
        line = find_vcf(board, renju)
        out["vcf"].append(None if line is None else [str(p) for p in line])
    return out
