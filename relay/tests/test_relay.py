"""Recording a game at the board, as the relay's API is used: one writer per board, entries that name the ply
they expect, corrections everyone sees, and the public held back by the stage's delay (an injected clock)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from xml.etree import ElementTree

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.live_guard import may_watch
from games.models import Game, Move
from games.services import game_import, game_rule
from relay.models import Correction, LeaseChange, RelayMove, StageDelay
from tournament.demo_tournament import DEMO_NAME
from tournament.models import Stage, Tournament
from tournament.tests.browser import account
from tournament.tests.helpers import started

pytestmark = pytest.mark.django_db

# A renju game's RIF opening: three stones, black kept, the fourth, two fifths offered, one chosen.
RIF = ["place h8", "place h9", "place j10", "no-swap", "place h6", "offer g8 j11", "choose j11", "place k11"]


def client(user: Any = None) -> APIClient:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        api.force_authenticate(user)
    return api


def board_game(preset: str = "renju-rif") -> tuple[Game, Stage]:
    tournament, stage = started(4, preset=preset)
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert game is not None and game.mode == "otb"
    return game, stage


def enter(api: APIClient, game: Game, ply: int, action: str, **extra: Any) -> Any:
    return api.post(f"/api/relay/{game.pk}/enter/", {"ply": ply, "action": action, **extra}, format="json")


def test_a_recorder_enters_a_renju_game_through_its_opening_protocol() -> None:
    game, _stage = board_game()
    api = client(account("boss", "organizer"))
    for ply, action in enumerate(RIF):
        answer = enter(api, game, ply, action, clock={"black_ms": 5_400_000 - ply * 1000})
        assert answer.status_code == 201, answer.content
    body = api.get(f"/api/relay/{game.pk}/").json()
    assert [m["action"] for m in body["moves"]] == RIF
    assert [m["move_number"] for m in body["moves"]] == [1, 2, 3, None, 4, None, 5, 6]  # stones numbered
    assert [m["seat"] for m in body["moves"]][:4] == [1, 1, 1, 2]  # the opener places three; the other keeps
    assert body["moves"][0]["color"] == "black" and body["moves"][-1]["color"] == "white"
    assert body["moves"][1]["clock"] == {"black_ms": 5_399_000}
    assert body["recorder"] == "boss"
    game.refresh_from_db()
    assert game.ply == 0 and game.record_text == ""  # the result sheet settles the game's own record


def test_a_stone_sent_twice_is_harmless_and_a_different_one_or_a_stale_ply_is_refused() -> None:
    game, _stage = board_game("seed")
    api = client(account("boss", "organizer"))
    assert enter(api, game, 0, "place h8").status_code == 201
    again = enter(api, game, 0, "place h8")
    assert again.status_code == 200 and again.json()["ply"] == 1  # the same entry twice: one stone
    other = enter(api, game, 0, "place j10")
    assert (other.status_code, other.json()["code"]) == (409, "conflict")
    assert "place h8" in other.json()["message"]
    ahead = enter(api, game, 5, "place a1")
    assert (ahead.status_code, ahead.json()["code"]) == (409, "stale_ply")
    occupied = enter(api, game, 1, "place h8")
    assert occupied.status_code == 400 and occupied.json()["code"] == "bad_entry"
    assert list(RelayMove.objects.filter(game=game).values_list("text", flat=True)) == ["place h8"]


def test_a_forbidden_stone_is_recorded_as_played_with_its_foul() -> None:
    game, _stage = board_game("renju-rif")
    Game.objects.filter(pk=game.pk).update(protocol="none")  # stone by stone, no opening rule
    api = client(account("boss", "organizer"))
    stones = ["g8", "a1", "i8", "a3", "h7", "a5", "h9", "a7", "h8"]  # black's h8 makes two open threes
    for ply, point in enumerate(stones):
        assert enter(api, game, ply, f"place {point}").status_code == 201
    last = RelayMove.objects.get(game=game, ply=9)
    assert last.color == "black" and last.foul != ""  # not refused: the referee's claim decides
    assert all(m.foul == "" for m in RelayMove.objects.filter(game=game, ply__lt=9))


def test_one_writer_per_board_a_referee_takes_over_and_strangers_write_nothing() -> None:
    game, stage = board_game("seed")
    first, second = account("boss", "organizer"), account("deputy", "organizer")
    assert enter(client(first), game, 0, "place h8").status_code == 201
    held = enter(client(second), game, 1, "place h9")
    assert (held.status_code, held.json()["code"]) == (409, "lease_held")
    taken = enter(client(second), game, 1, "place h9", takeover=True)
    assert taken.status_code == 201
    assert LeaseChange.objects.filter(game=game, previous=first, holder=second).count() == 1
    again = enter(client(first), game, 2, "place j10")
    assert (again.status_code, again.json()["code"]) == (409, "lease_held")  # the first recorder lost the board

    before = RelayMove.objects.count()
    assert enter(client(), game, 2, "place a1").status_code == 401
    rival = enter(client(account("rival", "host")), game, 2, "place a1")
    assert rival.status_code in (403, 404)  # another organizer's game: not theirs to record
    player = game.player_one.user or account("seated", "player")
    assert enter(client(player), game, 2, "place a1").status_code in (403, 404)
    delay = client(account("rival2", "host")).post(
        "/api/relay/delay/", {"stage": stage.pk, "minutes": 0}, format="json"
    )
    assert delay.status_code in (403, 404)  # this stage's delay is its organizer's
    assert not StageDelay.objects.filter(stage=stage).exists()
    assert RelayMove.objects.count() == before


def test_the_public_sees_the_record_only_after_the_stages_delay() -> None:
    game, stage = board_game("seed")
    boss = account("boss", "organizer")
    api = client(boss)
    assert api.post("/api/relay/delay/", {"stage": stage.pk, "minutes": 15}, format="json").status_code == 200
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        assert enter(api, game, 0, "place h8").status_code == 201
        clock.move_to(start + timedelta(minutes=5))
        assert enter(api, game, 1, "place h9").status_code == 201
        public = client().get(f"/api/relay/{game.pk}/").json()
        assert (public["ply"], public["delay_minutes"], public["recorder"]) == (0, 15, None)  # nothing yet
        assert api.get(f"/api/relay/{game.pk}/").json()["ply"] == 2  # the organizer sees at once
        clock.move_to(start + timedelta(minutes=15, seconds=1))
        assert [m["action"] for m in client().get(f"/api/relay/{game.pk}/").json()["moves"]] == ["place h8"]
        clock.move_to(start + timedelta(minutes=20, seconds=1))
        assert client().get(f"/api/relay/{game.pk}/").json()["ply"] == 2


def test_a_correction_from_ply_k_is_kept_and_shown_as_a_correction() -> None:
    game, _stage = board_game("seed")
    api = client(account("boss", "organizer"))
    for ply, point in enumerate(["h8", "h9", "j10", "g7"]):
        assert enter(api, game, ply, f"place {point}").status_code == 201
    blank = api.post(f"/api/relay/{game.pk}/replace/", {"from_ply": 3, "actions": [], "reason": " "}, format="json")
    assert blank.status_code == 400
    fixed = api.post(
        f"/api/relay/{game.pk}/replace/",
        {"from_ply": 3, "actions": ["place j9", "place g7"], "reason": "j9, not j10: the sheet"},
        format="json",
    )
    assert fixed.status_code == 200, fixed.content
    body = client().get(f"/api/relay/{game.pk}/").json()
    assert [m["action"] for m in body["moves"]] == ["place h8", "place h9", "place j9", "place g7"]
    assert body["corrections"][0]["removed"] == ["place j10", "place g7"]
    assert body["corrections"][0]["reason"] == "j9, not j10: the sheet"
    undo = api.post(f"/api/relay/{game.pk}/replace/", {"from_ply": 4, "actions": [], "reason": "undo"}, format="json")
    assert undo.status_code == 200 and undo.json()["ply"] == 3
    assert Correction.objects.filter(game=game).count() == 2


def test_the_multiboard_shows_each_relayed_board_after_the_delay_and_at_once_to_the_organizer() -> None:
    game, stage = board_game("seed")
    boss = account("boss", "organizer")
    api = client(boss)
    tournament = stage.tournament
    assert api.post("/api/relay/delay/", {"stage": stage.pk, "minutes": 10}, format="json").status_code == 200
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for ply, point in enumerate(["h8", "h9", "j10"]):
            assert enter(api, game, ply, f"place {point}").status_code == 201
        public = Client(HTTP_ACCEPT_LANGUAGE="en")
        page = public.get(f"/t/{tournament.pk}/relay/")
        assert page.status_code == 200 and f'data-game="{game.pk}"' in page.content.decode()
        assert 'data-point="h8"' not in page.content.decode()  # not yet: ten minutes behind
        assert public.get(f"/api/relay/boards/{tournament.pk}/").json()["boards"][0]["stones"] == []
        organizer = Client(HTTP_ACCEPT_LANGUAGE="en")
        organizer.force_login(boss)
        assert 'data-point="j10"' in organizer.get(f"/t/{tournament.pk}/relay/").content.decode()
        clock.move_to(start + timedelta(minutes=10, seconds=1))
        html = public.get(f"/t/{tournament.pk}/relay/").content.decode()
        assert all(f'data-point="{p}"' in html for p in ("h8", "h9", "j10")) and "10 min behind" in html
        board = public.get(f"/api/relay/boards/{tournament.pk}/").json()["boards"][0]
        assert (board["stones"], board["ply"], board["game"]) == (["h8", "h9", "j10"], 3, game.pk)


@pytest.mark.parametrize("fmt", ["rif", "txt"])
def test_a_relayed_record_is_read_back_by_the_importer_with_every_step(fmt: str) -> None:
    """The relay's .rif (RenjuNet's layout) and plain record, read back by the project's own importer: every
    action of the opening — the swap kept, the two fifths offered, the one chosen — and every stone."""
    game, _stage = board_game()
    api = client(account("boss", "organizer"))
    played = [*RIF, "place l12", "place g9"]
    for ply, action in enumerate(played):
        assert enter(api, game, ply, action).status_code == 201
    answer = api.get(f"/api/relay/{game.pk}/record/", {"as": fmt} if fmt == "rif" else {})
    assert answer.status_code == 200
    text = answer.content.decode()
    if fmt == "rif":
        assert "<alt>g8 j11</alt>" in text or "g8 j11" in text  # the offered fifths are in the file
    back = game_import(text=text)
    assert list(Move.objects.filter(game=back).order_by("ply").values_list("text", flat=True)) == played
    assert back.protocol == "rif" and back.rules == game.rules


def test_the_rounds_relayed_games_in_one_rif_for_the_public_after_the_delay() -> None:
    game, stage = board_game()
    boss = account("boss", "organizer")
    api = client(boss)
    assert api.post("/api/relay/delay/", {"stage": stage.pk, "minutes": 5}, format="json").status_code == 200
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for ply, action in enumerate(RIF):
            assert enter(api, game, ply, action).status_code == 201
        early = Client().get(f"/t/{stage.tournament_id}/relay/games.rif").content.decode()
        moves = ElementTree.fromstring(early).find(".//game/move")
        assert moves is not None and not moves.text  # the public file waits for the delay too
        clock.move_to(start + timedelta(minutes=5, seconds=1))
        text = Client().get(f"/t/{stage.tournament_id}/relay/games.rif").content.decode()
    back = game_import(text=text)
    assert list(Move.objects.filter(game=back).order_by("ply").values_list("text", flat=True)) == RIF


def test_the_demo_relays_four_boards_of_its_tournament_once() -> None:
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)  # idempotent: the boards relayed are left as they are
    tournament = Tournament.objects.get(name=DEMO_NAME)
    boards = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/api/relay/boards/{tournament.pk}/").json()["boards"]
    assert len(boards) == 4 and all(3 <= len(b["stones"]) <= 6 for b in boards)
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/t/{tournament.pk}/").content.decode()
    assert f"/t/{tournament.pk}/relay/" in page  # the tournament's page links its live boards


def test_the_relays_socket_topics_answer_whoever_may_see_the_tournament_or_the_game() -> None:
    game, stage = board_game("seed")
    public = AnonymousUser()
    assert may_watch(public, f"relay:{stage.tournament_id}") and may_watch(public, f"relaygame:{game.pk}")
    Tournament.objects.filter(pk=stage.tournament_id).update(status=Tournament.Status.DRAFT)
    Game.objects.filter(pk=game.pk).update(is_public=False)
    assert not may_watch(public, f"relay:{stage.tournament_id}")
    assert not may_watch(public, f"relaygame:{game.pk}")
    assert not may_watch(public, "relay:x") and not may_watch(public, "relaygame:")


def test_a_board_shows_its_move_number_and_the_table_clock_as_last_typed() -> None:
    game, stage = board_game("seed")
    api = client(account("boss", "organizer"))
    assert enter(api, game, 0, "place h8", clock={"black_ms": 300_000}).status_code == 201
    assert enter(api, game, 1, "place h9", clock={"white_ms": 271_000}).status_code == 201
    assert enter(api, game, 2, "place j10").status_code == 201
    board = client().get(f"/api/relay/boards/{stage.tournament_id}/").json()["boards"][0]
    assert board["clock"] == "5:00 · 4:31" and board["meta"].startswith("move 3 · 3 entries")


def test_a_recorder_switches_between_the_boards_they_hold() -> None:
    tournament, stage = started(8, preset="renju-rif", boards=4)
    games = list(Game.objects.filter(match_game__match__group__stage=stage).exclude(board_number=None).order_by("pk"))
    boss = account("boss", "organizer")
    api = client(boss)
    for game in games[:2]:
        assert enter(api, game, 0, "place h8").status_code == 201
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(boss)
    html = page.get(f"/relay/{games[0].pk}/record/").content.decode()
    assert f'href="/relay/{games[1].pk}/record/"' in html and 'aria-current="page"' in html
    watch = page.get(f"/relay/{games[2].pk}/").content.decode()
    assert f'href="/relay/{games[2].pk}/record/"' in watch  # a referee or organizer may start recording here
    assert f"/relay/{games[2].pk}/record/" not in Client().get(f"/relay/{games[2].pk}/").content.decode()


def test_a_relayed_rounds_rif_holds_each_result_read_back_equal() -> None:
    game, stage = board_game()
    boss = account("boss", "organizer")
    api = client(boss)
    for ply, action in enumerate(RIF):
        assert enter(api, game, ply, action).status_code == 201
    game_rule(game_id=game.pk, result="white", reason="resignation", actor=boss)
    text = Client().get(f"/t/{stage.tournament_id}/relay/games.rif").content.decode()
    back = game_import(text=text)
    assert list(Move.objects.filter(game=back).order_by("ply").values_list("text", flat=True)) == RIF
    assert (back.result, back.result_reason, back.status) == ("white", "resignation", "finished")


def test_the_live_projector_is_the_organizers_alone_a_rival_organizer_waits_for_the_delay() -> None:
    game, stage = board_game("seed")
    boss = account("boss", "organizer")
    api = client(boss)
    assert (
        api.post(
            "/api/relay/delay/", {"stage": stage.pk, "minutes": 10, "screen_live": True}, format="json"
        ).status_code
        == 200
    )
    assert enter(api, game, 0, "place h8").status_code == 201
    screen = f"/api/relay/boards/{stage.tournament_id}/?screen=1"
    assert api.get(screen).json()["boards"][0]["stones"] == ["h8"]  # the organizer's projector: at once
    rival = client(account("rival", "host"))
    assert rival.get(screen).json()["boards"][0]["stones"] == []  # another tournament's organizer: the delay
    assert client().get(screen).json()["boards"][0]["stones"] == []
    refused = rival.post("/api/relay/delay/", {"stage": stage.pk, "minutes": 0, "screen_live": True}, format="json")
    assert refused.status_code in (403, 404) and StageDelay.objects.get(stage=stage).minutes == 10
