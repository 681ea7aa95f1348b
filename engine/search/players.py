"""Computer players: levels 1–5, moves and opening-protocol decisions.

=====  ============  ==========================================================
level  name          what it does
=====  ============  ==========================================================
1      beginner      the seeds' one-ply winning-line score, picked at random
                     among the six best in proportion to their score
2      novice        one ply with tactics: completes a five, blocks one, plays
                     a short VCF, answers an open three; a little randomness
3      club          alpha-beta to 3 plies (1,500 nodes) and a VCF of 10 fours
4      expert        alpha-beta to 4 plies (4,000 nodes) and a VCF of 12 fours;
                     refuses moves after which the opponent has a VCF
5      master        alpha-beta to 7 plies (60,000 nodes), its own VCF (24)
                     and VCT (10 threats, 40,000 nodes); refuses moves after
                     which the opponent has a VCF or a VCT (6,000 nodes per
                     candidate); a time limit as given
=====  ============  ==========================================================

Every level is deterministic for a seed while its node limits bind (a time
limit, given or not, only ever cuts a search short). Renju's Black never
picks a forbidden point; an opening stone always lies in the protocol's region.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.board import Board
from engine.errors import EngineError
from engine.gcpause import paused
from engine.notation import Color, Point
from engine.openings import find_opening, identify, load_openings
from engine.protocols import Action, OpeningState
from engine.rules import Rules
from engine.search.alphabeta import AlphaBeta
from engine.search.evaluate import WIN, evaluate, scored_points
from engine.search.solver import Solver
from engine.search.threats import Threats


@dataclass(frozen=True)
class Level:
    number: int
    name: str
    depth: int = 0  # alpha-beta plies (0: one-ply scoring)
    nodes: int = 0
    vcf: int = 0  # own VCF depth (attacker moves); 0: none
    vct: int = 0  # own VCT depth; 0: none
    guard: int = 0  # refuse moves after which the opponent has a VCF (1) or a VCT (2)
    vct_nodes: int = 0  # the own VCT's node limit (default 2,000 per level)
    guard_nodes: int = 1_500  # the opponent VCT's node limit per candidate (guard 2)
    roots: int = 14  # candidate moves searched at the root
    tactics: bool = False  # fives, blocks, open threes answered
    pick: int = 1  # choose at random among this many of the best moves
    margin: int = 0  # ... that are within this margin of the best score


LEVELS: dict[int, Level] = {
    1: Level(1, "beginner", pick=6),
    2: Level(2, "novice", vcf=4, tactics=True, pick=3, margin=60),
    3: Level(3, "club", depth=3, nodes=1_500, vcf=10, tactics=True, pick=2, margin=20),
    4: Level(4, "expert", depth=4, nodes=4_000, vcf=12, guard=1, tactics=True, pick=2, margin=10),
    5: Level(
        5,
        "master",
        depth=7,
        nodes=60_000,
        vcf=24,
        vct=10,
        vct_nodes=40_000,
        guard=2,
        guard_nodes=6_000,
        tactics=True,
        pick=2,
        margin=4,
    ),
}


def find_level(number: int) -> Level:
    try:
        return LEVELS[number]
    except KeyError:
        from engine.errors import EngineError

        raise EngineError(f"level must be 1 to 5, got {number}", "bad_level", level=number) from None


class ComputerPlayer:
    """A computer player of one level; ``seed`` fixes its choices among equals."""

    def __init__(
        self,
        rules: Rules,
        level: int | Level = 3,
        seed: int = 0,
        seconds: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.rules = rules
        self.level = level if isinstance(level, Level) else find_level(level)
        self.rng = random.Random(seed)
        self.seconds = seconds
        self.clock = clock

    # -- board moves -----------------------------------------------------------------

    def best_move(self, board: Board, allowed: Iterable[Point] | None = None) -> Point:
        """The move for the side to move (``allowed``: only these points, as in an opening region)."""
        work = board.copy()
        size = work.size
        only = None if allowed is None else {p.index(size) for p in allowed}
        with paused():
            index = self._choose(work, only)
        return Point.from_index(index, size)

    def _legal_points(self, work: Board, t: Threats, me: int, only: set[int] | None) -> list[int]:
        pool = only if only is not None else {i for i, v in enumerate(work.stones) if v == 0}
        return sorted(i for i in pool if work.stones[i] == 0 and t.legal(i, me))

    def _choose(self, work: Board, only: set[int] | None) -> int:
        level = self.level
        clock = self.clock or time.monotonic
        # One deadline for the whole move: the solvers, the guard and the alpha-beta share it.
        deadline = None if self.seconds is None else clock() + self.seconds
        me = 1 if work.stone_count % 2 == 0 else 2
        t = Threats(work, self.rules)
        legal = self._legal_points(work, t, me, only)
        if not legal:
            raise EngineError("no legal move is left", "no_legal_move")
        legal_set = set(legal)
        if work.stone_count == 0:
            centre = (work.size // 2) * work.size + work.size // 2
            return centre if centre in legal_set else legal[0]
        scored = [(s, i) for s, i in scored_points(work, me) if i in legal_set]
        if not scored:
            scored = [(0.0, i) for i in legal]
        if level.number == 1:
            return self._weighted(scored[:6])
        forced = self._tactics(work, t, me, legal_set, deadline, clock)
        if forced is not None:
            return forced
        if level.depth == 0:
            return self._pick(self._answers(work, t, me, scored))
        return self._searched(work, me, scored, deadline, clock)

    def _tactics(
        self, work: Board, t: Threats, me: int, legal: set[int], deadline: float | None, clock: Callable[[], float]
    ) -> int | None:
        """A five; a block of the opponent's five; our forced win (VCF, then VCT, as the level allows)."""
        level = self.level
        for i in t.fives(me):
            if i in legal:
                return i
        theirs = [i for i in t.fives(3 - me) if i in legal]
        if theirs:
            return theirs[0]
        solvers: list[tuple[bool, int, int]] = []  # (threes too, depth, nodes)
        if level.vcf:
            solvers.append((False, level.vcf, 4_000 * level.number))
        if level.vct:
            solvers.append((True, level.vct, level.vct_nodes or 2_000 * level.number))
        for threes, depth, nodes in solvers:
            solver = Solver(work, self.rules, threes=threes, depth=depth, nodes=nodes, deadline=deadline, clock=clock)
            line = solver.solve()
            if line and line[0] in legal:
                return line[0]
        return None

    def _searched(
        self,
        work: Board,
        me: int,
        scored: list[tuple[float, int]],
        deadline: float | None,
        clock: Callable[[], float],
    ) -> int:
        """The alpha-beta's choice among the best-scored roots (those the guard does not lose at once first)."""
        level = self.level
        roots = [i for _s, i in scored[: level.roots]]
        if level.guard:
            roots = (
                self._guarded(work, me, roots, level.guard, deadline)
                or self._guarded(
                    work, me, [i for _s, i in scored[level.roots : level.roots * 2]], level.guard, deadline
                )
                or roots
            )
        left = None if deadline is None else max(0.0, deadline - clock())
        search = AlphaBeta(work, self.rules, max_depth=level.depth, nodes=level.nodes, seconds=left)
        search.clock = clock
        result = search.run(roots)
        ranked = sorted(result.scores.items(), key=lambda item: (-item[1], roots.index(item[0])))
        if not ranked:
            return roots[0]
        if abs(ranked[0][1]) >= WIN - 100:
            return ranked[0][0]
        return self._pick([(float(s), i) for i, s in ranked])

    def _answers(self, work: Board, t: Threats, me: int, scored: list[tuple[float, int]]) -> list[tuple[float, int]]:
        """One-ply moves: if the opponent threatens an open four, only the moves that stop it (or our fours)."""
        threats = t.open_fours(3 - me)
        if not threats:
            return scored
        stop = []
        for score, i in scored[:30]:
            work.place(i, me)
            try:
                if not t.open_fours(3 - me) or t.fives(me):
                    stop.append((score, i))
            finally:
                work.remove(i)
        return stop or scored

    def _guarded(self, work: Board, me: int, roots: list[int], guard: int, deadline: float | None = None) -> list[int]:
        """The root moves after which the opponent has no VCF (and, with ``guard`` 2, no VCT); past the
        deadline the moves not yet checked are kept unchecked."""
        safe: list[int] = []
        clock = self.clock or time.monotonic
        for n, i in enumerate(roots):
            if deadline is not None and clock() > deadline:
                return safe + roots[n:] if safe else []
            work.place(i, me)
            try:
                if Solver(work, self.rules, depth=12, nodes=600, deadline=deadline, clock=clock).solve() is not None:
                    continue
                nodes = self.level.guard_nodes
                vct = Solver(work, self.rules, threes=True, depth=5, nodes=nodes, deadline=deadline, clock=clock)
                if guard >= 2 and vct.solve() is not None:
                    continue
                safe.append(i)
            finally:
                work.remove(i)
        return safe

    def _weighted(self, scored: list[tuple[float, int]]) -> int:
        weights = [max(s, 1.0) for s, _i in scored]
        return self.rng.choices([i for _s, i in scored], weights=weights)[0]

    def _pick(self, scored: list[tuple[float, int]]) -> int:
        level = self.level
        best = scored[0][0]
        near = [i for s, i in scored[: level.pick] if best - s <= level.margin]
        return near[0] if len(near) == 1 else self.rng.choice(near)

    # -- judging positions --------------------------------------------------------

    def black_value(self, board: Board, depth: int = 2) -> int:
        """The position's worth to Black by a short search (for swaps and choices)."""
        work = board.copy()
        me = 1 if work.stone_count % 2 == 0 else 2
        t = Threats(work, self.rules)
        if t.fives(me):
            return WIN if me == 1 else -WIN
        search = AlphaBeta(work, self.rules, max_depth=depth, nodes=800)
        result = search.run()
        if result.move is None:
            value = evaluate(work)
            return value
        return result.score if me == 1 else -result.score

    # -- opening protocols -----------------------------------------------------------

    def decide(self, state: OpeningState) -> Action:
        """This player's action in an opening protocol (the actor is assumed to be us)."""
        expects = state.expects
        board = state.board()
        mine = state.color_of(state.actor)
        if expects == "place":
            return Action.place(self._opening_stone(state, board))
        if expects == "swap":
            return Action.swap(self._wants(board, state, other_than=mine))
        if expects == "declare":
            step = state.current
            high = step.high or state.options.max_n
            return Action.declare(self._declared(board, step.low, high))
        if expects == "offer":
            return Action.offer(self._offers(board, state))
        if expects == "choose":
            return Action.choose(self._choice(board, state.offers))
        if expects == "color":
            value = self.black_value(board)
            return Action.choose_color(Color.BLACK if value >= 0 else Color.WHITE)
        if expects == "branch":
            return Action.branch(1)
        if expects == "swap2":
            value = self.black_value(board)
            if value > 150:
                return Action.choose_color(Color.BLACK)
            if value < -150:
                return Action.choose_color(Color.WHITE)
            return Action.place(self._opening_stone(state, board))
        raise ValueError(f"no decision for {expects}")

    def _opening_stone(self, state: OpeningState, board: Board) -> Point:
        legal = state.legal_points()
        placed = [m.point for m in state.moves if m.point is not None]
        if len(placed) < 3 and {"swap", "color", "swap2"} & {step.kind for step in state.steps}:
            target = self._balanced_opening(placed, legal)
            if target is not None:
                return target
        if state.expects == "swap2" or (state.current.actor in ("P1", "P2") and len(placed) >= 3):
            # Stones laid for a later colour choice: keep the position balanced.
            return self._balancing_stone(board, legal)
        return self.best_move(board, legal)

    def _balanced_opening(self, placed: list[Point], legal: set[Point]) -> Point | None:
        """The next stone of a balanced standard opening consistent with the stones so far."""
        choices = [o for o in load_openings() if o.is_standard and o.yamaguchi_verdict(2).value == "balanced"]
        if not choices:
            choices = [find_opening("2D")]
        order = list(choices)
        self.rng.shuffle(order)
        for opening in order:
            stones = list(opening.stones)
            if stones[: len(placed)] == placed and stones[len(placed)] in legal:
                return stones[len(placed)]
        return None

    def _balancing_stone(self, board: Board, legal: set[Point]) -> Point:
        work = board.copy()
        me = 1 if work.stone_count % 2 == 0 else 2
        t = Threats(work, self.rules)
        size = work.size
        allowed = {p.index(size) for p in legal}
        options = [i for _s, i in scored_points(work, me) if i in allowed and t.legal(i, me)][:8]
        if not options:
            return self.best_move(board, legal)
        best, best_gap = options[0], None
        for i in options:
            work.place(i, me)
            try:
                gap = abs(evaluate(work))
            finally:
                work.remove(i)
            if best_gap is None or gap < best_gap:
                best, best_gap = i, gap
        return Point.from_index(best, size)

    def _wants(self, board: Board, state: OpeningState, other_than: Color) -> bool:
        """Swap? True when the colour we do not hold is the better one."""
        verdict = self._table_verdict(state)
        if verdict in ("black_wins", "black_better"):
            better = Color.BLACK
        elif verdict in ("white_wins", "white_better"):
            better = Color.WHITE
        else:
            better = Color.BLACK if self.black_value(board) > 0 else Color.WHITE
        return better is not other_than

    def _table_verdict(self, state: OpeningState) -> str | None:
        placed = [m.point for m in state.moves if m.point is not None]
        if len(placed) != 3 or state.declared_n is None:
            return None
        found = identify(placed)
        return None if found is None else found.opening.yamaguchi_verdict(state.declared_n).value

    def _declared(self, board: Board, low: int, high: int) -> int:
        placed = [m.point for m in board.move_stack if m.point is not None]
        found = identify(placed) if len(placed) == 3 else None
        if found is not None:
            for n in range(low, high + 1):
                if found.opening.yamaguchi_verdict(n).value == "balanced":
                    return n
        return max(low, min(high, 2))

    def _offers(self, board: Board, state: OpeningState) -> list[Point]:
        """Black's fifth-move offers: the best black moves, no two symmetric."""
        from engine.offers import symmetric_pairs

        count = state.offer_count or 1
        work = board.copy()
        t = Threats(work, self.rules)
        black = [m.point for m in state.moves[0::2] if m.point is not None]
        white = [m.point for m in state.moves[1::2] if m.point is not None]
        chosen: list[Point] = []
        ranked = [Point.from_index(i, work.size) for _s, i in scored_points(work, 1) if t.legal(i, 1)]
        ranked += [p for p in board.empty_points() if p not in ranked and t.legal(p.index(work.size), 1)]
        for point in ranked:
            if len(chosen) == count:
                break
            if state.options.forbid_symmetric_offers and symmetric_pairs(black, white, [*chosen, point]):
                continue
            chosen.append(point)
        return chosen

    def _choice(self, board: Board, offers: tuple[Point, ...]) -> Point:
        """White picks the offer that leaves Black the least."""
        best, best_value = offers[0], None
        for point in offers:
            work = board.copy()
            work.push(point)
            value = self.black_value(work, depth=2)
            if best_value is None or value < best_value:
                best, best_value = point, value
        return best


def play_out(
    rules: Rules, black: ComputerPlayer, white: ComputerPlayer, moves: Iterable[Point] = (), limit: int | None = None
) -> tuple[Board, Color | None]:
    """Play a game between two computer players from ``moves``; the final board and the winner (None: a draw).

    A game ends on a five, a foul (never made by these players), a full board or ``limit`` stones.
    """
    board = Board()
    for point in moves:
        board.push(point)
    cap = board.size * board.size if limit is None else limit
    while board.stone_count < cap:
        player = black if board.turn is Color.BLACK else white
        point = player.best_move(board)
        outcome = rules.move_outcome(board, point)
        board.push(point)
        if outcome is not None:
            return board, outcome.winner
    return board, None
