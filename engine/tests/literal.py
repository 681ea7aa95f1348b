"""A literal renju forbidden-move checker, written straight from the definitions.

No line tables, no caches: for a point, put a black stone there and walk the
four directions exactly as RIF §9 reads (rules.md §3.2). It is the baseline
``bench/engine.py`` measures the engine against, and a second opinion in the
tests. Decision D1 as the engine's default: a three's straight-four point must
be a legal move that does not itself make five.
"""

from __future__ import annotations

from engine.board import DIRECTIONS, Board

FIVE, OVERLINE, DOUBLE_FOUR, DOUBLE_THREE = "five", "overline", "double-four", "double-three"


def _inside(board: Board, col: int, row: int) -> bool:
    return 0 <= col < board.size and 0 <= row < board.size


def _at(board: Board, col: int, row: int) -> int:
    """1 black, 2 white, 0 empty; off the board counts as a wall (3)."""
    return board.stones[row * board.size + col] if _inside(board, col, row) else 3


def _run(board: Board, col: int, row: int, dc: int, dr: int) -> list[tuple[int, int]]:
    """The black stones in an unbroken row through (col, row) along (dc, dr)."""
    stones = [(col, row)]
    for sign in (1, -1):
        c, r = col + sign * dc, row + sign * dr
        while _at(board, c, r) == 1:
            stones.append((c, r))
            c, r = c + sign * dc, r + sign * dr
    return stones


def _five_at(board: Board, col: int, row: int, dc: int, dr: int) -> bool:
    """Would a black stone on the empty (col, row) make exactly five along (dc, dr)?"""
    board.stones[row * board.size + col] = 1
    try:
        return len(_run(board, col, row, dc, dr)) == 5
    finally:
        board.stones[row * board.size + col] = 0


def verdict(board: Board, col: int, row: int) -> str | None:
    """Black on the empty (col, row): FIVE, OVERLINE, DOUBLE_FOUR, DOUBLE_THREE or None."""
    index = row * board.size + col
    board.stones[index] = 1
    try:
        runs = [len(_run(board, col, row, dc, dr)) for dc, dr in DIRECTIONS]
        if 5 in runs:
            return FIVE
        if any(n > 5 for n in runs):
            return OVERLINE
        fours = sum(len(_fours(board, col, row, dc, dr)) for dc, dr in DIRECTIONS)
        if fours >= 2:
            return DOUBLE_FOUR
        threes = sum(_real_threes(board, col, row, dc, dr) for dc, dr in DIRECTIONS)
        if threes >= 2:
            return DOUBLE_THREE
        return None
    finally:
        board.stones[index] = 0


def _fours(board: Board, col: int, row: int, dc: int, dr: int) -> set[frozenset[tuple[int, int]]]:
    """The fours through the stone at (col, row): each a set of four black stones one
    empty point away from exactly five (the empty point's five must contain the stone)."""
    found = set()
    for step in range(-4, 5):
        c, r = col + step * dc, row + step * dr
        if _at(board, c, r) != 0:
            continue
        board.stones[r * board.size + c] = 1
        try:
            run = _run(board, c, r, dc, dr)
            if len(run) == 5 and (col, row) in run:
                found.add(frozenset(run) - {(c, r)})
        finally:
            board.stones[r * board.size + c] = 0
    return found


def _straight_four(board: Board, run: list[tuple[int, int]], dc: int, dr: int) -> bool:
    """Four black stones in a row whose both ends each make exactly five."""
    if len(run) != 4:
        return False
    first = min(run, key=lambda p: p[0] * dc + p[1] * dr)
    last = max(run, key=lambda p: p[0] * dc + p[1] * dr)
    for c, r in ((first[0] - dc, first[1] - dr), (last[0] + dc, last[1] + dr)):
        if _at(board, c, r) != 0 or not _five_at(board, c, r, dc, dr):
            return False
    return True


def _real_threes(board: Board, col: int, row: int, dc: int, dr: int) -> int:
    """The real threes through (col, row) along one direction: three stones that a
    legal move (not forbidden, not itself a five) turns into a straight four."""
    threes: dict[frozenset[tuple[int, int]], bool] = {}
    for step in range(-4, 5):
        c, r = col + step * dc, row + step * dr
        if _at(board, c, r) != 0:
            continue
        board.stones[r * board.size + c] = 1
        try:
            run = _run(board, c, r, dc, dr)
            straight = (col, row) in run and _straight_four(board, run, dc, dr)
        finally:
            board.stones[r * board.size + c] = 0
        if straight:
            key = frozenset(run) - {(c, r)}
            if not threes.get(key):
                threes[key] = verdict(board, c, r) is None
    return sum(threes.values())


def forbidden_map(board: Board) -> dict[int, str]:
    """Every empty point forbidden to Black, with its reason."""
    result = {}
    for index, value in enumerate(board.stones):
        if value:
            continue
        found = verdict(board, index % board.size, index // board.size)
        if found in (OVERLINE, DOUBLE_FOUR, DOUBLE_THREE):
            result[index] = found
    return result
