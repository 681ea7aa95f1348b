"""Agreement with an independent judge: the ``renju`` package from PyPI,
a port of the Piskvork judge used at Gomocup (reading B of D1, like ours)."""

from __future__ import annotations

import random

import pytest
from renju.check_forbid import get_foul_type

from engine.board import Board
from engine.renju import DOUBLE_FOUR, DOUBLE_THREE, OVERLINE, Judge

PYPI_CODE = {DOUBLE_THREE: 1, DOUBLE_FOUR: 2, OVERLINE: 3}


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


@pytest.mark.parametrize("seed", range(8))
def test_forbidden_map_agrees_with_pypi_renju(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(6):
        board = random_position(rng)
        grid = [[0] * 15 for _ in range(15)]
        for index, value in enumerate(board.stones):
            grid[index % 15][index // 15] = value

        ours = {index: PYPI_CODE[code] for index, code in Judge(board).forbidden_map().items()}
        theirs = {
            index: foul
            for index, value in enumerate(board.stones)
            if not value and (foul := get_foul_type(grid, index % 15, index // 15))
        }

        assert ours == theirs, str(board)
