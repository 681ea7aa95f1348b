"""Shared by the fair-play tests: an online Swiss's first round, games played and finished, a case opened."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from fairplay import services
from fairplay.models import Case, Screening
from games.models import Game, Player
from games.services import game_act, game_resign
from games.tests.factories import UserFactory
from tournament import services as tournament_services
from tournament.models import Tournament
from tournament.tests.browser import account
from tournament.tests.helpers import online_swiss

QUIET = ["h8", "a1", "j10", "a3", "g6", "a5", "k11", "a7"]  # white throws stones away


def round_one() -> tuple[Tournament, list[Game]]:
    """Round 1 of an online Swiss of four, each player with an account of their own."""
    tournament = online_swiss(4)
    for player in Player.objects.filter(entries__tournament=tournament, user=None):
        player.user = UserFactory()
        player.save(update_fields=["user"])
    stage = tournament_services.start_stage(
        stage=tournament_services.draw_stage(stage=tournament.stages.get(order=1), seed=3)
    )
    tournament_services.pair_next_round(stage=stage)
    return tournament, list(Game.objects.filter(match_game__match__tournament=tournament).order_by("pk"))


def played(game: Game, stones: list[str] = QUIET) -> Game:
    assert game.black is not None and game.white is not None
    for ply, point in enumerate(stones):
        mover = game.black if ply % 2 == 0 else game.white
        game_act(game_id=game.pk, player=mover, action=f"place {point}", expected_ply=ply, think_ms=4000 + 100 * ply)
    game_resign(game_id=game.pk, player=game.white)
    return Game.objects.get(pk=game.pk)


def opened_case(tournament: Tournament, game: Game, z: float = 4.2) -> Case:
    """A case as the screening opens one (its numbers set here: what is tested is what happens next)."""
    assert game.black is not None
    services.screen_game(game.pk)
    Screening.objects.filter(game=game, player=game.black).update(z=z)
    stats = {"choices": 12, "matched": 12, "expected_match": 5.4, "z": z, "z_loss": 3.0, "loss": 0.0}
    return Case.objects.create(player=game.black, tournament=tournament, z=z, stats=stats)


def referee_of(tournament: Tournament, name: str) -> Any:
    user = account(name, "referee")
    tournament.referees.add(user)
    return user


def live_and_asking(stones: list[str], role: str) -> tuple[Game, APIClient]:
    """A live game of round 1 with ``stones`` played, and an API client of its white player, given ``role``."""
    game = round_one()[1][0]
    assert game.black is not None and game.white is not None
    for ply, point in enumerate(stones):
        mover = game.black if ply % 2 == 0 else game.white
        game_act(game_id=game.pk, player=mover, action=f"place {point}", expected_ply=ply)
    user = game.white.user
    assert user is not None
    user.groups.add(Group.objects.get(name=role))
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(user)
    return Game.objects.get(pk=game.pk), api
