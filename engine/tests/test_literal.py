"""The engine's forbidden map against the literal checker written from the definitions."""

from __future__ import annotations

import random

import pytest

from engine.renju import DOUBLE_FOUR, DOUBLE_THREE, OVERLINE, Judge, clear_cache
from engine.tests.literal import forbidden_map
from engine.tests.positions import random_position

NAMES = {OVERLINE: "overline", DOUBLE_FOUR: "double-four", DOUBLE_THREE: "double-three"}


@pytest.mark.parametrize("seed", range(4))
def test_engine_agrees_with_the_literal_checker(seed: int) -> None:
    rng = random.Random(1000 + seed)
    clear_cache()  # the cold path (window cache filling) as well as the warm one
    for _ in range(25):
        board = random_position(rng)
        ours = {index: NAMES[code] for index, code in Judge(board).forbidden_map().items()}
        assert ours == forbidden_map(board), str(board)
