"""Forced wins: VCF (victory by continuous fours) and VCT (fours and threes).

An AND/OR search over threats. The attacker (the side to move) plays only
threats; the defender answers only what stops them. Renju is respected in
both directions:

- a renju Black four or three counts only where the move is legal, so a
  "four-three" that is really a double-four (or a four-three-three) is no
  threat at all, and Black's fours complete only with exactly five;
- when White makes a four whose only completion point is forbidden to Black,
  Black cannot block it: White wins (the classic forbidden-point trap);
- the defender may always answer with a five of its own, and a four of its
  own forces the attacker to block before going on.

Results are proved, not guessed: a returned line is a forced win under the
rules, checked move by move. ``None`` means "no win found within the limits"
(depth, nodes), not "no win exists" unless the search finished under them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.board import Board
from engine.gcpause import paused
from engine.notation import Point
from engine.rules import Rules
from engine.search.threats import Threats


class Budget(Exception):
    """The node limit (or the time limit) ran out."""


@dataclass
class Solver:
    """One search over a borrowed board (left as found).

    ``threes``: VCT (fours and threes) instead of VCF (fours only).
    ``depth``: the attacker's moves at most; ``nodes``: positions visited at most; ``deadline``: a time on
    ``clock`` after which the search gives up (checked every 64 positions), so a search in a dense position
    keeps the caller's time budget whatever a node costs there.
    """

    board: Board
    rules: Rules
    threes: bool = False
    depth: int = 30
    nodes: int = 200_000
    deadline: float | None = None
    clock: Callable[[], float] = time.monotonic
    visited: int = 0
    threats: Threats = field(init=False)
    _failed: dict[tuple[int, int], int] = field(default_factory=dict)
    _counter: dict[tuple[int, int], bool] = field(default_factory=dict)
    _vcf_failed: dict[tuple[int, int], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.threats = Threats(self.board, self.rules)

    def _tick(self) -> None:
        self.visited += 1
        if self.visited > self.nodes:
            raise Budget
        if self.deadline is not None and self.visited % 64 == 0 and self.clock() > self.deadline:
            raise Budget

    def solve(self) -> list[int] | None:
        """The attacker's winning line (attacker and defender moves alternating,
        starting with the attacker's), or None."""
        attacker = 1 if self.board.stone_count % 2 == 0 else 2
        with paused():
            try:
                return self._attack(attacker, self.depth)
            except Budget:
                return None

    # -- the OR node: the attacker picks one threat ---------------------------------

    def _attack(self, me: int, depth: int) -> list[int] | None:
        self._tick()
        t = self.threats
        you = 3 - me
        mine = t.fives(me)
        if mine:
            return [mine[0]]
        if depth <= 0:
            return None
        key = (self.board.hash, me)
        if self._failed.get(key, -1) >= depth:
            return None
        theirs = t.fives(you)
        fours = t.fours(me)
        if theirs:
            # The defender threatens five: block it, and only a block that is itself a four keeps the initiative.
            if len(theirs) > 1 or not t.legal(theirs[0], me):
                return None
            moves = [theirs[0]] if theirs[0] in fours else []
            if self.threes and not moves and theirs[0] not in fours:
                moves = [theirs[0]] if self._is_three(theirs[0], me) else []
        else:
            moves = self._order(me, list(fours))
            if self.threes:
                vcf = self._vcf(me)
                if vcf is not None:
                    return vcf
                moves = [p for p in self._order(me, t.threes(me)) if p not in fours] + moves
        board = self.board
        for p in moves:
            board.place(p, me)
            try:
                line = self._defend(me, depth - 1)
            finally:
                board.remove(p)
            if line is not None:
                return [p, *line]
        self._failed[key] = depth
        return None

    def _is_three(self, index: int, me: int) -> bool:
        board = self.board
        board.place(index, me)
        try:
            return bool(self.threats.open_fours(me, near=index))
        finally:
            board.remove(index)

    # -- the AND node: every defence must fail ---------------------------------

    def _defend(self, me: int, depth: int) -> list[int] | None:
        """The defender to move after the attacker's threat; a line if every answer loses."""
        self._tick()
        t = self.threats
        you = 3 - me
        if t.fives(you):
            return None  # the defender completes five first
        completions = t.fives(me)
        if len(completions) >= 2:
            return [completions[0], completions[1]]  # one is blocked, the other completes
        if len(completions) == 1:
            q = completions[0]
            if not t.legal(q, you):
                return []  # the only block is forbidden to Black: nothing stops White's five
            self.board.place(q, you)
            try:
                rest = self._attack(me, depth)
            finally:
                self.board.remove(q)
            return None if rest is None else [q, *rest]
        if not self.threes:
            return None
        open_fours = t.open_fours(me)
        if not open_fours:
            return None  # no threat left: the attack has stalled
        if self._defender_vcf(you):
            return None
        defences = self._defences(me, open_fours)
        defences += [p for p in t.fours(you) if p not in defences]
        first: list[int] | None = None
        board = self.board
        for r in defences:
            if not t.legal(r, you):
                continue
            board.place(r, you)
            try:
                rest = self._attack(me, depth)
            finally:
                board.remove(r)
            if rest is None:
                return None
            if first is None:
                first = [r, *rest]
        return first if first is not None else []  # no legal defence at all

    def _vcf(self, me: int, depth: int = 12) -> list[int] | None:
        """A VCF for ``me`` (to move) inside this search's budget (fours only, shared threat reader)."""
        sub = Solver(
            self.board,
            self.rules,
            threes=False,
            depth=depth,
            nodes=max(500, self.nodes - self.visited),
            deadline=self.deadline,
            clock=self.clock,
        )
        sub.threats = self.threats
        sub._failed = self._vcf_failed
        line = sub.solve_as(me)
        self.visited += sub.visited
        if self.visited > self.nodes or (self.deadline is not None and self.clock() > self.deadline):
            raise Budget  # the sub-search may have given up: its None is no answer
        return line

    def _defender_vcf(self, you: int) -> bool:
        """Can the defender, to move, win by continuous fours and ignore the three?"""
        key = (self.board.hash, you)
        known = self._counter.get(key)
        if known is None:
            known = self._counter[key] = self._vcf(you) is not None
        return known

    def defends_fail(self, me: int) -> bool:
        """With the defender to move after ``me``'s last stone: does every defence lose? (Raises Budget.)"""
        return self._defend(me, self.depth) is not None

    def solve_as(self, me: int) -> list[int] | None:
        try:
            return self._attack(me, self.depth)
        except Budget:
            return None

    def _defences(self, me: int, open_fours: list[int]) -> list[int]:
        """The defender's points that leave the attacker no open four.

        Candidates are the open-four points and the empty points on the lines
        through them within four steps; each is tried.
        """
        board = self.board
        geo = board.geometry
        candidates: set[int] = set(open_fours)
        for q in open_fours:
            for d in range(4):
                line_cells = geo.cells[geo.line_of[d][q]]
                pos = geo.pos_of[d][q]
                for i in range(max(0, pos - 4), min(len(line_cells), pos + 5)):
                    if board.stones[line_cells[i]] == 0:
                        candidates.add(line_cells[i])
        you = 3 - me
        result = []
        for r in sorted(candidates, key=lambda i: (i not in open_fours, i)):
            board.place(r, you)
            try:
                if not any(self.threats.open_fours(me, near=q) for q in open_fours if board.stones[q] == 0):
                    result.append(r)
            finally:
                board.remove(r)
        return result

    def _order(self, me: int, moves: list[int]) -> list[int]:
        """Threats near the last stones first (they are the ones that connect)."""
        board = self.board
        size = board.size
        recent = [m.point.index(size) for m in board.move_stack[-4:] if m.point is not None]
        own = [i for i, v in enumerate(board.stones) if v == me]

        def closeness(i: int) -> tuple[int, int, int]:
            c, r = i % size, i // size
            near_own = sum(1 for j in own if max(abs(j % size - c), abs(j // size - r)) <= 2)
            near_recent = min((max(abs(j % size - c), abs(j // size - r)) for j in recent), default=9)
            return (-near_own, near_recent, i)

        return sorted(moves, key=closeness)


def _points(board: Board, line: list[int]) -> list[Point]:
    return [Point.from_index(i, board.size) for i in line]


def find_vcf(board: Board, rules: Rules, depth: int = 30, nodes: int = 200_000) -> list[Point] | None:
    """A forced win by continuous fours for the side to move: the moves of both
    sides in order, or None within the limits. The line starts and ends with
    the attacker's move: its five, or a four the defender cannot stop (an open
    four; or, against renju's Black, a four whose only block is forbidden).

    >>> from engine import Renju
    >>> board = Board.replay("h8 g8 i8 a1 j8 a3 k9 a5 k10 o15")
    >>> " ".join(str(p) for p in find_vcf(board, Renju()))
    'k8 l8 k7 k6 k11'
    """
    work = board.copy()
    line = Solver(work, rules, threes=False, depth=depth, nodes=nodes).solve()
    return None if line is None else _points(board, line)


def find_vct(board: Board, rules: Rules, depth: int = 8, nodes: int = 60_000) -> list[Point] | None:
    """A forced win by fours and threes (the main line: the defender's first
    listed answer each time), or None within the limits."""
    work = board.copy()
    line = Solver(work, rules, threes=True, depth=depth, nodes=nodes).solve()
    return None if line is None else _points(board, line)
