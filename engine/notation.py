"""Points, moves and their notation.

Columns are letters from ``a`` (left), rows are numbers from ``1`` (bottom), as
seen by the player who starts with Black; ``h8`` is the centre of the 15×15
board. Upper or lower case is read, lower case is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from engine.errors import EngineError

MAX_SIZE = 26
PASS_TOKEN = "pass"


class Color(IntEnum):
    """A stone colour. ``~Color.BLACK`` is not defined; use :meth:`other`."""

    BLACK = 1
    WHITE = 2

    @property
    def other(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    def __str__(self) -> str:
        return self.name.lower()


class InvalidMoveError(EngineError):
    """Text that is not a move, with the offending token and its position."""


@dataclass(frozen=True, slots=True, order=True)
class Point:
    """An intersection: ``col`` and ``row`` count from 0 (``a1`` is (0, 0))."""

    col: int
    row: int

    @classmethod
    def parse(cls, text: str, size: int = 15) -> Point:
        """Read ``h8`` or ``H8``.

        >>> Point.parse("H8")
        Point(col=7, row=7)
        """
        match = _POINT_RE.fullmatch(text.strip().lower())
        if not match:
            raise InvalidMoveError(
                f"{text!r} is not a point (expected a letter and a number, like h8)", "not_a_point", text=text
            )
        point = cls(ord(match[1]) - ord("a"), int(match[2]) - 1)
        if not point.on_board(size):
            raise InvalidMoveError(f"{text!r} is off the {size}x{size} board", "text_off_board", text=text, size=size)
        return point

    def on_board(self, size: int) -> bool:
        return 0 <= self.col < size and 0 <= self.row < size

    def index(self, size: int) -> int:
        return self.row * size + self.col

    @classmethod
    def from_index(cls, index: int, size: int) -> Point:
        return cls(index % size, index // size)

    def __str__(self) -> str:
        return f"{chr(ord('a') + self.col)}{self.row + 1}"


@dataclass(frozen=True, slots=True)
class Move:
    """A board move: a stone on ``point``, or a pass when ``point`` is None."""

    point: Point | None

    @classmethod
    def parse(cls, text: str, size: int = 15) -> Move:
        if text.strip().lower() == PASS_TOKEN:
            return PASS
        return cls(Point.parse(text, size))

    @property
    def is_pass(self) -> bool:
        return self.point is None

    def __str__(self) -> str:
        return PASS_TOKEN if self.point is None else str(self.point)


PASS = Move(None)

_POINT_RE = re.compile(r"([a-z])([0-9]{1,2})")
_TOKEN_RE = re.compile(r"pass|[a-z][0-9]{1,2}", re.IGNORECASE)


def parse_point(text: str, size: int = 15) -> Point:
    """Read one point; see :meth:`Point.parse`."""
    return Point.parse(text, size)


def parse_moves(text: str, size: int = 15) -> list[Move]:
    """Read a move list, space-separated (``h8 h9 i9``) or run together (``h8h9i9``).

    ``pass`` is a move. A malformed token raises :class:`InvalidMoveError`
    naming the token, its move number and its character position.

    >>> [str(m) for m in parse_moves("h8H9 pass i10")]
    ['h8', 'h9', 'pass', 'i10']
    """
    moves: list[Move] = []
    pos = 0
    length = len(text)
    while pos < length:
        char = text[pos]
        if char.isspace() or char == ",":
            pos += 1
            continue
        match = _TOKEN_RE.match(text, pos)
        end = match.end() if match else _token_end(text, pos)
        token = text[pos:end]
        where = f"move {len(moves) + 1} ({token!r} at character {pos + 1})"
        located = {"n": len(moves) + 1, "token": token, "char": pos + 1}
        if match is None:
            error = InvalidMoveError("not a move (expected a point like h8, or pass)", "not_a_move")
            raise error.within("at_move", where, **located)
        try:
            moves.append(Move.parse(token, size))
        except InvalidMoveError as exc:
            raise exc.within("at_move", where, **located) from None
        pos = end
    return moves


def _token_end(text: str, pos: int) -> int:
    end = pos
    while end < len(text) and not (text[end].isspace() or text[end] == ","):
        end += 1
    return end


def format_moves(moves: list[Move], sep: str = " ") -> str:
    """Write a move list in lower case; the inverse of :func:`parse_moves`."""
    return sep.join(str(move) for move in moves)
