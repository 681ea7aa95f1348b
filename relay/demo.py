"""The demo's relay (``manage.py load_demo``): the demo tournament's first boards in play recorded at the board
by the organizer, some stones each, so the multiboard (/t/<id>/relay/), a relayed game's page and the
projector's multiboard show something on a fresh machine. Idempotent: a board already relayed is left."""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model

from games.enums import GameMode, GameStatus
from games.models import Game
from relay.models import RelayMove
from relay.services import relay_enter
from tournament.models import Tournament

# Stones that make no five and no forbidden shape for black, played out from the centre.
OPENINGS = [
    ["h8", "h9", "j10", "g7", "j8", "k8", "g9"],
    ["h8", "j9", "g9", "g7", "j7", "h10"],
    ["h8", "i9", "g9", "i8", "i7", "g10", "h6", "j8"],
    ["h8", "g9", "j9", "h10", "k10", "g8"],
]


def load_demo_relay(tournament: Tournament, boards: int = 4, seed: int = 2026) -> int:
    """Relay ``boards`` of the tournament's games in play (over the board), as its organizer records them;
    the number of boards relayed."""
    organizer = get_user_model().objects.filter(username="organizer").first()
    if organizer is None or tournament.mode != GameMode.OVER_THE_BOARD:
        return 0
    rng = random.Random(seed)
    games = Game.objects.filter(
        match_game__match__tournament=tournament, status__in=GameStatus.active(), mode=GameMode.OVER_THE_BOARD
    ).order_by("board_number", "pk")[:boards]
    for game in games:
        if RelayMove.objects.filter(game=game).exists():
            continue
        stones = OPENINGS[rng.randrange(len(OPENINGS))][: rng.randint(3, 6)]
        for ply, point in enumerate(stones):
            relay_enter(game_id=game.pk, user=organizer, expected_ply=ply, action=f"place {point}")
    return len(games)
