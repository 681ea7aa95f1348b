"""Over-the-board results: report, confirm, dispute, ruling, override; referee claims; records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from engine.records import RecordError, check_record, parse_plain
from games.enums import ClaimStatus, ForbiddenMode, GameMode, GameStatus, ReportStatus
from games.exports import export_plain, export_rif
from games.messages import translate
from games.models import Game, GameEvent, ResultReport
from games.services import (
    GameError,
    game_confirm_result,
    game_create,
    game_dispute_result,
    game_import,
    game_override,
    game_referee_claim,
    game_report_result,
    game_rule,
)
from games.tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

T01 = "g8 a1 i8 c1 h9 e1 h10 k1"  # black to move; h8 is a double-three
FIVE = "h8 a1 i8 a3 j8 a5 k8 a7 l8"  # black's five at move 9


def otb_game(**kwargs: Any) -> Game:
    kwargs.setdefault("forbidden_mode", ForbiddenMode.CLAIM)
    return game_create(player_one=PlayerFactory(), player_two=PlayerFactory(), mode=GameMode.OVER_THE_BOARD, **kwargs)


def refused(fn: Callable[..., object], **kwargs: object) -> GameError:
    with pytest.raises(GameError) as info:
        fn(**kwargs)
    return info.value


def test_report_then_confirm_finishes_the_game_with_the_record() -> None:
    game = otb_game()
    game_report_result(game_id=game.pk, reporter=game.player_one, result="black", reason="five", record=FIVE)

    game = game_confirm_result(game_id=game.pk, player=game.player_two)

    assert (game.status, game.result, game.result_reason) == (GameStatus.FINISHED, "black", "five")
    assert game.record_text == FIVE
    assert game.reports.get().status == ReportStatus.CONFIRMED
    assert list(GameEvent.objects.filter(game=game).values_list("kind", flat=True)) == [
        "created",
        "reported",
        "confirmed",
        "finished",
    ]


def test_reporter_cannot_confirm_their_own_report_and_a_stranger_cannot_report() -> None:
    game = otb_game()
    game_report_result(game_id=game.pk, reporter=game.player_one, result="white", reason="resignation")

    assert refused(game_confirm_result, game_id=game.pk, player=game.player_one).code == "own_report"
    assert (
        refused(game_report_result, game_id=game.pk, reporter=PlayerFactory(), result="white", reason="time").code
        == "not_your_game"
    )
    assert Game.objects.get(pk=game.pk).status != GameStatus.FINISHED


def test_opponent_must_answer_a_pending_report_rather_than_report_again() -> None:
    game = otb_game()
    game_report_result(game_id=game.pk, reporter=game.player_one, result="white", reason="resignation")

    error = refused(game_report_result, game_id=game.pk, reporter=game.player_two, result="black", reason="time")

    assert (error.code, error.status) == ("report_pending", 409)
    assert ResultReport.objects.filter(game=game).count() == 1


def test_a_new_report_by_the_same_player_replaces_the_pending_one() -> None:
    game = otb_game()
    first = game_report_result(game_id=game.pk, reporter=game.player_one, result="white", reason="resignation")
    second = game_report_result(game_id=game.pk, reporter=game.player_one, result="draw", reason="agreement")

    first.refresh_from_db()
    assert (first.status, second.status) == (ReportStatus.WITHDRAWN, ReportStatus.PENDING)


def test_dispute_goes_to_the_referee_whose_ruling_settles_it() -> None:
    game = otb_game()
    referee = get_user_model().objects.create_user("ref")
    game.referees.add(referee)
    game_report_result(game_id=game.pk, reporter=game.player_one, result="black", reason="time")
    report = game_dispute_result(game_id=game.pk, player=game.player_two, note="my flag had not fallen")
    assert report.status == ReportStatus.DISPUTED
    assert GameEvent.objects.get(game=game, kind="disputed").data["referees"] == [referee.pk]
    assert refused(game_confirm_result, game_id=game.pk, player=game.player_two).code == "no_report"

    game = game_rule(game_id=game.pk, result="draw", reason="referee", note="both flags fell", actor=referee)

    report.refresh_from_db()
    assert (game.result, game.result_reason, report.status, report.answered_by) == (
        "draw",
        "referee",
        ReportStatus.RULED,
        referee,
    )


def test_override_replaces_a_finished_result_and_keeps_the_old_one_in_the_log() -> None:
    game = otb_game()
    game_report_result(game_id=game.pk, reporter=game.player_one, result="black", reason="resignation")
    game_confirm_result(game_id=game.pk, player=game.player_two)

    assert refused(game_override, game_id=game.pk, result="white", reason="referee", note=" ").code == (
        "reason_required"
    )
    game = game_override(game_id=game.pk, result="white", reason="referee", note="wrong player reported")

    event = GameEvent.objects.get(game=game, kind="corrected")
    assert (game.result, event.data["previous"]["result"], event.data["note"]) == (
        "white",
        "black",
        "wrong player reported",
    )
    assert refused(game_rule, game_id=game.pk, result="black", reason="referee").code == "game_over"


@pytest.mark.parametrize(
    ("result", "reason", "code"),
    [
        ("draw", "five", "bad_result"),
        ("black", "agreement", "bad_result"),
        ("black", "forbidden", "bad_result"),
        ("purple", "five", "bad_result"),
    ],
)
def test_impossible_results_are_refused(result: str, reason: str, code: str) -> None:
    game = otb_game()

    assert (
        refused(game_report_result, game_id=game.pk, reporter=game.player_one, result=result, reason=reason).code
        == code
    )
    assert not ResultReport.objects.exists()


def test_online_games_take_no_reports() -> None:
    game = game_create(player_one=PlayerFactory(), player_two=PlayerFactory())

    assert (
        refused(game_report_result, game_id=game.pk, reporter=game.player_one, result="black", reason="time").code
        == "online_game"
    )


@pytest.mark.parametrize(
    ("record", "mode", "result", "reason", "move", "fragment"),
    [
        ("h8 h8", "claim", "black", "resignation", 2, "h8 is already occupied"),
        ("h8 z9", "claim", "black", "resignation", 2, "move 2 ('z9'"),
        (f"{FIVE} b1", "claim", "black", "five", 10, "Move 10 is played after the game ended at move 9"),
        (FIVE, "claim", "white", "resignation", 9, "five by black at move 9"),
        (f"{T01} h8 a15 a14", "auto", "black", "resignation", 9, "Move 9 (h8) is a forbidden double-three"),
        (f"{T01} h8", "block", "white", "forbidden", 9, "Move 9 (h8) is a forbidden double-three"),
        (T01, "claim", "white", "forbidden", 8, "no forbidden move"),
        (T01, "claim", "black", "five", 8, "no five"),
    ],
)
def test_records_that_contradict_the_report_name_the_move(
    record: str, mode: str, result: str, reason: str, move: int, fragment: str
) -> None:
    with translation.override("en"), pytest.raises(RecordError) as info:
        check_record(record, "renju", mode, result, reason)
    with translation.override("en"):
        text = translate(info.value)

    assert info.value.move_number == move
    assert fragment in text


def test_a_record_played_past_its_five_is_explained_in_chinese() -> None:
    with translation.override("zh-hans"):
        with pytest.raises(RecordError) as info:
            check_record(f"{FIVE} b1", "renju", "claim", "black", "five")
        text = translate(info.value)

    assert "黑方五连" in text and "five" not in text


@pytest.mark.parametrize(
    ("record", "mode", "result", "reason"),
    [
        (f"{T01} h8", "auto", "white", "forbidden"),
        (f"{T01} h8", "claim", "white", "forbidden"),
        (f"{T01} h8 a15 i9", "claim", "black", "resignation"),
        (FIVE, "auto", "black", "five"),
        ("d8 a1 e8 c1 f8 e1 g8 k1 h9 m1 h10 o1 h11 o15 g9 o3 f10 o13 e11 o5 h8", "auto", "black", "five"),
    ],
)
def test_records_that_agree_with_the_report_are_accepted(record: str, mode: str, result: str, reason: str) -> None:
    replay = check_record(record, "renju", mode, result, reason)

    assert len(replay.board.move_stack) == len(record.split())


def test_report_with_a_bad_record_is_refused_in_the_users_language() -> None:
    game = otb_game(forbidden_mode=ForbiddenMode.AUTO)

    with translation.override("zh-hans"):
        error = refused(
            game_report_result,
            game_id=game.pk,
            reporter=game.player_one,
            result="black",
            reason="resignation",
            record=f"{T01} h8 a15",
        )

    assert error.code == "bad_record" and "第 9 手" in error.message
    assert not ResultReport.objects.exists()


def test_referee_claim_on_a_typed_record_upholds_a_double_three_and_ends_the_game() -> None:
    game = otb_game()

    claim = game_referee_claim(game_id=game.pk, record=T01, point="h8")

    game.refresh_from_db()
    assert (claim.status, claim.verdict, claim.move_number) == (ClaimStatus.UPHELD, "double-three", 9)
    assert sorted(sorted(s["stones"]) for s in claim.explanation["shapes"]) == [["g8", "h8", "i8"], ["h10", "h8", "h9"]]
    assert (game.result, game.result_reason, game.record_text) == ("white", "forbidden", f"{T01} h8")


def test_referee_claim_after_white_replied_is_late_and_an_ordinary_stone_is_rejected() -> None:
    game = otb_game()

    late = game_referee_claim(game_id=game.pk, record=T01, point="h8", moves_after=1)
    wrong = game_referee_claim(game_id=game.pk, record=T01, point="o15")

    assert (late.status, wrong.status) == (ClaimStatus.LATE, ClaimStatus.REJECTED)
    assert Game.objects.get(pk=game.pk).status != GameStatus.FINISHED


def test_referee_claim_refuses_a_white_turn_an_occupied_point_and_a_bad_record() -> None:
    game = otb_game()

    assert refused(game_referee_claim, game_id=game.pk, record="h8", point="h9").code == "bad_claim"
    assert refused(game_referee_claim, game_id=game.pk, record=T01, point="g8").code == "occupied"
    assert refused(game_referee_claim, game_id=game.pk, record="h8 h8", point="a1").code == "bad_record"
    assert game.claims.count() == 0


def test_export_and_import_round_trip() -> None:
    game = otb_game()
    game_report_result(
        game_id=game.pk,
        reporter=game.player_one,
        result="black",
        reason="five",
        record="h8 h9 j10 a1 k11 a2 l12 a3 m13 a4 n14",
    )
    game = game_confirm_result(game_id=game.pk, player=game.player_two)

    text = export_plain(game)
    copy = game_import(text=text)

    header = parse_plain(text).header
    assert (header["Opening"], header["Result"], header["Reason"]) == ("3 3D 疏星 Sosei", "1-0", "five")
    assert (copy.record_text, copy.result, copy.result_reason) == (game.record_text, "black", "five")
    assert (copy.player_one, copy.player_two) == (game.player_one, game.player_two)


def test_import_refuses_a_record_with_an_illegal_move_and_stores_nothing() -> None:
    before = Game.objects.count()
    text = '[Black "A"]\n[White "B"]\n[Result "1-0"]\n\nh8 h9 h8'

    error = refused(game_import, text=text)

    assert error.code == "bad_record" and "3" in error.message
    assert Game.objects.count() == before


def test_rif_export_is_well_formed_xml_with_players_and_result() -> None:
    from xml.etree import ElementTree

    from django.utils import timezone

    game = otb_game()
    game = game_rule(game_id=game.pk, result="white", reason="five", record="h8 h9 a1 i9 a3 j9 a5 k9 a7 l9")

    root = ElementTree.fromstring(export_rif([game], timezone.now()))

    element = root.find("games/game")
    assert element is not None
    names = {p.get("id"): p.get("name") for p in root.iterfind("players/player")}
    assert (names[element.get("black")], element.get("bresult")) == (str(game.player_one), "0")
    assert element.findtext("move") == "h8 h9 a1 i9 a3 j9 a5 k9 a7 l9"
