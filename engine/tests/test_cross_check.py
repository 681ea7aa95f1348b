"""Agreement with an independent judge: the ``renju`` package from PyPI,
a port of the Piskvork judge used at Gomocup (reading B of D1, like ours)."""

from __future__ import annotations

import random

import pytest
from renju.check_forbid import get_foul_type

from engine.renju import DOUBLE_FOUR, DOUBLE_THREE, OVERLINE, Judge
from engine.tests.positions import random_position

PYPI_CODE = {DOUBLE_THREE: 1, DOUBLE_FOUR: 2, OVERLINE: 3}


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
