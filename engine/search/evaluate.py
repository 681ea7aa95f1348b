"""Static evaluation: the seeds' winning-line table (获胜表), per line and cached.

Every five consecutive points of a line is a "winning line". One holding only
Black stones is worth ``WEIGHTS[k]`` to Black for its ``k`` stones, one holding
only White stones the same to White, a mixed one nothing. A point's value to a
colour is what a stone there would add over the winning lines through it: the
seeds' one-ply scoring. Everything is computed once per line content, like the
rules' own line analysis, so a position is 72 table lookups on a 15×15 board.
"""

from __future__ import annotations

from engine.board import Board

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
