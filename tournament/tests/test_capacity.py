"""The server's capacity for online games (``ONLINE_CAPACITY``, issue 64): past it a tournament's further games
wait for room and start as games end, here or in another organizer's tournament; the organizer is told how many
wait; a new practice or API game is refused with a message in the player's language; nothing else changes
(over the board, the next game of a match already playing, a server with no limit)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games.enums import GameStatus
from games.models import Game, Player
from games.services import game_resign
from games.tests.factories import PlayerFactory, UserFactory
from tournament import services
from tournament.models import Match, Tournament
from tournament.tests.helpers import online_swiss, started

pytestmark = pytest.mark.django_db


@pytest.fixture
def capacity(settings: Any) -> Any:
    def set_to(games: int) -> None:
        settings.ONLINE_CAPACITY = games

    return set_to


def pair_round_one(tournament: Tournament) -> None:
    stage = services.start_stage(stage=services.draw_stage(stage=tournament.stages.get(order=1), seed=3))
    services.pair_next_round(stage=stage)


def games_of(tournament: Tournament) -> list[Game]:
    return list(Game.objects.filter(match_game__match__tournament=tournament).order_by("pk"))


def running() -> int:
    return Game.objects.filter(status__in=GameStatus.active()).count()


def test_a_round_past_the_capacity_starts_what_fits_and_the_rest_as_games_end(capacity: Any) -> None:
    capacity(3)
    tournament = online_swiss(8)
    pair_round_one(tournament)

    assert len(games_of(tournament)) == 3  # four pairs, room for three games
    assert Match.objects.filter(tournament=tournament, status=Match.Status.PENDING).count() == 1
    assert services.held_for_room(tournament) == 1

    first = games_of(tournament)[0]
    game_resign(game_id=first.pk, player=first.black)

    assert len(games_of(tournament)) == 4  # the game's end made room: the waiting pair was called at once
    assert running() == 3
    assert services.held_for_room(tournament) == 0


def test_room_made_in_one_tournament_is_given_to_another_by_the_beats_call(capacity: Any) -> None:
    capacity(2)
    first = online_swiss(4, "First")
    pair_round_one(first)
    second = online_swiss(2, "Second")
    pair_round_one(second)
    assert games_of(second) == [] and services.held_for_room(second) == 1

    with CaptureQueriesContext(connection) as full:
        assert services.call_for_room() == 0  # still full: one count, nothing written
    assert len(full.captured_queries) == 1

    game = games_of(first)[0]
    game_resign(game_id=game.pk, player=game.white)
    assert games_of(second) == []  # the first tournament's own follow-up had nothing waiting of its own

    assert services.call_for_room() == 1
    assert len(games_of(second)) == 1 and running() == 2
    assert services.held_for_room(second) == 0


def test_without_a_limit_or_over_the_board_nothing_waits_for_room(capacity: Any) -> None:
    capacity(0)
    unlimited = online_swiss(8)
    pair_round_one(unlimited)
    assert len(games_of(unlimited)) == 4 and services.held_for_room(unlimited) == 0

    capacity(1)
    hall = services.tournament_create(name="Hall", preset="swiss", stage_options={"rounds": 3}, boards=4)
    for n in range(4):
        services.register(tournament=hall, player=Player.objects.create(name=f"H{n}"))
    services.publish(tournament=hall)
    pair_round_one(hall)
    assert len(games_of(hall)) == 2 and services.held_for_room(hall) == 0  # the boards in the hall are its own


def test_the_next_game_of_a_match_already_playing_is_not_held(capacity: Any) -> None:
    capacity(10)
    tournament, _stage = started(4, preset="seed", mode="online")  # each pair plays two games, colours swapped
    games = games_of(tournament)
    assert len(games) == 2
    capacity(2)  # full now
    game_resign(game_id=games[0].pk, player=games[0].black)
    later = games_of(tournament)
    assert len(later) == 3 and later[2].status in GameStatus.active()  # the match goes on on its board
    assert later[2].match_game.match_id == games[0].match_game.match_id


def test_the_organizer_is_told_what_waits(capacity: Any) -> None:
    capacity(1)
    user = UserFactory(username="host", role="organizer")
    tournament = online_swiss(4, owner=user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    pair_round_one(tournament)

    page = client.get(f"/organizer/t/{tournament.pk}/").content.decode()
    assert "1 game waits for room on the server" in page and "at most 1 online games" in page

    answer = client.post(f"/organizer/t/{tournament.pk}/call/", follow=True).content.decode()
    assert "1 game waits for room on the server" in answer

    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    assert api.get(f"/api/tournaments/{tournament.pk}/").json()["held_for_room"] == 1

    chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    chinese.force_login(user)
    assert "1 局等待服务器空位" in chinese.get(f"/organizer/t/{tournament.pk}/").content.decode()


@pytest.mark.parametrize("lang, words", [("en", "as many online games as it can"), ("zh-hans", "服务器")])
def test_a_new_game_is_refused_while_the_server_is_full(capacity: Any, lang: str, words: str) -> None:
    capacity(1)
    player = PlayerFactory(user=UserFactory(username="practiser", role="player"))
    client = APIClient(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_authenticate(player.user)
    tournament = online_swiss(2)
    pair_round_one(tournament)
    before = Game.objects.count()

    refused = client.post("/api/games/practice/", {"level": 1}, format="json")

    assert refused.status_code == 503 and refused.json()["code"] == "server_full"
    assert words in refused.json()["message"]
    host = APIClient(HTTP_ACCEPT_LANGUAGE=lang)
    host.force_authenticate(UserFactory(username="host", role="organizer"))
    one, two = Player.objects.create(name="A"), Player.objects.create(name="B")
    made = host.post("/api/games/", {"player_one": one.pk, "player_two": two.pk}, format="json")
    assert made.status_code == 503 and made.json()["code"] == "server_full"
    otb = host.post("/api/games/", {"player_one": one.pk, "player_two": two.pk, "mode": "otb"}, format="json")
    assert otb.status_code == 201, otb.content  # a game over the board takes no room on the server
    assert Game.objects.count() == before + 1
