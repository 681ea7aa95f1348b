"""Synthetic players for the null model and the benchmark (no Django): honest players of three strengths, and
cheaters who take a strong engine's move on some of their real choices.

An **honest player** of a band is the computer at that band's level with human-like noise: on a share of its
moves it plays one of the five best points by the one-ply score instead (the better ones more often), and it
thinks longer when more moves look good and answers threats fast. A **cheater** is an honest player of its
band who, on a fraction ``f`` of the positions where the choice is real (no five to make or stop), plays the
strong engine's move instead, thinking a steady 6–14 s, as someone copying from another window does; or, with
``critical``, only on that many positions a game where the position is sharp (the best one-ply score far
ahead of the second). The strong engine is the computer's top level, or an outside engine through the
Gomocup protocol (bench/fairplay.py ``--engine``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.board import Board
from engine.notation import Color, Point
from engine.rules import Rules
from engine.search.evaluate import scored_points
from engine.search.players import ComputerPlayer
from engine.search.threats import Threats

Engine = Callable[[Board], Point]


@dataclass(frozen=True)
class Profile:
    name: str
    level: int
    noise: float  # the share of moves picked among the five best by the one-ply score
    low: int  # the band's lowest rating, as the calibration maps ratings to bands


PROFILES = {
    "novice": Profile("novice", 2, 0.35, 0),
    "club": Profile("club", 3, 0.25, 1500),
    "expert": Profile("expert", 4, 0.12, 2000),
}


def _legal_scored(board: Board, rules: Rules) -> tuple[list[tuple[float, int]], Threats, int]:
    me = 1 if board.stone_count % 2 == 0 else 2
    threats = Threats(board, rules)
    return [(s, i) for s, i in scored_points(board, me) if threats.legal(i, me)], threats, me


class Honest:
    def __init__(self, profile: Profile, rules: Rules, seed: int) -> None:
        self.profile, self.rules = profile, rules
        self.rng = random.Random(seed)
        self.computer = ComputerPlayer(rules, profile.level, seed=seed)

    def think_ms(self, scored: list[tuple[float, int]], urgent: bool) -> int:
        """Longer when several moves look good, short when a threat must be answered."""
        if urgent:
            return int(self.rng.lognormvariate(7.4, 0.4))  # about 1.6 s
        best = scored[0][0] if scored else 1.0
        close = sum(1 for s, _i in scored[:8] if s >= 0.7 * best)
        return int(self.rng.lognormvariate(7.8 + 0.25 * close, 0.6))  # 3–15 s, longer when it is hard

    def honest_move(self, board: Board) -> tuple[Point, int]:
        scored, threats, me = _legal_scored(board, self.rules)
        urgent = bool(threats.fives(me) or threats.fives(3 - me))
        if board.stone_count and not urgent and scored and self.rng.random() < self.profile.noise:
            top = scored[:5]
            index = self.rng.choices([i for _s, i in top], weights=[5, 4, 3, 2, 1][: len(top)])[0]
            point = Point.from_index(index, board.size)
        else:
            point = self.computer.best_move(board)
        return point, self.think_ms(scored, urgent)

    def move(self, board: Board) -> tuple[Point, int]:
        return self.honest_move(board)


class Cheater(Honest):
    def __init__(
        self, profile: Profile, rules: Rules, seed: int, engine: Engine, fraction: float = 1.0, critical: int = 0
    ) -> None:
        super().__init__(profile, rules, seed)
        self.engine, self.fraction, self.critical = engine, fraction, critical
        self.consulted = 0

    def move(self, board: Board) -> tuple[Point, int]:
        scored, threats, me = _legal_scored(board, self.rules)
        real = board.stone_count > 2 and not threats.fives(me) and not threats.fives(3 - me) and len(scored) > 1
        if real and self._consults(scored):
            self.consulted += 1
            return self.engine(board), int(self.rng.uniform(6_000, 14_000))
        return self.honest_move(board)

    def _consults(self, scored: list[tuple[float, int]]) -> bool:
        if self.critical:
            sharp = scored[0][0] >= 1.6 * max(1.0, scored[1][0])
            return sharp and self.consulted < self.critical
        return self.rng.random() < self.fraction


def strong_engine(rules: Rules, seed: int = 0, level: int = 5) -> Engine:
    """The computer's top level as the cheater's engine."""
    computer = ComputerPlayer(rules, level, seed=seed)
    return computer.best_move


def play(black: Honest, white: Honest, rules: Rules, limit: int = 120) -> tuple[list[str], list[int | None]]:
    """A game between two synthetic players to a five (or ``limit`` stones): its stones and think times."""
    board = Board()
    stones: list[str] = []
    times: list[int | None] = []
    for n in range(limit):
        player = black if n % 2 == 0 else white
        point, think = player.move(board)
        colour = Color.BLACK if n % 2 == 0 else Color.WHITE
        five = rules.makes_five(board, point, colour)
        board.push(point)
        stones.append(str(point))
        times.append(think)
        if five:
            break
    return stones, times
