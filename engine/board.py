"""The board: stones, a move stack and per-line bitmasks.

Every point lies on four lines (row, column, diagonal, anti-diagonal). The
board keeps, for each line, a bitmask of its black and of its white stones, so
the rules can look a line's whole content up in a table instead of walking it
point by point.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from engine.errors import EngineError
from engine.notation import MAX_SIZE, PASS, Color, InvalidMoveError, Move, Point, parse_moves

DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))


class IllegalMoveError(EngineError):
    """A move the position does not allow (out of turn, off the board)."""


class OccupiedPointError(IllegalMoveError):
    """A stone on a point that already holds one."""


@dataclass(frozen=True)
class Geometry:
    """Where each point sits on each of its four lines, for one board size."""

    size: int
    line_of: tuple[tuple[int, ...], ...]  # [direction][index] -> line id
    pos_of: tuple[tuple[int, ...], ...]  # [direction][index] -> position on that line
    cells: tuple[tuple[int, ...], ...]  # [line id] -> indexes along the line
    zobrist: tuple[tuple[int, int, int], ...]  # [index] -> (unused, black key, white key)


@cache
def geometry(size: int) -> Geometry:
    line_of = [[0] * (size * size) for _ in DIRECTIONS]
    pos_of = [[0] * (size * size) for _ in DIRECTIONS]
    cells: list[tuple[int, ...]] = []
    for d, (dc, dr) in enumerate(DIRECTIONS):
        for col in range(size):
            for row in range(size):
                pc, pr = col - dc, row - dr
                if 0 <= pc < size and 0 <= pr < size:
                    continue  # not the start of a line
                line: list[int] = []
                c, r = col, row
                while 0 <= c < size and 0 <= r < size:
                    index = r * size + c
                    line_of[d][index] = len(cells)
                    pos_of[d][index] = len(line)
                    line.append(index)
                    c, r = c + dc, r + dr
                cells.append(tuple(line))
    rng = random.Random(20261130 + size)
    zobrist = tuple((0, rng.getrandbits(64), rng.getrandbits(64)) for _ in range(size * size))
    return Geometry(size, tuple(map(tuple, line_of)), tuple(map(tuple, pos_of)), tuple(cells), zobrist)


class BoardSnapshot(NamedTuple):
    """A position as immutable values (:meth:`Board.snapshot`)."""

    size: int
    stones: tuple[int, ...]
    black_bits: tuple[int, ...]
    white_bits: tuple[int, ...]
    black_counts: tuple[int, ...]
    white_counts: tuple[int, ...]
    hash: int
    stone_count: int
    moves: tuple[Move, ...]


class Board:
    """A position with its move stack.

    >>> board = Board.replay("h8 h9 i9")
    >>> str(board.peek()), board.turn
    ('i9', <Color.WHITE: 2>)
    >>> board.pop()
    Move(point=Point(col=8, row=8))
    """

    def __init__(self, size: int = 15) -> None:
        if not 5 <= size <= MAX_SIZE:
            raise EngineError(
                f"board size must be between 5 and {MAX_SIZE}, got {size}", "board_size", size=size, max=MAX_SIZE
            )
        self.size = size
        self.geometry = geometry(size)
        self.stones = [0] * (size * size)
        self.black_bits = [0] * len(self.geometry.cells)
        self.white_bits = [0] * len(self.geometry.cells)
        # Stones of each colour per line (the bits' population counts, kept as stones come and go).
        self.black_counts = [0] * len(self.geometry.cells)
        self.white_counts = [0] * len(self.geometry.cells)
        self.hash = 0
        self.stone_count = 0
        self.move_stack: list[Move] = []

    @classmethod
    def replay(cls, moves: str | Iterable[Move | Point | str], size: int = 15) -> Board:
        """Rebuild a position from a move list (text or moves), Black first."""
        board = cls(size)
        sequence = parse_moves(moves, size) if isinstance(moves, str) else moves
        for number, move in enumerate(sequence, start=1):
            try:
                board.push(move)
            except IllegalMoveError as exc:
                raise exc.within("at_move", f"move {number}", n=number) from None
        return board

    # -- reading -----------------------------------------------------------

    @property
    def turn(self) -> Color:
        """The colour to move: Black on odd move numbers, passes included."""
        return Color.BLACK if len(self.move_stack) % 2 == 0 else Color.WHITE

    @property
    def ply(self) -> int:
        """Moves made so far (stones and passes)."""
        return len(self.move_stack)

    def peek(self) -> Move:
        if not self.move_stack:
            raise IndexError("no move has been made")
        return self.move_stack[-1]

    def color_at(self, point: Point) -> Color | None:
        value = self.stones[point.index(self.size)]
        return Color(value) if value else None

    def is_empty(self, point: Point) -> bool:
        return self.stones[point.index(self.size)] == 0

    def is_full(self) -> bool:
        return self.stone_count == self.size * self.size

    def empty_points(self) -> Iterator[Point]:
        size = self.size
        return (Point(i % size, i // size) for i, v in enumerate(self.stones) if v == 0)

    def points(self, color: Color) -> list[Point]:
        size = self.size
        return [Point(i % size, i // size) for i, v in enumerate(self.stones) if v == color]

    def to_point(self, move: Point | str) -> Point:
        point = Point.parse(move, self.size) if isinstance(move, str) else move
        if not point.on_board(self.size):
            raise IllegalMoveError(
                f"{point} is off the {self.size}x{self.size} board", "off_board", point=str(point), size=self.size
            )
        return point

    # -- changing ------------------------------------------------------------

    def push(self, move: Move | Point | str) -> None:
        """Play ``move`` for the side to move (a stone or a pass)."""
        if isinstance(move, str):
            move = Move.parse(move, self.size)
        elif isinstance(move, Point):
            move = Move(move)
        if move.point is not None:
            point = self.to_point(move.point)
            index = point.index(self.size)
            if self.stones[index]:
                raise OccupiedPointError(f"{point} is already occupied", "occupied", point=str(point))
            self.place(index, self.turn)
        self.move_stack.append(move)

    def push_pass(self) -> None:
        self.push(PASS)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        move = self.move_stack.pop()
        if move.point is not None:
            self.remove(move.point.index(self.size))
        return move

    def snapshot(self) -> BoardSnapshot:
        """The position as immutable values, to keep many positions cheaply (a cache of them).

        A board's lists are walked, number by number, by every full pass of Python's garbage collector; a
        snapshot's tuples of numbers are not (the collector stops tracking them), so a process holding
        thousands of positions does not pause for them. :meth:`from_snapshot` gives the board back.
        """
        return BoardSnapshot(
            self.size,
            tuple(map(int, self.stones)),  # numbers, not the colours' enum members, which the collector tracks
            tuple(self.black_bits),
            tuple(self.white_bits),
            tuple(self.black_counts),
            tuple(self.white_counts),
            self.hash,
            self.stone_count,
            tuple(self.move_stack),
        )

    @classmethod
    def from_snapshot(cls, snapshot: BoardSnapshot) -> Board:
        """A board (its own, to play on) in the position of ``snapshot``."""
        board = cls(snapshot.size)
        board.stones = list(snapshot.stones)
        board.black_bits = list(snapshot.black_bits)
        board.white_bits = list(snapshot.white_bits)
        board.black_counts = list(snapshot.black_counts)
        board.white_counts = list(snapshot.white_counts)
        board.hash = snapshot.hash
        board.stone_count = snapshot.stone_count
        board.move_stack = list(snapshot.moves)
        return board

    def copy(self) -> Board:
        board = Board(self.size)
        board.stones = self.stones[:]
        board.black_bits = self.black_bits[:]
        board.white_bits = self.white_bits[:]
        board.black_counts = self.black_counts[:]
        board.white_counts = self.white_counts[:]
        board.hash = self.hash
        board.stone_count = self.stone_count
        board.move_stack = self.move_stack[:]
        return board

    # Low-level stone placement without the move stack: the rules use it to
    # try stones "in mind" (RIF 9.3) and take them back.

    def place(self, index: int, color: int) -> None:
        geo = self.geometry
        self.stones[index] = color
        self.stone_count += 1
        self.hash ^= geo.zobrist[index][color]
        bits, counts = (self.black_bits, self.black_counts) if color == 1 else (self.white_bits, self.white_counts)
        for d in range(4):
            line = geo.line_of[d][index]
            bits[line] |= 1 << geo.pos_of[d][index]
            counts[line] += 1

    def remove(self, index: int) -> None:
        geo = self.geometry
        color = self.stones[index]
        if not color:
            point = Point.from_index(index, self.size)
            raise InvalidMoveError(f"no stone at {point}", "no_stone", point=str(point))
        self.stones[index] = 0
        self.stone_count -= 1
        self.hash ^= geo.zobrist[index][color]
        bits, counts = (self.black_bits, self.black_counts) if color == 1 else (self.white_bits, self.white_counts)
        for d in range(4):
            line = geo.line_of[d][index]
            bits[line] &= ~(1 << geo.pos_of[d][index])
            counts[line] -= 1

    # -- presentation --------------------------------------------------------

    def moves_text(self) -> str:
        return " ".join(str(move) for move in self.move_stack)

    def __str__(self) -> str:
        rows = []
        for row in range(self.size - 1, -1, -1):
            marks = ".XO"
            line = " ".join(marks[self.stones[row * self.size + col]] for col in range(self.size))
            rows.append(f"{row + 1:>2} {line}")
        rows.append("   " + " ".join(chr(ord("a") + c) for c in range(self.size)))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board.replay({self.moves_text()!r}, size={self.size})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.size == other.size and self.stones == other.stones

    __hash__ = None  # type: ignore[assignment]  # mutable
