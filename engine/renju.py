"""Renju forbidden moves for Black, exactly as RIF §9 defines them.

The procedure is rules.md §3.2. For a point ``p`` and Black to play there:

1. a run of exactly five through ``p`` in any direction: not forbidden (five);
2. else a run of six or more: overline;
3. else two or more distinct fours through ``p`` (one line or several): double-four;
4. else two or more *real* threes: double-three. A three is real when at least
   one of its extension points ``q`` (the point that makes it a straight four)
   is itself a legal Black move in the position with ``p`` added, decided by
   this same procedure (RIF 9.3 "… etc."): the recursion has no depth cap,
   each level adds a stone, and results are memoised on (position, point).

Speed comes from looking at whole lines: the content of a line (its length,
black bits and white bits) determines, for every empty point on it, whether a
black stone there makes a five, an overline, which fours (with their
completion points) and which three candidates (with their extension points).
That analysis is computed once per distinct line content and cached; a board
then needs one dictionary lookup per line instead of walking points.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import StrEnum

from engine.board import Board
from engine.errors import EngineError
from engine.gcpause import paused
from engine.notation import Point

# Per-point status codes, in the order of the procedure.
NONE, FIVE, OVERLINE, DOUBLE_FOUR, DOUBLE_THREE = 0, 1, 2, 3, 4


class ForbiddenReason(StrEnum):
    """Why a black move is forbidden."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"

    def __str__(self) -> str:
        return self.value


REASON_OF_CODE = {
    OVERLINE: ForbiddenReason.OVERLINE,
    DOUBLE_FOUR: ForbiddenReason.DOUBLE_FOUR,
    DOUBLE_THREE: ForbiddenReason.DOUBLE_THREE,
}

# A line entry for one empty point: (kind, fours, threes) where kind is
# NONE/FIVE/OVERLINE, fours is ((stone mask, completion positions), ...) and
# threes is ((stone mask, extension positions), ...). Masks and positions are
# along the line.
Entry = tuple[int, tuple[tuple[int, tuple[int, ...]], ...], tuple[tuple[int, tuple[int, ...]], ...]]
# A line's analysis: per position on the line, the entry there or None. Entries are kept as computed on the
# eleven-point window centred on the point (window position q is line position q + pos - 5: see :func:`_shifted`),
# so one window's entry object serves every line and place it occurs at, and a cached line is one tuple: what
# a position seen once leaves behind for the garbage collector is as small as it can be. Empty when no point
# on the line makes anything.
LineInfo = tuple[Entry | None, ...]
SHIFT = 5  # window position q of the entry at line position pos is line position q + pos - SHIFT

_NO_INFO: LineInfo = ()
_LINE_CACHE: dict[int, LineInfo] = {}
LINE_CACHE_LIMIT = 2_000_000

# The recursive check adds a stone and three frames a level; a full board of nested threes must not hit
# Python's default limit of 1000. Raised once, on import, not in the middle of someone's call.
if sys.getrecursionlimit() < 5000:
    sys.setrecursionlimit(5000)


def clear_cache() -> None:
    """Forget the analysed lines and points (benchmarks use it to measure a cold start)."""
    _LINE_CACHE.clear()
    _POINT_CACHE.clear()


def _run(bits: int, j: int, length: int) -> tuple[int, int]:
    """The unbroken run of set bits through position ``j``."""
    s = j
    while s > 0 and bits >> (s - 1) & 1:
        s -= 1
    e = j
    while e < length - 1 and bits >> (e + 1) & 1:
        e += 1
    return s, e


def _analyse_point(length: int, black: int, white: int, i: int, exact: bool = True) -> Entry | None:
    """What a stone of the ``black`` side on empty position ``i`` makes on this line.

    ``exact``: only exactly five wins (renju's Black); otherwise five or more
    (White, free-style), and an overline is a five, not a foul.
    """
    bb = black | 1 << i
    s, e = _run(bb, i, length)
    if e - s == 4 or (e - s > 4 and not exact):
        return (FIVE, (), ())
    if e - s > 4:
        return (OVERLINE, (), ())
    occupied = bb | white
    fours: dict[int, list[int]] = {}
    threes: dict[int, list[int]] = {}
    for j in range(max(0, i - 4), min(length, i + 5)):
        if occupied >> j & 1:
            continue
        bj = bb | 1 << j
        s, e = _run(bj, j, length)
        if not s <= i <= e:
            continue
        run_mask = ((1 << (e + 1)) - (1 << s)) & ~(1 << j)
        if e - s == 4 or (e - s > 4 and not exact):
            fours.setdefault(run_mask, []).append(j)
        elif (
            e - s == 3
            # both ends empty (the run stopped there, so they are not black) ...
            and s > 0
            and not white >> (s - 1) & 1
            and e < length - 1
            and not white >> (e + 1) & 1
            # ... and filling either makes exactly five, not six
            and (not exact or (not (s > 1 and bj >> (s - 2) & 1) and not (e < length - 2 and bj >> (e + 2) & 1)))
        ):
            threes.setdefault(run_mask, []).append(j)
    if not fours and not threes:
        return None
    return (
        NONE,
        tuple((mask, tuple(points)) for mask, points in fours.items()),
        tuple((mask, tuple(points)) for mask, points in threes.items()),
    )


_POINT_CACHE: dict[int, Entry | None] = {}  # window -> the entry of its middle point (window coordinates)
_WINDOW = 0x7FF  # eleven points: five either side of the one analysed
_WALLS = 0b11111


def _analyse_line(length: int, black: int, white: int, exact: bool = True) -> LineInfo:
    """Every empty point's entry on one line.

    A point's entry depends only on the five points either side of it (a run
    longer than that is an overline already), so entries are cached on that
    window, with the board's edge as opponent stones: far more lines than
    windows are new to a position seen once. Only the empty points with two
    stones of the side within four points are looked at (no other can make a
    three). The entries stay in window coordinates (see :data:`LineInfo`).
    """
    occupied = black | white
    # A stone makes a three, a four, a five or an overline only with two or more of its colour within four
    # points of it: the points with fewer are never analysed (a line with one stone has none at all).
    one = two = 0
    for shift in range(1, 5):
        for near in (black << shift, black >> shift):
            two |= one & near
            one |= near
    candidates = two & ((1 << length) - 1) & ~occupied
    if not candidates:
        return _NO_INFO
    by_pos: list[Entry | None] = [None] * length
    found = False
    padded_black = black << 5
    padded_white = white << 5 | _WALLS | _WALLS << (length + 5)
    flag = 0 if exact else 1 << 22
    cache = _POINT_CACHE
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        i = low.bit_length() - 1
        window = (padded_black >> i & _WINDOW) | (padded_white >> i & _WINDOW) << 11 | flag
        if window in cache:
            local = cache[window]
        else:
            if len(cache) >= LINE_CACHE_LIMIT:
                cache.clear()
            local = cache[window] = _analyse_point(11, window & _WINDOW, window >> 11 & _WINDOW, 5, exact)
        if local is not None:
            by_pos[i] = local
            found = True
    return tuple(by_pos) if found else _NO_INFO


def _shifted(entry: Entry, shift: int) -> Entry:
    """A window entry moved to its place on the line (``shift`` = line position of window bit 0, that is
    the point's position on the line minus :data:`SHIFT`)."""
    kind, fours, threes = entry
    if not fours and not threes:
        return entry
    if shift > 0:
        return (
            kind,
            tuple((mask << shift, tuple(q + shift for q in qs)) for mask, qs in fours),
            tuple((mask << shift, tuple(q + shift for q in qs)) for mask, qs in threes),
        )
    back = -shift
    return (
        kind,
        tuple((mask >> back, tuple(q - back for q in qs)) for mask, qs in fours),
        tuple((mask >> back, tuple(q - back for q in qs)) for mask, qs in threes),
    )


def line_info(board: Board, line: int) -> LineInfo:
    """The analysis of one line of ``board`` (cached on its content)."""
    black = board.black_bits[line]
    if not black:
        return _NO_INFO
    length = len(board.geometry.cells[line])
    if length < 5:
        return _NO_INFO
    white = board.white_bits[line]
    key = black | white << 26 | length << 52
    info = _LINE_CACHE.get(key)
    if info is None:
        if len(_LINE_CACHE) >= LINE_CACHE_LIMIT:
            _LINE_CACHE.clear()
        info = _LINE_CACHE[key] = _analyse_line(length, black, white)
    return info


def side_line_info(board: Board, line: int, color: int, exact: bool) -> LineInfo:
    """:func:`line_info` for either colour: the fives, fours and straight-four
    points a ``color`` stone would make on ``line`` (``exact``: only exactly
    five wins). Black with ``exact`` is the forbidden-move analysis itself."""
    if color == 1:
        mine, theirs = board.black_bits[line], board.white_bits[line]
    else:
        mine, theirs = board.white_bits[line], board.black_bits[line]
    if not mine:
        return _NO_INFO
    length = len(board.geometry.cells[line])
    if length < 5:
        return _NO_INFO
    key = mine | theirs << 26 | length << 52 | (0 if exact else 1) << 57
    info = _LINE_CACHE.get(key)
    if info is None:
        if len(_LINE_CACHE) >= LINE_CACHE_LIMIT:
            _LINE_CACHE.clear()
        info = _LINE_CACHE[key] = _analyse_line(length, mine, theirs, exact)
    return info


class Judge:
    """Decides black points of one board, memoising the recursive checks.

    ``five_extension_is_three`` selects the reading of decision D1 (rules.md
    §3.4, tricky position T36): False (default, RIF wording) means a three
    whose straight-four point would also make a five elsewhere is no three;
    True means it is real, as a five-making move is always legal.

    The board is borrowed: stones are placed and removed during a check and
    it is left as it was found.
    """

    def __init__(self, board: Board, five_extension_is_three: bool = False) -> None:
        self.board = board
        self.five_extension_is_three = five_extension_is_three
        self.memo: dict[tuple[int, int], int] = {}
        self.ok_codes = (NONE, FIVE) if five_extension_is_three else (NONE,)

    def entries(self, index: int) -> list[tuple[int, Entry]]:
        """(line id, entry in line positions) for each of the four lines through an empty point."""
        return [(line, _shifted(entry, shift)) for line, shift, entry in self._local(index)]

    def _local(self, index: int) -> list[tuple[int, int, Entry]]:
        """(line id, shift, entry in window positions) for each of the four lines through an empty point."""
        board = self.board
        geo = board.geometry
        found = []
        for d in range(4):
            line = geo.line_of[d][index]
            info = line_info(board, line)
            if info:
                pos = geo.pos_of[d][index]
                entry = info[pos]
                if entry is not None:
                    found.append((line, pos - SHIFT, entry))
        return found

    def status(self, index: int) -> int:
        """NONE, FIVE, OVERLINE, DOUBLE_FOUR or DOUBLE_THREE for Black at ``index``."""
        key = (self.board.hash, index)
        cached = self.memo.get(key)
        if cached is None:
            cached = self.memo[key] = self._classify(index, self._local(index))
        return cached

    def _classify(self, index: int, entries: list[tuple[int, int, Entry]]) -> int:
        overline = False
        fours = 0
        threes: list[tuple[int, int, tuple[tuple[int, tuple[int, ...]], ...]]] = []
        for line, shift, (kind, line_fours, line_threes) in entries:
            if kind == FIVE:
                return FIVE
            if kind == OVERLINE:
                overline = True
            fours += len(line_fours)
            if line_threes:
                threes.append((line, shift, line_threes))
        if overline:
            return OVERLINE
        if fours >= 2:
            return DOUBLE_FOUR
        if sum(len(t) for _line, _shift, t in threes) >= 2 and self.real_threes(index, threes, 2) >= 2:
            return DOUBLE_THREE
        return NONE

    def real_threes(
        self, index: int, threes: list[tuple[int, int, tuple[tuple[int, tuple[int, ...]], ...]]], enough: int
    ) -> int:
        """Count the real threes of a stone at ``index`` (stopping at ``enough``); ``threes`` per line with
        the shift of its window positions."""
        board = self.board
        cells = board.geometry.cells
        ok_codes = self.ok_codes
        board.place(index, 1)
        try:
            real = 0
            for line, shift, line_threes in threes:
                line_cells = cells[line]
                for _mask, extensions in line_threes:
                    if any(self.status(line_cells[q + shift]) in ok_codes for q in extensions):
                        real += 1
                        if real >= enough:
                            return real
            return real
        finally:
            board.remove(index)

    def forbidden_map(self) -> dict[int, int]:
        """Every empty point where Black is forbidden, with its status code."""
        with paused():
            return self._forbidden_map()

    def _forbidden_map(self) -> dict[int, int]:
        board = self.board
        cells = board.geometry.cells
        black_counts = board.black_counts
        gathered: dict[int, list[Entry]] = {}
        for line in range(len(cells)):
            if black_counts[line] < 2:  # a line needs two black stones for any point on it to matter
                continue
            info = line_info(board, line)
            if not info:
                continue
            line_cells = cells[line]
            for pos in range(len(info)):
                entry = info[pos]
                if entry is None:
                    continue
                index = line_cells[pos]
                found = gathered.get(index)
                if found is None:
                    gathered[index] = [entry]
                else:
                    found.append(entry)
        result = {}
        for index, entries in gathered.items():
            if len(entries) == 1 and len(entries[0][2]) < 2:
                # One line with at most one three candidate is forbidden only
                # through an overline or a one-line double-four.
                kind, fours, _threes = entries[0]
                if kind == OVERLINE:
                    result[index] = OVERLINE
                elif kind == NONE and len(fours) >= 2:
                    result[index] = DOUBLE_FOUR
                continue
            code = self.status(index)
            if code >= OVERLINE:
                result[index] = code
        return result


def forbidden_points(board: Board, five_extension_is_three: bool = False) -> dict[Point, ForbiddenReason]:
    """Black's forbidden points on ``board`` (whoever is to move), with reasons.

    >>> board = Board.replay("g8 a1 i8 c1 h9 e1 h10 k1")
    >>> {str(p): str(r) for p, r in forbidden_points(board).items()}
    {'h8': 'double-three'}
    """
    judge = Judge(board, five_extension_is_three)
    size = board.size
    return {
        Point(index % size, index // size): REASON_OF_CODE[code]
        for index, code in sorted(judge.forbidden_map().items(), key=lambda item: (item[0] % size, item[0] // size))
    }


def forbidden_reason(board: Board, point: Point, five_extension_is_three: bool = False) -> ForbiddenReason | None:
    """Why Black may not play ``point`` (None if Black may, or it is occupied)."""
    index = point.index(board.size)
    if board.stones[index]:
        return None
    code = Judge(board, five_extension_is_three).status(index)
    return REASON_OF_CODE.get(code)


@dataclass(frozen=True)
class Shape:
    """One line's part in a verdict: a four, a real three, a five or an overline.

    ``stones`` are the black stones of the shape (the examined point among
    them); ``points`` are its completion points (four), the extension points
    that make it a real three (three), or nothing.
    """

    kind: str
    stones: tuple[Point, ...]
    points: tuple[Point, ...] = ()


@dataclass(frozen=True)
class Explanation:
    """The verdict for a black stone on ``point`` and the shapes behind it."""

    point: Point
    reason: ForbiddenReason | None
    five: bool
    shapes: tuple[Shape, ...]


def explain(board: Board, point: Point, five_extension_is_three: bool = False) -> Explanation:
    """The verdict for Black on ``point`` with the lines that make it.

    A referee page can draw the stones of each four or real three and their
    completion or extension points; for an overline, the six or more stones.
    """
    index = point.index(board.size)
    if board.stones[index]:
        raise EngineError(f"{point} is occupied", "occupied", point=str(point))
    judge = Judge(board, five_extension_is_three)
    code = judge.status(index)
    size = board.size
    cells = board.geometry.cells

    def to_points(line: int, mask: int) -> tuple[Point, ...]:
        return tuple(Point.from_index(cells[line][i], size) for i in range(len(cells[line])) if mask >> i & 1)

    def at(line: int, positions: tuple[int, ...]) -> tuple[Point, ...]:
        return tuple(Point.from_index(cells[line][q], size) for q in positions)

    entries = judge.entries(index)
    shapes: list[Shape] = []
    board.place(index, 1)
    try:
        for line, (kind, fours, threes) in entries:
            if kind in (FIVE, OVERLINE):
                line_cells = cells[line]
                s, e = _run(board.black_bits[line], line_cells.index(index), len(line_cells))
                run_mask = (1 << (e + 1)) - (1 << s)
                shapes.append(Shape("five" if kind == FIVE else "overline", to_points(line, run_mask)))
                continue
            shapes.extend(Shape("four", to_points(line, mask), at(line, comp)) for mask, comp in fours)
            for mask, extensions in threes:
                good = tuple(q for q in extensions if judge.status(cells[line][q]) in judge.ok_codes)
                if good:
                    shapes.append(Shape("three", to_points(line, mask), at(line, good)))
    finally:
        board.remove(index)
    return Explanation(point, REASON_OF_CODE.get(code), code == FIVE, tuple(shapes))
