"""Threats of one side, read off the rules' own line analysis.

For a colour to move, :class:`Threats` lists the points where a stone makes a
five, a four (with the points that would then complete it) or a straight four
(an open four: the move that turns a three into a win). For renju's Black a
point counts only when the move is legal: a "four" on a double-four point or a
three that is really a forbidden double-three is no threat, and a four whose
completion point is forbidden to Black cannot be completed. All of it comes
from :func:`engine.renju.side_line_info`, the cached per-line analysis the
forbidden-move judge uses, so the search and the referee agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Board
from engine.renju import FIVE, NONE, SHIFT, Judge, side_line_info
from engine.rules import Rules

BLACK, WHITE = 1, 2
Fours = tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Side:
    """How one colour wins under a rule set."""

    color: int
    exact: bool  # only exactly five wins (and an overline is not a five)
    restricted: bool  # renju's Black: forbidden moves


def side(rules: Rules, color: int) -> Side:
    from engine.notation import Color

    c = Color(color)
    return Side(color, rules.exact_five[c], rules.black_forbidden and color == BLACK)


class Threats:
    """The tactical facts of a position for both colours (the board is borrowed:
    the search places and removes stones on it and queries again).

    ``judge`` decides Black's legality and is shared across positions: its memo
    is keyed on the Zobrist hash, so it stays right as stones come and go.
    """

    def __init__(self, board: Board, rules: Rules) -> None:
        self.board = board
        self.rules = rules
        self.sides = {BLACK: side(rules, BLACK), WHITE: side(rules, WHITE)}
        self.judge = Judge(board, rules.five_extension_is_three)
        self.ok_codes = self.judge.ok_codes

    # -- legality ---------------------------------------------------------------

    def legal(self, index: int, color: int) -> bool:
        """May ``color`` play on the empty point ``index`` (renju's Black: not forbidden)?"""
        if not self.sides[color].restricted:
            return True
        return self.judge.status(index) in (NONE, FIVE)

    def forbidden(self, index: int) -> bool:
        """Is ``index`` forbidden to Black (never for free-style or White)?"""
        return self.sides[BLACK].restricted and self.judge.status(index) not in (NONE, FIVE)

    # -- reading the lines ---------------------------------------------------------

    def _entries(
        self, color: int, min_stones: int, near: int | None = None
    ) -> dict[int, list[tuple[int, int, int, Fours, Fours]]]:
        """point -> [(line, shift, kind, fours, threes)] over the lines holding at least ``min_stones`` of
        ``color`` (with ``near``: only the four lines through it); the fours' and threes' positions are
        window positions, ``shift`` less than the line's."""
        board = self.board
        geo = board.geometry
        exact = self.sides[color].exact
        cells = geo.cells
        counts = board.black_counts if color == BLACK else board.white_counts
        lines = range(len(cells)) if near is None else [geo.line_of[d][near] for d in range(4)]
        found: dict[int, list[tuple[int, int, int, Fours, Fours]]] = {}
        for line in lines:
            if counts[line] < min_stones:
                continue
            info = side_line_info(board, line, color, exact)
            line_cells = cells[line]
            for pos in range(len(info)):
                local = info[pos]
                if local is None:
                    continue
                index = line_cells[pos]
                entry = (line, pos - SHIFT, local[0], local[1], local[2])
                got = found.get(index)
                if got is None:
                    found[index] = [entry]
                else:
                    got.append(entry)
        return found

    def fives(self, color: int) -> list[int]:
        """Points where ``color`` completes a winning five now (the search asks at every node: read straight
        off the lines holding four or more of its stones)."""
        board = self.board
        cells = board.geometry.cells
        exact = self.sides[color].exact
        counts = board.black_counts if color == BLACK else board.white_counts
        found: set[int] = set()
        for line in range(len(cells)):
            if counts[line] < 4:
                continue
            line_cells = cells[line]
            info = side_line_info(board, line, color, exact)
            for pos in range(len(info)):
                entry = info[pos]
                if entry is not None and entry[0] == FIVE:
                    found.add(line_cells[pos])
        return sorted(found)

    def fours(self, color: int, near: int | None = None) -> dict[int, list[int]]:
        """Legal moves that make a four: point -> the points that would then complete five.

        Two or more completion points (a straight four, or White's double four)
        win outright. A renju Black four counts only where the move is legal
        (not a double-four, a four-three-three or an overline).
        """
        cells = self.board.geometry.cells
        result: dict[int, list[int]] = {}
        for index, entries in self._entries(color, 3, near).items():
            completions: set[int] = set()
            for line, shift, kind, fours, _threes in entries:
                if kind == FIVE:
                    break
                line_cells = cells[line]
                for _mask, points in fours:
                    completions.update(line_cells[q + shift] for q in points)
            else:
                if completions and self.legal(index, color):
                    result[index] = sorted(completions)
        return result

    def open_fours(self, color: int, near: int | None = None) -> list[int]:
        """Legal moves after which ``color`` has two or more points of five (a won position)."""
        return sorted(p for p, completions in self.fours(color, near).items() if len(completions) >= 2)

    def threes(self, color: int) -> list[int]:
        """Legal moves that make a real three: a move that leaves an open four one move away.

        For renju's Black the three is real only when that open-four move is
        itself legal (RIF 9.3), which :meth:`open_fours` checks.
        """
        board = self.board
        result = []
        for index, entries in sorted(self._entries(color, 2).items()):
            if not any(e[4] for e in entries) or not self.legal(index, color):
                continue
            board.place(index, color)
            try:
                if self.open_fours(color, near=index):
                    result.append(index)
            finally:
                board.remove(index)
        return result
