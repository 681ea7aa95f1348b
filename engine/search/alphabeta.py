"""Alpha-beta (negamax) with iterative deepening and a transposition table.

Moves are generated and ordered by the seeds' point score
(:func:`engine.search.evaluate.scored_points`) and cut to a beam that narrows
with depth; forced replies come first and alone: a five is played, a
threatened five is blocked (and if it cannot be, the position is lost), and
renju's Black never considers a forbidden point. Leaves are scored by the
winning-line evaluation. Limits: depth, nodes and wall-clock time; with the
node limit binding, the result depends on nothing but the position.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.board import Board
from engine.gcpause import paused
from engine.rules import Rules
from engine.search.evaluate import WIN, evaluate_to_move, ranked_points
from engine.search.threats import Threats

EXACT, LOWER, UPPER = 0, 1, 2


class OutOfTime(Exception):
    pass


@dataclass
class Result:
    move: int | None
    score: int
    depth: int
    nodes: int
    scores: dict[int, int] = field(default_factory=dict)  # root move -> score at the last finished depth
    by_depth: list[dict[int, int]] = field(default_factory=list)  # the root moves' scores at each finished depth


@dataclass
class AlphaBeta:
    board: Board
    rules: Rules
    max_depth: int = 4
    nodes: int = 20_000
    seconds: float | None = None
    beam: tuple[int, ...] = (12, 9, 7, 6, 5, 5, 4, 4)
    clock: Callable[[], float] = time.monotonic
    visited: int = 0
    threats: Threats = field(init=False)
    table: dict[int, tuple[int, int, int, int | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.threats = Threats(self.board, self.rules)

    def run(self, root_moves: list[int] | None = None) -> Result:
        """Search deeper and deeper until a limit; the best move of the last finished depth."""
        with paused():
            return self._run(root_moves)

    def _run(self, root_moves: list[int] | None) -> Result:
        clock = self.clock
        assert callable(clock)
        self._deadline = None if self.seconds is None else clock() + self.seconds
        moves = root_moves if root_moves is not None else self.candidates(0)
        best = Result(moves[0] if moves else None, 0, 0, 0)
        finished: list[dict[int, int]] = []
        for depth in range(1, self.max_depth + 1):
            try:
                scores: dict[int, int] = {}
                alpha = -WIN * 2
                ordered = sorted(moves, key=lambda m: -best.scores.get(m, -WIN * 3)) if best.scores else moves
                for move in ordered:
                    self._place(move)
                    try:
                        score = -self._negamax(depth - 1, -WIN * 2, -alpha, 1)
                    finally:
                        self._remove(move)
                    scores[move] = score
                    alpha = max(alpha, score)
                move = max(ordered, key=lambda m: scores[m])
                finished.append(scores)
                best = Result(move, scores[move], depth, self.visited, scores, finished)
                if abs(scores[move]) >= WIN - 100:
                    break  # a forced win or loss is known: deeper will not change it
            except OutOfTime:
                break
        best.nodes = self.visited
        return best

    # -- the tree ------------------------------------------------------------------

    def _place(self, index: int) -> None:
        board = self.board
        board.place(index, 1 if board.stone_count % 2 == 0 else 2)

    def _remove(self, index: int) -> None:
        self.board.remove(index)

    def _tick(self) -> None:
        self.visited += 1
        if self.visited >= self.nodes:
            raise OutOfTime
        if self._deadline is not None and self.visited % 256 == 0:
            clock = self.clock
            assert callable(clock)
            if clock() > self._deadline:
                raise OutOfTime

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        board = self.board
        me = 1 if board.stone_count % 2 == 0 else 2
        t = self.threats
        if t.fives(me):
            return WIN - ply
        theirs = t.fives(3 - me)
        if len(theirs) >= 2 or (theirs and not t.legal(theirs[0], me)):
            return -(WIN - ply - 1)
        if board.stone_count >= board.size * board.size:
            return 0
        if depth <= 0 and not theirs:
            sides = t.sides
            return evaluate_to_move(board, me, sides[1].exact, sides[2].exact)
        key = board.hash
        entry = self.table.get(key)
        best_move = None
        if entry is not None:
            known = _known(entry, depth, alpha, beta)
            if known is not None:
                return known
            best_move = entry[3]
        moves = [theirs[0]] if theirs else self.candidates(ply)
        if not moves:
            return 0
        if best_move is not None and best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        start_alpha = alpha
        best = -WIN * 2
        chosen = moves[0]
        for move in moves:
            board.place(move, me)
            try:
                # A forced block does not use up depth: the reply is the same line of play.
                score = -self._negamax(depth - (0 if theirs else 1), -beta, -alpha, ply + 1)
            finally:
                board.remove(move)
            if score > best:
                best, chosen = score, move
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        flag = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        self.table[key] = (depth, best, flag, chosen)
        return best

    def candidates(self, ply: int) -> list[int]:
        """The side to move's moves worth searching, best first, legal only."""
        board = self.board
        me = 1 if board.stone_count % 2 == 0 else 2
        width = self.beam[min(ply, len(self.beam) - 1)]
        result = []
        for index in ranked_points(board, me):
            if self.threats.legal(index, me):
                result.append(index)
                if len(result) >= width:
                    break
        if not result and board.stone_count == 0:
            result = [(board.size // 2) * board.size + board.size // 2]
        return result


def _known(entry: tuple[int, int, int, int | None], depth: int, alpha: int, beta: int) -> int | None:
    """The value the transposition table already gives this position at this depth and window, if any."""
    e_depth, e_value, e_flag, _move = entry
    if e_depth < depth:
        return None
    if e_flag == EXACT or (e_flag == LOWER and e_value >= beta) or (e_flag == UPPER and e_value <= alpha):
        return e_value
    return None
