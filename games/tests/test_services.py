from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from games.enums import ClaimStatus, ForbiddenMode, GameStatus, WrongClaimPenalty
from games.models import Game, GameEvent, Move, Player
from games.services import GameError, game_act, game_claim_forbidden, game_create, game_resign, game_state
from games.tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

T01 = ["g8", "a1", "i8", "c1", "h9", "e1", "h10", "k1"]  # black to move; h8 is a double-three


def new_game(**kwargs: Any) -> Game:
    return game_create(player_one=PlayerFactory(), player_two=PlayerFactory(), **kwargs)


def play(game: Game, moves: list[str]) -> Game:
    for text in moves:
        state = game_state(game)
        color = state.board.turn
        seat = state.holder(color)
        player = game.player_one if int(seat) == 1 else game.player_two
        game = game_act(
            game_id=game.pk, player=player, action=f"place {text}" if text != "pass" else "pass", expected_ply=game.ply
        )
    return game


def test_game_without_protocol_starts_in_play_with_player_one_black() -> None:
    game = new_game()

    assert (game.status, game.black, game.white) == (GameStatus.PLAYING, game.player_one, game.player_two)


def test_moves_are_recorded_one_per_ply() -> None:
    game = play(new_game(), ["h8", "h9", "i9"])

    assert list(game.moves.values_list("ply", "text", "color")) == [
        (1, "place h8", "black"),
        (2, "place h9", "white"),
        (3, "place i9", "black"),
    ]
    assert GameEvent.objects.filter(game=game, kind="move").count() == 3


def test_stale_or_repeated_ply_is_refused_and_changes_nothing() -> None:
    game = play(new_game(), ["h8"])

    with pytest.raises(GameError) as info:
        game_act(game_id=game.pk, player=game.player_two, action="place h9", expected_ply=0)

    assert (info.value.code, info.value.status) == ("stale_ply", 409)
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.parametrize(
    ("who", "action", "code"),
    [("one", "place h9", "not_your_turn"), ("two", "place h8", "occupied"), ("stranger", "place h9", "not_your_game")],
)
def test_refusals(who: str, action: str, code: str) -> None:
    game = play(new_game(), ["h8"])
    players: dict[str, Player] = {"one": game.player_one, "two": game.player_two, "stranger": PlayerFactory()}
    player = players[who]

    with pytest.raises(GameError) as info:
        game_act(game_id=game.pk, player=player, action=action, expected_ply=1)

    assert info.value.code == code
    assert Game.objects.get(pk=game.pk).ply == 1


def test_auto_mode_foul_ends_the_game_as_a_white_win() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.AUTO), [*T01, "h8"])

    assert (game.status, game.result, game.result_reason, game.result_detail) == (
        GameStatus.FINISHED,
        "white",
        "forbidden",
        "double-three",
    )


def test_block_mode_refuses_the_forbidden_point() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.BLOCK), T01)

    with pytest.raises(GameError) as info:
        play(game, ["h8"])

    assert info.value.code == "forbidden"
    assert Game.objects.get(pk=game.pk).ply == len(T01)


def test_claim_mode_double_three_claimed_at_once_is_upheld() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.CLAIM), [*T01, "h8"])
    assert game.status == GameStatus.PLAYING

    claim = game_claim_forbidden(game_id=game.pk, move_number=9, claimant=game.white)

    game.refresh_from_db()
    assert (claim.status, claim.verdict) == (ClaimStatus.UPHELD, "double-three")
    assert {s["kind"] for s in claim.explanation["shapes"]} == {"three"}
    assert (game.result, game.result_reason) == ("white", "forbidden")


def test_claim_mode_double_three_claimed_after_white_moved_is_late() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.CLAIM), [*T01, "h8", "a15"])

    claim = game_claim_forbidden(game_id=game.pk, move_number=9, claimant=game.white)

    game.refresh_from_db()
    assert claim.status == ClaimStatus.LATE
    assert game.status == GameStatus.PLAYING


def test_claim_mode_overline_claimed_ten_moves_later_is_upheld() -> None:
    overline = ["d8", "a1", "e8", "c1", "f8", "e1", "g8", "k1", "i8", "m1", "h8"]  # black h8 makes six
    quiet = ["a15", "c15", "a13", "c13", "e15", "e13", "g15", "g13", "o3", "o5"]
    game = play(new_game(forbidden_mode=ForbiddenMode.CLAIM), overline + quiet)

    claim = game_claim_forbidden(game_id=game.pk, move_number=11, claimant=game.white)

    assert (claim.status, claim.verdict) == (ClaimStatus.UPHELD, "overline")


def test_five_made_with_a_double_four_stands() -> None:
    t20 = "d8 a1 e8 c1 f8 e1 g8 k1 h9 m1 h10 o1 h11 o15 g9 o3 f10 o13 e11 o5".split()  # noqa: SIM905
    game = play(new_game(forbidden_mode=ForbiddenMode.AUTO), [*t20, "h8"])

    assert (game.result, game.result_reason) == ("black", "five")


def test_wrong_claim_is_rejected_and_costs_a_turn_with_that_penalty() -> None:
    game = new_game(forbidden_mode=ForbiddenMode.CLAIM, wrong_claim_penalty=WrongClaimPenalty.LOSE_TURN)
    game = play(game, ["h8", "a1", "i9"])

    claim = game_claim_forbidden(game_id=game.pk, move_number=3, claimant=game.white)

    game.refresh_from_db()
    assert claim.status == ClaimStatus.REJECTED
    assert list(game.moves.values_list("text", flat=True))[-1] == "pass"
    assert game_state(game).board.turn.name == "BLACK"


def test_resign_gives_the_other_colour_the_win() -> None:
    game = play(new_game(), ["h8"])

    game = game_resign(game_id=game.pk, player=game.player_one)

    assert (game.result, game.result_reason) == ("white", "resignation")


def test_rif_opening_swap_changes_colours() -> None:
    game = new_game(protocol="rif")
    one, two = game.player_one, game.player_two
    for player, text in [(one, "place h8"), (one, "place h9"), (one, "place j10"), (two, "swap")]:
        game = game_act(game_id=game.pk, player=player, action=text, expected_ply=game.ply)

    assert (game.black, game.white, game.status) == (two, one, GameStatus.OPENING)
    with translation.override("en"), pytest.raises(GameError) as info:
        game_act(game_id=game.pk, player=two, action="place k11", expected_ply=game.ply)
    assert (info.value.code, info.value.message) == ("protocol", "it is player one's turn, not player two's")


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"rules": "chess"}, "Unknown rule set chess"),
        ({"protocol": "nope"}, "Unknown opening protocol nope"),
        ({"protocol": "rif", "protocol_options": {"bogus": 1}}, "bogus"),
    ],
)
def test_create_refuses_unknown_setup_and_stores_nothing(kwargs: dict[str, object], fragment: str) -> None:
    with translation.override("en"), pytest.raises(GameError) as info:
        new_game(**kwargs)

    assert info.value.code == "bad_setup" and fragment in info.value.message
    assert Game.objects.count() == 0


def test_claims_are_refused_outside_claim_mode() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.BLOCK), ["h8", "a1", "i9"])

    with pytest.raises(GameError) as info:
        game_claim_forbidden(game_id=game.pk, move_number=3, claimant=game.white)

    assert info.value.code == "no_claims"
    assert game.claims.count() == 0


def test_claim_on_a_white_move_is_refused() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.CLAIM), ["h8", "a1", "i9"])

    with pytest.raises(GameError) as chinese:
        game_claim_forbidden(game_id=game.pk, move_number=2, claimant=game.white)
    with translation.override("en"), pytest.raises(GameError) as english:
        game_claim_forbidden(game_id=game.pk, move_number=2, claimant=game.white)

    assert (chinese.value.code, chinese.value.message) == ("bad_claim", "第 2 手不是黑棋落子。")
    assert english.value.message == "Move 2 is not a black stone."


def test_only_white_may_claim() -> None:
    game = play(new_game(forbidden_mode=ForbiddenMode.CLAIM), [*T01, "h8"])

    with pytest.raises(GameError) as info:
        game_claim_forbidden(game_id=game.pk, move_number=9, claimant=game.black)

    assert info.value.code == "not_white"
    assert Game.objects.get(pk=game.pk).status == GameStatus.PLAYING
