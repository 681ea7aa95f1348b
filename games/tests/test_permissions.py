"""Each role × each game action, against the intended matrix.

Roles: the player with black, the player with white, a player from another
game, the game's referee, a referee of other games, the organizer, and an
anonymous visitor. Every cell starts from a fresh game in the state the
action needs.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from games.enums import ForbiddenMode, GameMode, GameStatus
from games.models import Game, GameEvent
from games.services import game_act, game_create, game_report_result
from games.tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "black", "white", "other_player", "referee", "other_referee", "organizer"]
T01_H8 = ["g8", "a1", "i8", "c1", "h9", "e1", "h10", "k1", "h8"]

# action -> (method, path, body, game setup, expected status per role in ROLES order)
MATRIX: dict[str, tuple[str, str, dict[str, Any], str, list[int]]] = {
    "list": ("get", "", {}, "online", [200, 200, 200, 200, 200, 200, 200]),
    "retrieve": ("get", "{id}/", {}, "online", [200, 200, 200, 200, 200, 200, 200]),
    "record": ("get", "{id}/record/", {}, "online", [200, 200, 200, 200, 200, 200, 200]),
    "create": ("post", "", {"player_one": "{p1}", "player_two": "{p2}"}, "online", [401, 403, 403, 403, 403, 403, 201]),
    "import": (
        "post",
        "import/",
        {"text": '[Black "X"]\n[White "Y"]\n[Result "*"]\n\nh8 h9'},
        "online",
        [401, 403, 403, 403, 403, 403, 201],
    ),
    "move": ("post", "{id}/move/", {"ply": 0, "point": "h8", "seat": 1}, "online", [401, 200, 409, 403, 403, 403, 200]),
    "pass": ("post", "{id}/pass/", {"ply": 0, "seat": 1}, "online", [401, 200, 409, 403, 403, 403, 200]),
    "resign": ("post", "{id}/resign/", {"seat": 1}, "online", [401, 200, 200, 403, 403, 403, 200]),
    "claim-forbidden": (
        "post",
        "{id}/claim-forbidden/",
        {"move_number": 9},
        "claimable",
        [401, 403, 201, 403, 201, 403, 201],
    ),
    "report-result": (
        "post",
        "{id}/report-result/",
        {"result": "white", "reason": "resignation", "seat": 1},
        "otb",
        [401, 201, 201, 403, 403, 403, 201],
    ),
    "confirm-result": ("post", "{id}/confirm-result/", {"seat": 2}, "reported", [401, 403, 200, 403, 403, 403, 200]),
    "dispute-result": ("post", "{id}/dispute-result/", {"seat": 2}, "reported", [401, 403, 200, 403, 403, 403, 200]),
    "rule": (
        "post",
        "{id}/rule/",
        {"result": "draw", "reason": "referee"},
        "reported",
        [401, 403, 403, 403, 200, 403, 200],
    ),
    "override": (
        "post",
        "{id}/override/",
        {"result": "draw", "reason": "referee", "note": "scoresheet"},
        "reported",
        [401, 403, 403, 403, 403, 403, 200],
    ),
}


def account(name: str, role: str) -> Any:
    user = get_user_model().objects.create_user(name, password="pw-Strong-2026")  # a login of its own
    user.groups.add(Group.objects.get(name=role))
    return user


def setup_game(kind: str) -> tuple[Game, dict[str, Any]]:
    users = {
        "black": account("black", "player"),
        "white": account("white", "player"),
        "other_player": account("other", "player"),
        "referee": account("ref", "referee"),
        "other_referee": account("ref2", "referee"),
        "organizer": account("org", "organizer"),
    }
    PlayerFactory(user=users["other_player"])
    one, two = PlayerFactory(user=users["black"]), PlayerFactory(user=users["white"])
    mode = GameMode.OVER_THE_BOARD if kind in ("otb", "reported") else GameMode.ONLINE
    forbidden = ForbiddenMode.CLAIM if kind == "claimable" else ForbiddenMode.AUTO
    game = game_create(player_one=one, player_two=two, mode=mode, forbidden_mode=forbidden)
    game.referees.add(users["referee"])
    if kind == "claimable":
        for ply, point in enumerate(T01_H8):
            game = game_act(
                game_id=game.pk, player=one if ply % 2 == 0 else two, action=f"place {point}", expected_ply=ply
            )
    if kind == "reported":
        game_report_result(game_id=game.pk, reporter=one, result="white", reason="resignation")
    return game, users


@pytest.mark.parametrize("action", list(MATRIX))
@pytest.mark.parametrize("role", ROLES)
def test_permission_matrix(action: str, role: str) -> None:
    method, path, body, kind, expected = MATRIX[action]
    game, users = setup_game(kind)
    fill = {"id": game.pk, "p1": game.player_one_id, "p2": game.player_two_id}
    url = "/api/games/" + path.format(**fill)
    data = {k: v.format(**fill) if isinstance(v, str) and "{" in v else v for k, v in body.items()}
    if role != "organizer":
        data.pop("seat", None)
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if role != "anonymous":
        client.force_authenticate(users[role])
    events_before = GameEvent.objects.count()

    response = getattr(client, method)(url, data, format="json") if method == "post" else client.get(url)

    assert response.status_code == expected[ROLES.index(role)], response.content
    if response.status_code >= 400:
        body_json = response.json()
        assert set(body_json) >= {"code", "message"} and body_json["message"]
        assert GameEvent.objects.count() == events_before  # a refusal changes nothing
        assert Game.objects.get(pk=game.pk).status != GameStatus.FINISHED
