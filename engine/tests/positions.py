"""Helpers to build positions from coordinates and transform them."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from itertools import zip_longest
from pathlib import Path
from typing import Any

from engine import Board, Point

DATA = Path(__file__).parent / "data"


def load_tricky() -> list[dict[str, Any]]:
    return list(json.loads((DATA / "tricky_positions.json").read_text()))


def interleave(black: list[str], white: list[str]) -> list[str]:
    """A play order (Black first) that puts exactly these stones on the board."""
    if not (len(black) == len(white) or len(black) == len(white) + 1):
        raise ValueError(f"cannot alternate {len(black)} black and {len(white)} white stones")
    return [m for pair in zip_longest(black, white) for m in pair if m is not None]


def tricky_moves(case: dict[str, Any]) -> list[str]:
    return interleave(case["black"], case["white"] + case["fillers"])


# The 8 symmetries of the square board, as maps of (col, row) on a board of size n.
SYMMETRIES: list[Callable[[int, int, int], tuple[int, int]]] = [
    lambda c, r, n: (c, r),
    lambda c, r, n: (n - 1 - c, r),
    lambda c, r, n: (c, n - 1 - r),
    lambda c, r, n: (n - 1 - c, n - 1 - r),
    lambda c, r, n: (r, c),
    lambda c, r, n: (n - 1 - r, c),
    lambda c, r, n: (r, n - 1 - c),
    lambda c, r, n: (n - 1 - r, n - 1 - c),
]


def transform(point: Point, symmetry: int, size: int = 15) -> Point:
    return Point(*SYMMETRIES[symmetry](point.col, point.row, size))


def board_from_stones(black: list[Point], white: list[Point], size: int = 15) -> Board:
    board = Board(size)
    for point in black:
        board.place(point.index(size), 1)
    for point in white:
        board.place(point.index(size), 2)
    return board


def random_position(rng: random.Random) -> Board:
    board = Board()
    span = rng.choice([5, 6, 7, 9])
    low = (15 - span) // 2
    cells = [(c, r) for c in range(low, low + span) for r in range(low, low + span)]
    rng.shuffle(cells)
    black_share = rng.uniform(0.5, 0.7)
    for col, row in cells[: rng.randint(10, min(60, len(cells)))]:
        board.place(row * 15 + col, 1 if rng.random() < black_share else 2)
    return board
