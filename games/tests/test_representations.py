"""The representations built directly for speed (games.serializers.game_state_data,
games.selectors.move_view) are exactly what the serializers that document them give, in every state a game
passes through."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.http import QueryDict
from rest_framework.exceptions import ValidationError

from games import clock
from games.models import ForbiddenClaim, Game, Move, Player, ResultReport
from games.selectors import move_view
from games.serializers import (
    GameDetailSerializer,
    GameStateSerializer,
    MoveInputSerializer,
    MoveSerializer,
    game_detail_data,
    game_state_data,
    move_input,
    validated,
)
from games.services import game_act, game_create, game_offer_draw
from games.services.arbiter import game_call_arbiter

pytestmark = pytest.mark.django_db


def same(game: Game) -> None:
    game = Game.objects.get(pk=game.pk)
    assert game_state_data(game) == GameStateSerializer(game).data
    full = Game.objects.select_related("player_one", "player_two").prefetch_related("moves", "claims", "reports")
    detail = full.get(pk=game.pk)
    assert game_detail_data(detail) == GameDetailSerializer(detail).data
    for move in Move.objects.filter(game=game):
        assert move_view(move) == MoveSerializer(move).data


def pair() -> tuple[Player, Player]:
    return Player.objects.create(name="One"), Player.objects.create(name="Two")


def test_a_free_game_from_its_creation_to_a_five(time_machine: Any) -> None:
    time_machine.move_to(datetime(2026, 12, 4, 10, 0, tzinfo=UTC), tick=False)
    one, two = pair()
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    same(game)  # the clock waits
    for ply, point in enumerate(["h8", "a1", "h9", "a3", "h10", "a5", "h11", "a7"]):
        time_machine.shift(timedelta(seconds=2))
        game_act(game_id=game.pk, player=one if ply % 2 == 0 else two, action=f"place {point}", expected_ply=ply)
        same(game)
    game_act(game_id=game.pk, player=one, action="place h12", expected_ply=8)
    game.refresh_from_db()
    assert game.status == "finished" and game.result_reason == "five"
    same(game)


def test_a_renju_opening_a_forbidden_point_an_offer_and_an_open_call(time_machine: Any) -> None:
    time_machine.move_to(datetime(2026, 12, 4, 10, 0, tzinfo=UTC), tick=False)
    one, two = pair()
    game = game_create(player_one=one, player_two=two, rules="renju", protocol="rif", time_control="quick")
    game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    same(game)  # in the opening: what is expected next, by whom
    other = game_create(player_one=one, player_two=two, rules="renju", time_control="quick")
    for ply, point in enumerate(["g8", "a1", "h8", "a3", "i10", "a5", "i9", "a7"]):
        game_act(game_id=other.pk, player=one if ply % 2 == 0 else two, action=f"place {point}", expected_ply=ply)
    assert game_state_data(Game.objects.get(pk=other.pk))["position"]["forbidden"]
    same(other)
    game_offer_draw(game_id=other.pk, player=two)  # the clocks stop for the answer
    same(other)
    game_call_arbiter(game_id=other.pk, player=one, note="noise")
    assert game_state_data(Game.objects.get(pk=other.pk))["arbiter_call"] is not None
    same(other)


# -- a move's input: the direct check of the common move against MoveInputSerializer ----------------------

MOVE_VALUES: dict[str, list[Any]] = {
    "ply": [0, 7, -1, "7", 7.0, 7.5, True, None, [7], 10**30],
    "point": ["h8", "O15", " h8", "h8 ", "", "h8h8h", "h\x008", "\ud800", 8, None, "五"],
    "action": ["place h8", "swap", "", "  ", "x" * 200, "x" * 201, "a\x00", 1, None],
    "think_ms": [0, 1500, 86_400_000, 86_400_001, -1, "1500", 1.5, False, None],
    "seat": [1, 2, 0, 3, "1", True, None],
    "other": ["anything"],
}


def outcome(check: Any, data: Any) -> Any:
    try:
        return ("valid", check(data))
    except ValidationError as exc:
        return ("refused", exc.detail)


def inputs() -> Any:
    yield {"ply": 3, "point": "h8"}
    yield {"ply": 3, "point": "h8", "think_ms": 1200}
    for field, values in MOVE_VALUES.items():
        for value in values:
            yield {"ply": 3, "point": "h8", field: value}
            yield {"ply": 3, "action": "place h8", field: value}
            yield {field: value}
    yield {"ply": 3}
    yield {}
    yield []
    yield "ply=3"
    yield QueryDict("ply=3&point=h8")


def test_a_moves_input_is_checked_exactly_as_its_serializer_checks_it() -> None:
    for data in inputs():
        assert outcome(move_input, data) == outcome(lambda d: validated(MoveInputSerializer, d), data), data


def test_the_common_move_is_checked_without_building_the_serializer(monkeypatch: Any) -> None:
    def refuse(*_args: Any) -> None:
        raise AssertionError("the serializer was built")

    monkeypatch.setattr("games.serializers.validated", refuse)
    move = {"ply": 12, "point": "h8", "think_ms": 2500}
    assert move_input(move) == move
    with pytest.raises(AssertionError):
        move_input({"ply": "12", "point": "h8"})  # a number as text: the serializer's to read


def test_the_clocks_dictionaries_are_what_asdict_gives() -> None:
    control = clock.PRESETS["quick"]
    state = clock.start(clock.initial(control), control, 1_000, 0)[0]
    state = clock.play(state, control, 4_000, 1)[0]
    shown = clock.view(state, control, 5_000)
    for value in (control, state, shown):
        assert value.to_dict() == asdict(value) and list(value.to_dict()) == list(asdict(value))
    assert shown.to_dict()["main_left"] is not shown.main_left  # a copy: the caller may change it


def test_a_game_with_claims_reports_and_rated_players_reads_the_same(time_machine: Any) -> None:
    time_machine.move_to(datetime(2026, 12, 4, 10, 0, tzinfo=UTC), tick=False)
    one = Player.objects.create(name="One", unit="Club 一", rating=1720)
    two = Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two, rules="renju", time_control="quick", event="Open", round=3)
    for ply, point in enumerate(["h8", "a1", "h9"]):
        game_act(game_id=game.pk, player=one if ply % 2 == 0 else two, action=f"place {point}", expected_ply=ply)
    ForbiddenClaim.objects.create(game=game, move_number=3, point="h9", verdict="none", explanation={"why": "—"})
    ResultReport.objects.create(game=game, reporter=one, result="black", reason="resignation", record="h8 a1 h9")
    same(game)
