"""The organizer's control room: every setting from a list, the stage buttons, corrections, withdrawals,
and refusals shown as messages in the organizer's language."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.enums import GameStatus
from games.models import Game, Player
from tournament import services
from tournament.models import Entry, Stage, Tournament

pytestmark = pytest.mark.django_db


def test_a_tournament_is_created_with_every_setting_chosen_from_a_list(organizer: Client) -> None:
    page = organizer.get("/organizer/").content.decode()
    assert '<select name="rules"' in page and '<select name="time_control"' in page and "<textarea" not in page

    answer = organizer.post(
        "/organizer/",
        {
            "name": "Club night",
            "boards": 3,
            "rules": "renju",
            "protocol": "rif",
            "forbidden_mode": "claim",
            "time_control": "quick",
            "mode": "online",
        },
    )

    tournament = Tournament.objects.get(name="Club night")
    assert answer.status_code == 302 and answer["Location"] == f"/organizer/t/{tournament.pk}/"
    assert (tournament.rules, tournament.protocol, tournament.mode, tournament.boards) == ("renju", "rif", "online", 3)


def test_the_stage_buttons_corrections_and_withdrawals_run_the_services(organizer: Client) -> None:
    tournament = services.tournament_create(name="Room cup", boards=2)
    for n in range(4):
        services.register(tournament=tournament, player=Player.objects.create(name=f"Room {n}"))
    stage = tournament.stages.get()
    room = f"/organizer/t/{tournament.pk}/"

    organizer.post(room + "publish/")
    organizer.post(room + "draw/", {"stage": stage.pk})
    organizer.post(room + "start/", {"stage": stage.pk})
    stage.refresh_from_db()
    assert stage.status == Stage.Status.RUNNING
    game = Game.objects.filter(match_game__match__tournament=tournament, board_number=1).get()

    organizer.post(room + "override/", {"game": game.pk, "result": "white", "reason": "referee", "note": "seen"})
    game.refresh_from_db()
    assert (game.status, game.result) == (GameStatus.FINISHED, "white")

    entry = Entry.objects.filter(tournament=tournament).exclude(player__in=[game.player_one, game.player_two]).first()
    assert entry is not None
    organizer.post(room + "withdraw/", {"entry": entry.pk, "policy": "forfeit", "reason": "ill"})
    entry.refresh_from_db()
    assert entry.withdrawn

    page = organizer.get(room).content.decode()
    assert f"{entry.player.name} withdrawn." in page and f"Result of game {game.pk} corrected." in page


def test_a_refused_button_says_why_in_chinese(organizer: Client) -> None:
    tournament = services.tournament_create(name="Early", boards=2)
    for n in range(4):
        services.register(tournament=tournament, player=Player.objects.create(name=f"E{n}"))
    stage = tournament.stages.get()
    room = f"/organizer/t/{tournament.pk}/"

    answer = organizer.post(room + "advance/", {"stage": stage.pk}, HTTP_ACCEPT_LANGUAGE="zh-hans", follow=True)

    text = answer.content.decode()
    assert answer.status_code == 200
    error = text.split('class="error">')[1].split("</li>")[0]
    assert re.search(r"[\u4e00-\u9fff]", error), error
    assert not stage.groups.exists()
    assert Client().get(room).status_code == 302 and Client().post(room + "draw/").status_code == 302


def test_time_controls_are_offered_in_words_in_both_languages() -> None:
    from django.utils import translation

    from games.messages import time_control_label

    with translation.override("en"):
        assert time_control_label("quick") == "5 min for the game, 30 s a move, then 8 stones at 30 s each"
        assert time_control_label("rif-90+30") == "90 min each, +30 s a move"
    with translation.override("zh-hans"):
        assert time_control_label("quick") == "全局 5 分钟，每步限 30 秒，之后 8 手各 30 秒"
        assert time_control_label("untimed") == "不计时"


def test_a_malformed_or_foreign_stage_is_not_found_and_changes_nothing(organizer: Client) -> None:
    tournament = services.tournament_create(name="Guarded", boards=2)
    other = services.tournament_create(name="Other", boards=2)
    room = f"/organizer/t/{tournament.pk}/"

    for stage in ("abc", "", str(other.stages.get().pk)):
        assert organizer.post(room + "draw/", {"stage": stage}).status_code == 404
    assert organizer.post(room + "nonsense/").status_code == 404
    assert not other.stages.get().groups.exists() and not tournament.stages.get().groups.exists()
