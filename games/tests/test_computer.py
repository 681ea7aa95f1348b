"""Practice games against the computer, and the analysis of games and positions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone, translation
from rest_framework.test import APIClient

from engine import Board, Renju
from engine.protocols import Player as Seat
from games.enums import GameStatus
from games.models import Analysis, Game, GameEvent, Move
from games.selectors import game_state
from games.services import GameError, game_act, game_offer_draw, game_override, game_resign
from games.services.analysis import analysis_request
from games.services.computer import computer_player, think_budget
from games.services.practice import computer_turn, practice_start
from games.tests.factories import UserFactory
from games.tests.helpers import MISSED, finished_game, human, run_computer

pytestmark = pytest.mark.django_db


def test_the_computer_answers_each_move_through_the_players_service(
    django_capture_on_commit_callbacks: Any, sent: list[Any]
) -> None:
    me = human()
    with django_capture_on_commit_callbacks(execute=True):
        game = practice_start(player=me, level=2, time_control="quick")
    assert game.practice and not game.is_public
    assert sent == []  # the human (seat 1, Black) begins
    for ply, point in enumerate(["h8", "i10", "g6"]):
        current = Game.objects.get(pk=game.pk)
        with django_capture_on_commit_callbacks(execute=True):
            game_act(game_id=game.pk, player=me, action=f"place {point}", expected_ply=current.ply)
        assert [s[:2] for s in sent] == [("computer_move", (game.pk, current.ply + 1))]
        with django_capture_on_commit_callbacks(execute=True):
            played = run_computer(sent)
        assert played[0].startswith("place ")
        assert Game.objects.get(pk=game.pk).ply == 2 * (ply + 1)
    computer_moves = Move.objects.filter(game=game, player_number=2)
    assert computer_moves.count() == 3
    assert GameEvent.objects.filter(game=game, kind="move", interface="computer").count() == 3
    board = game_state(Game.objects.get(pk=game.pk)).board
    assert board.stone_count == 6 and Renju().outcome(board) is None


def test_a_stale_or_repeated_computer_task_changes_nothing(
    django_capture_on_commit_callbacks: Any, sent: list[Any]
) -> None:
    me = human()
    game = practice_start(player=me, level=1, time_control="untimed")
    with django_capture_on_commit_callbacks(execute=True):
        game_act(game_id=game.pk, player=me, action="place h8", expected_ply=0)
    assert computer_turn(game.pk, 1).startswith("place ")
    assert computer_turn(game.pk, 1) == "stale"  # delivered twice
    assert computer_turn(game.pk, 2) == "not_its_turn"  # the human's turn
    assert Move.objects.filter(game=game).count() == 2


def test_the_computer_plays_an_opening_protocol_as_player_one(
    django_capture_on_commit_callbacks: Any, sent: list[Any]
) -> None:
    me = human()
    with django_capture_on_commit_callbacks(execute=True):
        game = practice_start(player=me, level=3, protocol="rif", time_control="untimed", seat=2)
    while sent:  # each computer action sends the next one after its commit
        with django_capture_on_commit_callbacks(execute=True):
            run_computer(sent)
    game.refresh_from_db()
    state = game_state(game)
    # RIF: player one (the computer) placed three stones of a standard opening; player two decides the swap.
    assert len(state.opening.moves) == 3 and state.opening.expects == "swap"
    assert state.to_act is Seat.TWO
    from engine.openings import identify

    assert identify([m.point for m in state.opening.moves if m.point is not None]) is not None


def test_the_computer_declines_a_draw_offer_and_plays_on(
    django_capture_on_commit_callbacks: Any, sent: list[Any]
) -> None:
    me = human()
    game = practice_start(player=me, level=2, time_control="quick")
    with django_capture_on_commit_callbacks(execute=True):
        game_act(game_id=game.pk, player=me, action="place h8", expected_ply=0)
        game_offer_draw(game_id=game.pk, player=me)
    with django_capture_on_commit_callbacks(execute=True):
        results = run_computer(sent)
    assert results[0].startswith("place ")  # the first task declined the offer, then moved
    assert GameEvent.objects.filter(game=game, kind="draw_answer", data__accept=False).exists()
    game.refresh_from_db()
    assert game.status == GameStatus.PLAYING and game.ply == 2


def test_a_resigned_game_gets_no_computer_move(django_capture_on_commit_callbacks: Any, sent: list[Any]) -> None:
    me = human()
    game = practice_start(player=me, level=2, time_control="untimed")
    with django_capture_on_commit_callbacks(execute=True):
        game_act(game_id=game.pk, player=me, action="place h8", expected_ply=0)
    game_resign(game_id=game.pk, player=me)
    assert run_computer(sent) == ["stale"]


def test_think_budget_stays_inside_the_clock(sent: list[Any]) -> None:
    me = human()
    game = practice_start(
        player=me, level=5, time_control={"preset": "quick", "main_ms": 4_000, "move_ms": 2_000}, seat=2
    )
    assert think_budget(game, 5) <= 2.0 / 5 + 1e-9  # a fifth of the shorter of turn and main time
    untimed = practice_start(player=me, level=5, time_control="untimed")
    assert think_budget(untimed, 5) == 6.0


def test_practice_refuses_bad_setups(sent: list[Any]) -> None:
    me = human()
    with translation.override("en"):
        with pytest.raises(GameError, match="level is 1 to 5"):
            practice_start(player=me, level=9)
        with pytest.raises(GameError, match="renju, free-style or standard"):
            practice_start(player=me, level=2, rules="renju-a")
        with pytest.raises(GameError, match="computer cannot"):
            practice_start(player=computer_player(2), level=2)
    assert not Game.objects.exists()


def test_practice_games_stay_out_of_tournaments_and_ratings(sent: list[Any]) -> None:
    me = human()
    game = practice_start(player=me, level=1, time_control="untimed")
    from tournament.models import MatchGame

    assert not MatchGame.objects.filter(game=game).exists()
    assert computer_player(1).computer_level == 1
    assert computer_player(1).pk == computer_player(1).pk  # one player per level
    from tournament import services as tournament_services
    from tournament.services import TournamentError

    tournament = tournament_services.tournament_create(name="open", boards=2)
    with translation.override("en"), pytest.raises(TournamentError, match="practice games only"):
        tournament_services.register(tournament=tournament, player=computer_player(3))


def test_practice_over_the_api(django_capture_on_commit_callbacks: Any, sent: list[Any]) -> None:
    me = human()
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(me.user)
    with django_capture_on_commit_callbacks(execute=True):
        reply = client.post("/api/games/practice/", {"level": 3, "seat": 2, "time_control": "untimed"}, format="json")
    assert reply.status_code == 201, reply.content
    game_id = reply.json()["id"]
    assert [s[1] for s in sent] == [(game_id, 0)]  # the computer begins
    stranger = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    stranger.force_authenticate(UserFactory(username="nobody"))
    refused = stranger.post("/api/games/practice/", {"level": 3}, format="json")
    assert refused.status_code == 403 and "not linked to a player" in refused.json()["message"]
    bad = client.post("/api/games/practice/", {"level": 0}, format="json")
    assert bad.status_code == 400


# -- analysis ---------------------------------------------------------------------------


def test_analysis_marks_a_missed_vcf_and_is_cached(django_capture_on_commit_callbacks: Any, sent: list[Any]) -> None:
    game = finished_game(MISSED)
    with django_capture_on_commit_callbacks(execute=True):
        analysis = analysis_request(game=game)
    assert analysis.status == Analysis.Status.PENDING
    assert run_computer(sent) == ["done"]
    analysis.refresh_from_db()
    by_number = {m["number"]: m for m in analysis.marks}
    # Move 11 (b2) is Black's: Black had the VCF k8 l8 k7 k6 k11 and played elsewhere.
    assert by_number[11]["win"]["kind"] == "vcf" and by_number[11]["win"]["line"][0] == "k8"
    assert by_number[11]["missed"] is True
    with django_capture_on_commit_callbacks(execute=True):
        again = analysis_request(game=game)
    assert again.status == Analysis.Status.DONE and sent == []  # cached: no new task
    from games.exports import export_plain

    assert "# 11. b2 missed a VCF: k8 l8 k7 k6 k11" in export_plain(game)


def test_a_corrected_record_is_analysed_afresh(django_capture_on_commit_callbacks: Any, sent: list[Any]) -> None:
    game = finished_game(MISSED)
    with django_capture_on_commit_callbacks(execute=True):
        analysis_request(game=game)
    run_computer(sent)
    Game.objects.filter(pk=game.pk).update(record_text="h8 g8 i8 a1 j8 a3 k9 a5 k10 o15 k8 l8 k7")
    Move.objects.filter(game=game).delete()
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        fresh = analysis_request(game=game)
    assert fresh.status == Analysis.Status.PENDING and len(sent) == 1


def test_only_a_finished_game_is_analysed(sent: list[Any]) -> None:
    me = human()
    game = practice_start(player=me, level=1, time_control="untimed")
    with translation.override("en"), pytest.raises(GameError, match="finished"):
        analysis_request(game=game)


def test_analysis_api_permissions_and_position_analysis(
    django_capture_on_commit_callbacks: Any, sent: list[Any]
) -> None:
    game = finished_game(MISSED)
    Game.objects.filter(pk=game.pk).update(is_public=True)
    anyone = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    none = anyone.get(f"/api/games/{game.pk}/analysis/")
    assert none.status_code == 200 and none.json()["status"] == "none"  # nobody asked: no failed request
    assert anyone.post(f"/api/games/{game.pk}/analysis/").status_code in (401, 403)
    referee = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    referee.force_authenticate(UserFactory(username="ref", role="organizer"))
    with django_capture_on_commit_callbacks(execute=True):
        assert referee.post(f"/api/games/{game.pk}/analysis/").status_code == 202
    run_computer(sent)
    read = anyone.get(f"/api/games/{game.pk}/analysis/")
    assert read.status_code == 200 and read.json()["status"] == "done"

    position = referee.post(
        "/api/games/analyse-position/",
        {"moves": "g8 i7 i8 j6 h9 k5 h10 a1 m3 a3 g9", "rules": "renju"},
        format="json",
    )
    assert position.status_code == 200, position.content
    body = position.json()
    assert body["to_move"] == "white" and body["win"] == {"kind": "vcf", "line": ["l4"]}
    assert Board.replay("g8 i7 i8 j6 h9 k5 h10 a1 m3 a3 g9").is_empty(__import__("engine").Point.parse(body["best"]))
    bad = referee.post("/api/games/analyse-position/", {"moves": "h8 h8"}, format="json")
    assert bad.status_code == 400 and "occupied" in bad.json()["message"]
    player = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    player.force_authenticate(UserFactory(username="pl", role="player"))
    assert player.post("/api/games/analyse-position/", {"moves": "h8"}, format="json").status_code == 403


def test_an_overridden_result_keeps_the_analysis_of_the_same_moves(
    django_capture_on_commit_callbacks: Any, sent: list[Any]
) -> None:
    game = finished_game(MISSED)
    with django_capture_on_commit_callbacks(execute=True):
        analysis_request(game=game)
    run_computer(sent)
    organizer = UserFactory(username="org", role="organizer")
    game_override(game_id=game.pk, result="draw", reason="referee", note="appeal", actor=organizer)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        kept = analysis_request(game=game)
    assert kept.status == Analysis.Status.DONE and sent == []
    assert timezone.now() - kept.finished_at < timedelta(minutes=5)
