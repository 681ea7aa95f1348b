"""Static evaluation: the seeds' winning-line table (获胜表), per line and cached; and, at the search's
leaves, the threats of both sides for the side to move (:func:`evaluate_to_move`).

Every five consecutive points of a line is a "winning line". One holding only
Black stones is worth ``WEIGHTS[k]`` to Black for its ``k`` stones, one holding
only White stones the same to White, a mixed one nothing. A point's value to a
colour is what a stone there would add over the winning lines through it: the
seeds' one-ply scoring. Everything is computed once per line content, like the
rules' own line analysis, so a position is 72 table lookups on a 15×15 board.
"""

from __future__ import annotations

from engine.board import Board
from engine.renju import FIVE, side_line_info

# Worth of a winning line holding k stones of one colour and none of the other.
WEIGHTS = (0, 2, 14, 90, 700, 100_000)
WIN = 10_000_000

LineEval = tuple[int, tuple[int, ...], tuple[int, ...]]  # (black minus white, black gain, white gain)
_EVAL_CACHE: dict[int, LineEval] = {}
_EMPTY: LineEval = (0, (), ())


def _line_eval(length: int, black: int, white: int) -> LineEval:
    value = 0
    bgain = [0] * length
    wgain = [0] * length
    occupied = black | white
    for start in range(length - 4):
        mask = 0b11111 << start
        b = (black & mask).bit_count()
        w = (white & mask).bit_count()
        if w == 0:
            value += WEIGHTS[b]
            gain = WEIGHTS[b + 1] - WEIGHTS[b] if b < 5 else 0
            for i in range(start, start + 5):
                if not occupied >> i & 1:
                    bgain[i] += gain
        if b == 0:
            value -= WEIGHTS[w]
            gain = WEIGHTS[w + 1] - WEIGHTS[w] if w < 5 else 0
            for i in range(start, start + 5):
                if not occupied >> i & 1:
                    wgain[i] += gain
    return value, tuple(bgain), tuple(wgain)


def clear_cache() -> None:
    """Forget the evaluated lines, shapes and leaves (benchmarks use it to measure a cold start)."""
    _EVAL_CACHE.clear()
    _SHAPE_CACHE.clear()
    _LEAF_CACHE.clear()


def line_eval(board: Board, line: int) -> LineEval:
    black = board.black_bits[line]
    white = board.white_bits[line]
    if not black and not white:
        return _EMPTY
    length = len(board.geometry.cells[line])
    if length < 5:
        return _EMPTY
    key = black | white << 26 | length << 52
    found = _EVAL_CACHE.get(key)
    if found is None:
        if len(_EVAL_CACHE) > 1_000_000:
            _EVAL_CACHE.clear()
        found = _EVAL_CACHE[key] = _line_eval(length, black, white)
    return found


def evaluate(board: Board) -> int:
    """The position's worth to Black (positive) or White (negative), by winning lines."""
    total = 0
    black_bits, white_bits = board.black_bits, board.white_bits
    for line in range(len(black_bits)):
        if black_bits[line] or white_bits[line]:
            total += line_eval(board, line)[0]
    return total


def _gains(board: Board) -> tuple[list[int], list[int], list[int]]:
    """Per point index, the gain of a stone there to Black and to White; and the points with any gain, in
    the order first met (lines in order, points along each line)."""
    cells = board.geometry.cells
    black_bits, white_bits = board.black_bits, board.white_bits
    size = board.size
    black_gain = [0] * (size * size)
    white_gain = [0] * (size * size)
    touched: list[int] = []
    for line in range(len(cells)):
        if not (black_bits[line] or white_bits[line]):
            continue
        evaluated = line_eval(board, line)
        bgain = evaluated[1]
        wgain = evaluated[2]
        if not bgain:
            continue
        line_cells = cells[line]
        for pos in range(len(line_cells)):
            b = bgain[pos]
            w = wgain[pos]
            if b or w:
                index = line_cells[pos]
                if not black_gain[index] and not white_gain[index]:  # gains are positive: first met
                    touched.append(index)
                black_gain[index] += b
                white_gain[index] += w
    return black_gain, white_gain, touched


def point_gains(board: Board) -> dict[int, tuple[int, int]]:
    """For every empty point on a winning line with stones: (gain to Black, gain to White)."""
    black_gain, white_gain, touched = _gains(board)
    return {index: (black_gain[index], white_gain[index]) for index in touched}


def scored_points(board: Board, color: int, defence: float = 0.85) -> list[tuple[float, int]]:
    """Empty points by the seeds' score for ``color`` to move: its own gain plus
    the opponent's gain it takes away (weighted ``defence``), best first."""
    result = []
    for index, (b, w) in point_gains(board).items():
        mine, theirs = (b, w) if color == 1 else (w, b)
        result.append((mine + defence * theirs, index))
    result.sort(key=lambda item: (-item[0], item[1]))
    return result


def ranked_points(board: Board, color: int) -> list[int]:
    """The points of :func:`scored_points` (``defence`` 0.85, i.e. 17/20) in the same order, without the
    scores: whole numbers sorted as one key each (the search's move ordering asks for this at every node)."""
    black_gain, white_gain, touched = _gains(board)
    mine, theirs = (black_gain, white_gain) if color == 1 else (white_gain, black_gain)
    keys = [(-(20 * mine[i] + 17 * theirs[i]) << 10) + i for i in touched]  # a point index is below 1024
    keys.sort()
    return [key & 1023 for key in keys]


# -- threats at the leaves ------------------------------------------------------------------------------------

# A colour's shapes on one line, read off the rules' own line analysis (engine.renju.side_line_info):
# (points that make a five, points that make a straight four, points that make a four, points that make a three).
Shape = tuple[int, int, int, int]
_SHAPE_CACHE: dict[int, Shape] = {}
_NO_SHAPE: Shape = (0, 0, 0, 0)

# What the shapes are worth beyond the winning lines, to the side to move and to the side that just moved.
OPEN_THREE_TO_MOVE = 40_000  # it makes a straight four next: won unless the opponent has fours to play
TWO_OPEN_THREES_AGAINST = 30_000  # we block one, the other becomes a straight four
OPEN_THREE_AGAINST = 1_200  # it must be answered (blocked, or outplayed by fours)
FOUR_MAKER = (260, 200)  # a closed three (a four to play: a tempo) for the side to move, for the other
THREE_MAKER = (70, 55)  # a two that becomes an open three


def side_shape(board: Board, line: int, color: int, exact: bool) -> Shape:
    """``color``'s shapes on ``line`` (cached on the line's content)."""
    if color == 1:
        mine, theirs = board.black_bits[line], board.white_bits[line]
    else:
        mine, theirs = board.white_bits[line], board.black_bits[line]
    length = len(board.geometry.cells[line])
    key = mine | theirs << 26 | length << 52 | (0 if exact else 1) << 57
    found = _SHAPE_CACHE.get(key)
    if found is not None:
        return found
    fives = straight = fours = threes = 0
    for entry in side_line_info(board, line, color, exact):
        if entry is None:
            continue
        if entry[0] == FIVE:
            fives += 1
            continue
        made = entry[1]
        if made:
            fours += 1
            for _mask, completions in made:
                if len(completions) >= 2:
                    straight += 1
                    break
        if entry[2]:
            threes += 1
    found = (fives, straight, fours, threes)
    if len(_SHAPE_CACHE) > 1_000_000:
        _SHAPE_CACHE.clear()
    _SHAPE_CACHE[key] = found
    return found


# Per line content: (winning lines, Black minus White; Black's straight-four, four and three points; White's).
LeafLine = tuple[int, int, int, int, int, int, int]
_LEAF_CACHE: dict[int, LeafLine] = {}


def _leaf_line(board: Board, line: int, length: int, exact_black: bool, exact_white: bool) -> LeafLine:
    black = board.black_bits[line]
    white = board.white_bits[line]
    key = black | white << 26 | length << 52 | (1 if exact_black else 0) << 57 | (1 if exact_white else 0) << 58
    found = _LEAF_CACHE.get(key)
    if found is None:
        value = line_eval(board, line)[0]
        b = side_shape(board, line, 1, exact_black) if black & (black - 1) else _NO_SHAPE  # two stones or more
        w = side_shape(board, line, 2, exact_white) if white & (white - 1) else _NO_SHAPE
        found = (value, b[1], b[2], b[3], w[1], w[2], w[3])
        if len(_LEAF_CACHE) > 1_000_000:
            _LEAF_CACHE.clear()
        _LEAF_CACHE[key] = found
    return found


def evaluate_to_move(board: Board, me: int, exact_black: bool, exact_white: bool) -> int:
    """The position's worth to ``me``, the side to move, when neither side has a four on the board: the winning
    lines, and the threats — an open three of the side to move is a straight four next move; two of the
    opponent's cannot both be blocked. One cached lookup per line with stones."""
    black_bits, white_bits = board.black_bits, board.white_bits
    cells = board.geometry.cells
    value = 0
    b_open = b_fours = b_threes = w_open = w_fours = w_threes = 0
    for line in range(len(black_bits)):
        if black_bits[line] or white_bits[line]:
            length = len(cells[line])
            if length < 5:
                continue
            v, bs, bf, bt, ws, wf, wt = _leaf_line(board, line, length, exact_black, exact_white)
            value += v
            if bs:
                b_open += 1
            if ws:
                w_open += 1
            b_fours += bf
            b_threes += bt
            w_fours += wf
            w_threes += wt
    if me == 1:
        my_open, my_fours, my_threes, their_open, their_fours, their_threes = (
            b_open,
            b_fours,
            b_threes,
            w_open,
            w_fours,
            w_threes,
        )
    else:
        value = -value
        my_open, my_fours, my_threes, their_open, their_fours, their_threes = (
            w_open,
            w_fours,
            w_threes,
            b_open,
            b_fours,
            b_threes,
        )
    value += FOUR_MAKER[0] * my_fours + THREE_MAKER[0] * my_threes
    value -= FOUR_MAKER[1] * their_fours + THREE_MAKER[1] * their_threes
    if my_open:
        return value + OPEN_THREE_TO_MOVE
    if their_open >= 2:
        return value - (TWO_OPEN_THREES_AGAINST if not my_fours else TWO_OPEN_THREES_AGAINST // 2)
    if their_open:
        value -= OPEN_THREE_AGAINST
    return value
