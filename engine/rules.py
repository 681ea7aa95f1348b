"""Rule sets: what wins, what is forbidden, and the outcome of a move.

Rule sets are classes with ``ClassVar`` settings and a registry, as
python-chess does with its variants; :func:`find_rules` picks one by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from engine.board import DIRECTIONS, Board
from engine.errors import EngineError
from engine.notation import Color, Point
from engine.renju import Explanation, ForbiddenReason, explain, forbidden_points, forbidden_reason


class Termination(StrEnum):
    """How a game ended."""

    FIVE = "five"
    FORBIDDEN = "forbidden"
    FULL_BOARD = "full-board"
    TWO_PASSES = "two-passes"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Outcome:
    """The end of a game: who won (None for a draw), how, and the foul if any."""

    termination: Termination
    winner: Color | None
    reason: ForbiddenReason | None = None

    def __str__(self) -> str:
        if self.termination is Termination.FIVE:
            return f"five {self.winner}"
        if self.termination is Termination.FORBIDDEN:
            return f"forbidden {self.reason}"
        return "draw"


def run_length(board: Board, point: Point, color: Color, direction: tuple[int, int]) -> int:
    """Stones of ``color`` in the unbroken run through ``point`` (counting it)."""
    size, stones = board.size, board.stones
    dc, dr = direction
    count = 1
    for sign in (1, -1):
        c, r = point.col + sign * dc, point.row + sign * dr
        while 0 <= c < size and 0 <= r < size and stones[r * size + c] == color:
            count += 1
            c, r = c + sign * dc, r + sign * dr
    return count


class Rules:
    """Base rule set: free-style gomoku (five or more wins for both colours)."""

    name: ClassVar[str] = "freestyle"
    exact_five: ClassVar[dict[Color, bool]] = {Color.BLACK: False, Color.WHITE: False}
    black_forbidden: ClassVar[bool] = False
    fixed_size: ClassVar[int | None] = None
    five_extension_is_three: ClassVar[bool] = False

    def makes_five(self, board: Board, point: Point, color: Color) -> bool:
        """Would (or does) a ``color`` stone on ``point`` complete a winning five?"""
        exact = self.exact_five[color]
        for direction in DIRECTIONS:
            n = run_length(board, point, color, direction)
            if n == 5 or (n > 5 and not exact):
                return True
        return False

    def forbidden_reason(self, board: Board, point: Point) -> ForbiddenReason | None:
        """Why Black may not play ``point`` in ``board`` (None: allowed)."""
        if not self.black_forbidden:
            return None
        return forbidden_reason(board, point, self.five_extension_is_three)

    def forbidden_points(self, board: Board) -> dict[Point, ForbiddenReason]:
        if not self.black_forbidden:
            return {}
        return forbidden_points(board, self.five_extension_is_three)

    def explain(self, board: Board, point: Point) -> Explanation:
        """The verdict for Black on ``point`` with the lines behind it."""
        return explain(board, point, self.five_extension_is_three)

    def move_outcome(self, board: Board, point: Point) -> Outcome | None:
        """What a stone of the side to move on ``point`` would do (board unchanged)."""
        color = board.turn
        board.push(point)
        try:
            if self.makes_five(board, point, color):
                return Outcome(Termination.FIVE, color)
        finally:
            board.pop()
        if color is Color.BLACK:
            reason = self.forbidden_reason(board, point)
            if reason is not None:
                return Outcome(Termination.FORBIDDEN, Color.WHITE, reason)
        return None

    def outcome(self, board: Board) -> Outcome | None:
        """The result of the game if its last move ended it, else None.

        A five counts first (a black five made together with a foul wins);
        then a black foul; then the full board and two passes in a row draw.
        """
        if not board.move_stack:
            return None
        last = board.peek()
        if last.point is not None:
            move = board.pop()
            try:
                result = self.move_outcome(board, last.point)
            finally:
                board.push(move)
            if result is not None:
                return result
            if board.is_full():
                return Outcome(Termination.FULL_BOARD, None)
        elif len(board.move_stack) >= 2 and board.move_stack[-2].is_pass:
            return Outcome(Termination.TWO_PASSES, None)
        return None


class Freestyle(Rules):
    """无禁手: five or more in a row wins, for both colours."""


class Standard(Rules):
    """Exactly five wins for both; an overline is simply no win."""

    name = "standard"
    exact_five = {Color.BLACK: True, Color.WHITE: True}


class Renju(Rules):
    """连珠 (RIF): Black wins with exactly five and may not make an overline,
    a double-four or a double-three; White wins with five or more.

    Decision D1 follows the RIF wording: a three whose only straight-four
    point would also make a five is not a three.
    """

    name = "renju"
    exact_five = {Color.BLACK: True, Color.WHITE: False}
    black_forbidden = True
    fixed_size = 15


class RenjuFiveExtension(Renju):
    """Renju with the other reading of D1 (rules.md §3.4, reading A): a three
    is real when its straight-four point is a legal Black move, and a move
    that makes five is always legal, so such a three counts."""

    name = "renju-a"
    five_extension_is_three = True


RULES: dict[str, type[Rules]] = {cls.name: cls for cls in (Freestyle, Standard, Renju, RenjuFiveExtension)}


def find_rules(name: str) -> Rules:
    """The rule set called ``name`` (``freestyle``, ``standard``, ``renju``, ``renju-a``)."""
    try:
        return RULES[name.lower()]()
    except KeyError:
        raise EngineError(
            f"unknown rule set {name!r}; choose one of {', '.join(RULES)}",
            "unknown_rules",
            name=name,
            choices=", ".join(RULES),
        ) from None
