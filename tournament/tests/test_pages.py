"""The pages render for each audience (the browser tests drive them for real)."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from games.models import Game
from tournament.demo_tournament import DEMO_NAME
from tournament.models import Tournament
from tournament.stage_formats import stage_standings

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo() -> Tournament:
    call_command("load_demo", verbosity=0)
    return Tournament.objects.get(name=DEMO_NAME)


def login(name: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(get_user_model().objects.get(username=name))
    return client


def test_public_pages_render(demo: Tournament) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    game = Game.objects.filter(match_game__match__tournament=demo).first()
    assert game is not None

    for url in [
        "/",
        f"/t/{demo.pk}/",
        f"/t/{demo.pk}/standings/",
        f"/t/{demo.pk}/schedule/",
        f"/t/{demo.pk}/call-sheet/",
        f"/t/{demo.pk}/result-sheets/",
        f"/g/{game.pk}/",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
    page = client.get(f"/t/{demo.pk}/").content.decode()
    assert demo.name in page and "Group A" in page and "Board 1" in page


def test_standings_csv_matches_the_computed_standings(demo: Tournament) -> None:
    body = Client().get(f"/t/{demo.pk}/standings.csv").content.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))

    expected = [r for t in stage_standings(demo.stages.get()) for r in t["rows"]]
    assert [(r["player"], int(r["points"])) for r in rows] == [(r["player"], r["points"]) for r in expected]


def test_records_export(demo: Tournament) -> None:
    text = Client().get(f"/t/{demo.pk}/games.txt").content.decode()
    rif = Client().get(f"/t/{demo.pk}/games.rif").content.decode()

    assert text.count("[Game ") == Game.objects.filter(match_game__match__tournament=demo).count()
    assert rif.startswith("<?xml") and "<games>" in rif


def test_consoles(demo: Tournament) -> None:
    player = login("player01").get("/me/")
    referee = login("referee1").get("/referee/")

    assert player.status_code == 200 and b"My next match" in player.content
    assert referee.status_code == 200 and b"Games in play" in referee.content
    assert login("player02").get("/referee/").status_code == 404
    assert Client().get("/me/").status_code == 302


def test_pages_speak_chinese(demo: Tournament) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE="zh-hans").get(f"/t/{demo.pk}/").content.decode()

    assert "积分" in page or "分" in page


def test_the_player_console_lists_online_games_waiting_for_the_players_move() -> None:
    from games.models import Player
    from games.services import game_act, game_create

    user = get_user_model().objects.create_user("mover", password="pw-Strong-2026")
    me, other = Player.objects.create(name="Me", user=user), Player.objects.create(name="Other")
    mine = game_create(player_one=me, player_two=other, rules="freestyle")  # player one moves first
    theirs = game_create(player_one=other, player_two=me, rules="freestyle")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)

    page = client.get("/me/").content.decode()
    assert "Your move" in page and f"/g/{mine.pk}/" in page.split("My next match")[0]
    assert f"/g/{theirs.pk}/" not in page.split("My next match")[0]

    game_act(game_id=mine.pk, player=me, action="place h8", expected_ply=0)
    game_act(game_id=theirs.pk, player=other, action="place h8", expected_ply=0)
    page = client.get("/me/").content.decode()
    assert f"/g/{theirs.pk}/" in page.split("My next match")[0]
    assert f"/g/{mine.pk}/" not in page.split("My next match")[0]


def test_pages_are_compressed_polls_can_be_304_and_there_is_a_favicon(demo: Tournament) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    url = f"/t/{demo.pk}/standings/"
    first = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], HTTP_ACCEPT_ENCODING="gzip")

    assert first["Content-Encoding"] == "gzip"
    assert again.status_code == 304
    assert client.get("/favicon.ico").status_code == 301


def test_the_boards_show_stones_whose_turn_and_both_clocks_of_online_games() -> None:
    from games.models import Player
    from games.services import game_act
    from tournament import services

    tournament = services.tournament_create(name="Online cup", boards=2, mode="online", time_control="quick")
    for n in range(4):
        services.register(tournament=tournament, player=Player.objects.create(name=f"On{n}"))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    game = Game.objects.filter(match_game__match__tournament=tournament, board_number=1).get()
    black = game.player_one if game.black_id == game.player_one_id else game.player_two
    game_act(game_id=game.pk, player=black, action="place h8", expected_ply=game.ply)

    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/t/{tournament.pk}/schedule/").content.decode()
    board = page.split("Board 1")[1].split("</li>")[0]

    assert "1 stone" in board and "white to move" in board
    assert board.count('class="clock-mini') == 2 and 'clock-mini acting">○ 5:00' in board


def test_the_referee_console_offers_the_claim_tool_only_for_renju_and_names_actions_in_chinese() -> None:
    from django.contrib.auth.models import Group as Role

    from games.models import Player
    from games.services import game_clock_action, game_create

    referee = get_user_model().objects.create_user("ref-x")
    referee.groups.add(Role.objects.get(name="referee"))
    one, two = Player.objects.create(name="R1"), Player.objects.create(name="R2")
    free = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    renju = game_create(player_one=one, player_two=two, rules="renju", time_control="quick")
    for game in (free, renju):
        game.referees.add(referee)
    game_clock_action(game_id=renju.pk, op="start", actor=referee)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(referee)

    live = client.get("/referee/live/").content.decode()

    assert f"/g/{renju.pk}/claim/" in live and f"/g/{free.pk}/claim/" not in live
    assert "计时" in live.split("/h2>")[-1]  # my actions: the clock start, named in Chinese
