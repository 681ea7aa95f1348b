"""Fifth-move offers: when are two offered points "the same move"? (rules.md §4.2)

A symmetry of the 4-stone position S is one of the 8 grid maps followed by a
translation that maps S onto itself colour by colour; edges are ignored.
Offers a and b are symmetric when some symmetry of S maps a to b.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.notation import Point
from engine.openings import LINEAR_MAPS

Map = tuple[int, int, int, int, int, int]  # a, b, c, d, tx, ty: (x, y) -> (ax + by + tx, cx + dy + ty)


def _apply(g: Map, p: Point) -> tuple[int, int]:
    a, b, c, d, tx, ty = g
    return a * p.col + b * p.row + tx, c * p.col + d * p.row + ty


def position_symmetries(black: Sequence[Point], white: Sequence[Point]) -> list[Map]:
    """Every symmetry of the coloured stone set (always includes the identity)."""
    blacks = {(p.col, p.row) for p in black}
    whites = {(p.col, p.row) for p in white}
    if not blacks:
        return [(1, 0, 0, 1, 0, 0)]
    first = black[0]
    found = []
    for a, b, c, d in LINEAR_MAPS:
        mx, my = a * first.col + b * first.row, c * first.col + d * first.row
        for target in blacks:
            g = (a, b, c, d, target[0] - mx, target[1] - my)
            if {_apply(g, p) for p in black} == blacks and {_apply(g, p) for p in white} == whites:
                found.append(g)
    return found


def are_symmetric(black: Sequence[Point], white: Sequence[Point], first: Point, second: Point) -> bool:
    """Do offers ``first`` and ``second`` give the same position up to symmetry?"""
    target = (second.col, second.row)
    return any(_apply(g, first) == target for g in position_symmetries(black, white))


def symmetric_pairs(
    black: Sequence[Point], white: Sequence[Point], offers: Iterable[Point]
) -> list[tuple[Point, Point]]:
    """The pairs of ``offers`` that are symmetric to each other."""
    group = position_symmetries(black, white)
    points = list(offers)
    pairs: list[tuple[Point, Point]] = []
    for i, first in enumerate(points):
        images = {_apply(g, first) for g in group}
        pairs.extend((first, second) for second in points[i + 1 :] if (second.col, second.row) in images)
    return pairs
