"""The admin as the organizer's control room: CSV import, draw and start actions, result override."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Game, GameEvent, Player
from games.services import game_create
from tournament import services
from tournament.models import Stage

pytestmark = pytest.mark.django_db


def test_csv_import_draw_and_start_from_the_admin(organizer: Client) -> None:
    tournament = services.tournament_create(name="Admin cup", boards=2)
    url = f"/admin/tournament/tournament/{tournament.pk}/import-players/"

    assert organizer.get(url).status_code == 200
    response = organizer.post(url, {"csv": "name,unit,rating\n甲,一中,\n乙,二中,1500\n丙,一中,\n丁,三中,\n"})
    assert response.status_code == 302 and tournament.entries.count() == 4
    stage = tournament.stages.get()
    organizer.post("/admin/tournament/stage/", {"action": "draw", "_selected_action": [stage.pk]})
    organizer.post("/admin/tournament/stage/", {"action": "start", "_selected_action": [stage.pk]})

    stage.refresh_from_db()
    assert stage.status == Stage.Status.RUNNING and stage.draw_seed is not None
    assert Game.objects.filter(match_game__match__tournament=tournament).count() == 2


def test_result_override_needs_a_reason_and_is_logged(organizer: Client) -> None:
    game = game_create(
        player_one=Player.objects.create(name="a"), player_two=Player.objects.create(name="b"), mode="otb"
    )
    base = {"action": "override_result", "_selected_action": [game.pk]}

    form = organizer.post("/admin/games/game/", base)
    organizer.post("/admin/games/game/", {**base, "apply": "1", "result": "white", "reason": "referee", "note": ""})
    assert Game.objects.get(pk=game.pk).result == ""
    organizer.post(
        "/admin/games/game/",
        {**base, "apply": "1", "result": "white", "reason": "referee", "note": "scoresheet signed by both"},
    )

    assert form.status_code == 200 and b"Override" in form.content
    assert Game.objects.get(pk=game.pk).result == "white"
    assert GameEvent.objects.get(game=game, kind="corrected").data["note"] == "scoresheet signed by both"


def test_a_referee_cannot_override(organizer: Client) -> None:
    game = game_create(
        player_one=Player.objects.create(name="a"), player_two=Player.objects.create(name="b"), mode="otb"
    )
    referee = Client()
    user = get_user_model().objects.get(username="referee1")
    user.is_staff = True
    user.save()
    referee.force_login(user)

    referee.post(
        "/admin/games/game/",
        {
            "action": "override_result",
            "_selected_action": [game.pk],
            "apply": "1",
            "result": "white",
            "reason": "referee",
            "note": "x",
        },
    )

    assert Game.objects.get(pk=game.pk).result == ""


def test_the_chinese_admin_names_every_model_once_and_in_chinese(organizer: Client) -> None:
    import re

    from django.apps import apps

    page = organizer.get("/admin/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    names = re.findall(r'<th scope="row"[^>]*>\s*<a href="[^"]+">([^<]+)</a>', page)

    assert len(names) >= len([m for m in apps.get_models() if m._meta.app_label == "games"])
    assert len(names) == len(set(names)), names  # tournaments and matches were both 比赛
    assert all(re.search(r"[\u4e00-\u9fff]", n) for n in names), names  # no English model names
    form = organizer.get("/admin/tournament/tournament/add/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "名称" in form and "姓名" not in form


def test_the_chinese_admin_labels_every_field_in_chinese(organizer: Client) -> None:
    import re

    from tournament.models import Entry, Match

    game = Game.objects.filter(match_game__isnull=False).first()
    match, entry = Match.objects.first(), Entry.objects.first()
    assert game is not None and match is not None and entry is not None
    for url in (
        f"/admin/games/game/{game.pk}/change/",
        f"/admin/tournament/match/{match.pk}/change/",
        f"/admin/tournament/entry/{entry.pk}/change/",
        f"/admin/tournament/tournament/{entry.tournament_id}/change/",
    ):
        page = organizer.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        labels = re.findall(r"<label[^>]*>([^<]+?):?</label>", page) + re.findall(
            r'<div class="flex-container">\s*<label>([^<]+?):</label>', page
        )
        english = [label for label in labels if not re.search(r"[\u4e00-\u9fff]", label) and label.strip()]
        assert labels and not english, (url, english)
