"""The hostile suite, role by role at the table: a player, a referee of another tournament and a link
holder reaching past what is theirs (check-in, arbiter calls, results, another tournament's games).
Each must be refused with a message in the user's language and change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from games.models import ArbiterCall, Player
from games.services import GameError, game_create
from games.services.arbiter import game_answer_arbiter, game_call_arbiter
from tournament import registration, services
from tournament.models import CheckIn
from tournament.roles import REFEREE, sync_roles

pytestmark = pytest.mark.django_db
User = get_user_model()


def person(username: str, role: str | None = None) -> Any:
    groups = sync_roles()
    user = User.objects.create_user(username, password="pw-Strong-2026")
    if role:
        user.groups.add(groups[role])
    return user


def api_as(user: Any) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


def test_a_player_checks_in_only_themselves_and_a_link_only_its_own_entry() -> None:
    tournament = services.tournament_create(name="Door", check_in=CheckIn.FIRST)
    services.publish(tournament=tournament)
    mine_user = person("mine", "player")
    mine = services.register(tournament=tournament, player=Player.objects.create(name="Mine", user=mine_user))
    theirs = services.register(tournament=tournament, player=Player.objects.create(name="Theirs"))

    refused = api_as(mine_user).post(f"/api/tournaments/{tournament.pk}/check-in/", {"entry": theirs.pk}, format="json")
    undo = api_as(mine_user).post(f"/api/tournaments/{tournament.pk}/check-in/", {"undo": True}, format="json")
    key = registration.access_key_new(entry=mine).access_key
    Client().post(f"/p/{key}/check-in/", {"entry": theirs.pk})  # a link checks in its own entry, whatever is posted

    theirs.refresh_from_db()
    mine.refresh_from_db()
    assert refused.status_code == 403 and refused.json()["message"] == "You check in only yourself."
    assert undo.status_code == 403
    assert theirs.checked_in_round == 0 and mine.checked_in_round == 1


def test_a_referee_of_another_tournament_cannot_answer_a_call_or_rule_here() -> None:
    here = services.tournament_create(name="Here")
    elsewhere = services.tournament_create(name="Elsewhere")
    stranger_ref = person("far-ref", REFEREE)
    elsewhere.referees.add(stranger_ref)
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two, mode="otb")
    call = game_call_arbiter(game_id=game.pk, player=one)

    with pytest.raises(GameError) as refused:
        game_answer_arbiter(call_id=call.pk, actor=stranger_ref)
    answer = api_as(stranger_ref).post(f"/api/games/{game.pk}/answer-arbiter/", {}, format="json")

    assert refused.value.code == "not_referee"
    assert answer.status_code in (403, 404)
    assert ArbiterCall.objects.get(pk=call.pk).answered_at is None
    assert here.pk != elsewhere.pk


def test_a_player_cannot_call_the_arbiter_or_report_a_result_in_anothers_game() -> None:
    outsider = person("outsider", "player")
    Player.objects.create(name="Outsider", user=outsider)
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two, mode="otb", is_public=True)
    api = api_as(outsider)

    call = api.post(f"/api/games/{game.pk}/call-arbiter/", {"note": "x"}, format="json")
    report = api.post(f"/api/games/{game.pk}/report-result/", {"result": "black", "reason": "five"}, format="json")
    resign = api.post(f"/api/games/{game.pk}/resign/", {}, format="json")

    assert {call.status_code, report.status_code, resign.status_code} <= {403, 404}
    assert call.json()["message"] and report.json()["message"]
    assert not ArbiterCall.objects.filter(game=game).exists() and not game.reports.exists()
