"""Results for simulated rounds (tests, benchmarks, ``simulate_tournament``): plain Python, seeded."""

from __future__ import annotations

import random

from tournament.swiss.pairing import Board
from tournament.swiss.state import FIRST, SECOND, RoundRecord, SwissState


def expected(rating: int, other: int) -> float:
    return 1 / (1 + 10 ** ((other - rating) / 400))


def result(rng: random.Random, first_rating: int, second_rating: int, draw_rate: float = 0.15) -> str:
    """The first player's TRF result: a draw at ``draw_rate``, otherwise a win by the Elo expectation."""
    if rng.random() < draw_rate:
        return "="
    return "1" if rng.random() < expected(first_rating or 1500, second_rating or 1500) else "0"


def play(state: SwissState, boards: list[Board], rng: random.Random) -> None:
    """Append the round's results to ``state``: games by rating, byes, absences."""
    numbers = state.by_number()
    seen: set[int] = set()
    for board in boards:
        first = numbers[board.first]
        seen.add(board.first)
        if board.second is None:
            first.rounds.append(RoundRecord(None, None, "U"))
            continue
        second = numbers[board.second]
        seen.add(board.second)
        code = result(rng, first.rating, second.rating)
        first.rounds.append(RoundRecord(second.number, FIRST, code))
        second.rounds.append(RoundRecord(first.number, SECOND, {"1": "0", "0": "1", "=": "="}[code]))
    for player in state.players:
        if player.number not in seen:
            player.rounds.append(RoundRecord(None, None, state.preassigned.get(player.number, "Z")))
    state.preassigned = {}
    state.absent = set()
