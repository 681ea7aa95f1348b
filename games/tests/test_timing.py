"""Clocks inside the services: lazy adjudication, offers, overtime, referees (time frozen with time-machine)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from games.enums import GameStatus
from games.models import Game, GameEvent, Move
from games.services import (
    GameError,
    clock_view,
    game_act,
    game_answer_draw,
    game_clock_action,
    game_create,
    game_offer_draw,
    game_settle,
    game_state,
)
from games.tasks import adjudicate
from games.tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
QUIET = [f"{c}{r}" for c in "acegikmo" for r in (1, 3, 5, 7, 9, 11, 13, 15)]  # never five, never a foul


@pytest.fixture
def frozen() -> Any:
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


NOMINAL = {"preset": "quick", "lag_compensation": False}  # the limits themselves; lag: test_fairness.py


def timed_game(time_control: Any = NOMINAL) -> Game:
    return game_create(
        player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=time_control, start_clock_at=START
    )


def mover(game: Game) -> Any:
    seat = game_state(game).to_act
    return game.player_one if int(seat) == 1 else game.player_two


def play_at(game: Game, point: str, seconds: float, frozen: Any) -> Game:
    frozen.move_to(START + timedelta(seconds=seconds))
    return game_act(game_id=game.pk, player=mover(game), action=f"place {point}", expected_ply=game.ply)


@pytest.mark.parametrize(("seconds", "ok"), [(29.9, True), (30.0, True), (30.1, False)])
def test_first_move_boundary(frozen: Any, seconds: float, ok: bool) -> None:
    game = timed_game()

    if ok:
        game = play_at(game, "h8", seconds, frozen)
        move = game.moves.get()
        assert move.clock_ms["think_ms"] == int(seconds * 1000)
        assert game.deadline == START + timedelta(seconds=seconds + 30)
        return
    with pytest.raises(GameError) as info:
        play_at(game, "h8", seconds, frozen)
    game.refresh_from_db()
    assert (info.value.code, info.value.status) == ("time_over", 409)
    assert (game.status, game.result, game.result_reason, game.adjudicated_by) == (
        GameStatus.FINISHED,
        "white",
        "time",
        "lazy_write",
    )
    assert not Move.objects.filter(game=game).exists()


def test_a_read_after_the_deadline_settles_the_game(frozen: Any) -> None:
    game = timed_game()
    frozen.move_to(START + timedelta(seconds=30.1))

    assert game_settle(game_id=game.pk, path="lazy_read") == "applied"
    assert game_settle(game_id=game.pk, path="lazy_read") == "finished"

    game.refresh_from_db()
    assert (game.result, game.adjudicated_by) == ("white", "lazy_read")
    assert GameEvent.objects.filter(game=game, kind="finished").count() == 1


def test_duplicate_early_and_stale_tasks_change_nothing(frozen: Any) -> None:
    game = timed_game()
    version = game.clock_version

    frozen.move_to(START + timedelta(seconds=28))
    assert adjudicate(game.pk, version) == "not_due"  # early: it would re-enqueue itself
    game = play_at(game, "h8", 29, frozen)
    frozen.move_to(START + timedelta(seconds=31))
    assert adjudicate(game.pk, version) == "stale"  # about the turn that ended with h8
    frozen.move_to(START + timedelta(seconds=60))
    assert adjudicate(game.pk, game.clock_version) == "applied"
    assert adjudicate(game.pk, game.clock_version) == "finished"

    game.refresh_from_db()
    assert (game.result, game.result_reason, game.adjudicated_by) == ("black", "time", "eta")
    assert GameEvent.objects.filter(game=game, kind="finished").count() == 1


def test_retried_move_after_a_lost_response_is_answered_as_stored_and_charges_nothing(frozen: Any) -> None:
    game = play_at(timed_game(), "h8", 5, frozen)
    stored = Game.objects.get(pk=game.pk)
    frozen.move_to(START + timedelta(seconds=20))  # the retry arrives late: the opponent's clock is running

    again = game_act(game_id=game.pk, player=game.player_one, action="place h8", expected_ply=0)

    assert (again.ply, again.clock, again.clock_version) == (stored.ply, stored.clock, stored.clock_version)
    assert Move.objects.filter(game=game).count() == 1
    with pytest.raises(GameError) as info:  # another move for that ply is stale
        game_act(game_id=game.pk, player=game.player_one, action="place h9", expected_ply=0)
    assert info.value.code == "stale_ply"


def test_draw_offer_stops_the_clocks_and_acceptance_draws(frozen: Any) -> None:
    game = play_at(timed_game(), "h8", 5, frozen)  # player one (black) just moved
    frozen.move_to(START + timedelta(seconds=6))
    game = game_offer_draw(game_id=game.pk, player=game.player_one)
    frozen.move_to(START + timedelta(seconds=30))

    view = clock_view(game)
    assert (view["paused"], view["reply_left"], view["turn_left"]) == ("offer", 6000, 29000)
    # seats are 1 and 2 here as in the position: player one offered, player two's turn is running
    assert (view["offer_by"], view["actor"]) == (1, 2) == (1, int(game_state(game).to_act))
    game = game_answer_draw(game_id=game.pk, player=game.player_two, accept=True)

    assert (game.result, game.result_reason) == ("draw", "agreement")


def test_an_offer_on_your_own_turn_and_a_third_offer_are_refused(frozen: Any) -> None:
    game = play_at(timed_game(), "h8", 1, frozen)

    with pytest.raises(GameError) as on_turn:
        game_offer_draw(game_id=game.pk, player=game.player_two)
    for second in (2, 3):
        frozen.move_to(START + timedelta(seconds=second))
        game_offer_draw(game_id=game.pk, player=game.player_one)
        game_answer_draw(game_id=game.pk, player=game.player_two, accept=False)
    with pytest.raises(GameError) as third:
        game_offer_draw(game_id=game.pk, player=game.player_one)

    assert (on_turn.value.code, third.value.code) == ("offer_on_turn", "no_offers_left")


def test_unanswered_offer_lapses_and_the_game_goes_on(frozen: Any) -> None:
    game = play_at(timed_game(), "h8", 1, frozen)
    frozen.move_to(START + timedelta(seconds=2))
    game_offer_draw(game_id=game.pk, player=game.player_one)

    frozen.move_to(START + timedelta(seconds=40))  # lapsed at 32 s; white's turn resumed then with 29 s left
    assert game_settle(game_id=game.pk, path="sweeper") == "applied"
    game = play_at(Game.objects.get(pk=game.pk), "a1", 60.9, frozen)

    assert game.status == GameStatus.PLAYING
    assert game.moves.last().clock_ms["think_ms"] == 29_900


def test_eighth_overtime_stone_of_the_second_side_draws(frozen: Any) -> None:
    game = timed_game({"preset": "quick", "main_ms": 1000})
    for n, point in enumerate(QUIET[:16]):
        game = play_at(game, point, 2 + n, frozen)

    assert (game.status, game.result, game.result_reason) == (GameStatus.FINISHED, "draw", "overtime_exhausted")


def test_five_on_the_last_overtime_stone_wins(frozen: Any) -> None:
    game = timed_game({"preset": "quick", "main_ms": 1000})
    black = ["h8", "j8", "l8", "n8", "h10", "j10", "l10", "n10"]
    white = ["a3", "c3", "e3", "a1", "b1", "c1", "d1", "e1"]  # white's 8th overtime stone, e1, makes five
    record = [p for pair in zip(black, white, strict=True) for p in pair]
    for n, point in enumerate(record):
        game = play_at(game, point, 2 + n, frozen)

    assert (game.result, game.result_reason) == ("white", "five")


def test_referee_pause_and_added_time(frozen: Any) -> None:
    game = timed_game()
    frozen.move_to(START + timedelta(seconds=10))
    game = game_clock_action(game_id=game.pk, op="pause")
    frozen.move_to(START + timedelta(seconds=500))
    game = game_clock_action(game_id=game.pk, op="resume")
    game = game_clock_action(game_id=game.pk, op="add_time", seat=1, ms_added=15_000, target="turn")

    assert game.deadline == START + timedelta(seconds=500 + 20 + 15)
    assert [e.data["op"] for e in GameEvent.objects.filter(game=game, kind="clock")] == [
        "start",
        "pause",
        "resume",
        "add_time",
    ]


def test_settings_guard_redelivery_and_eager_mode() -> None:
    from django.conf import settings

    from games.clock import PRESETS

    longest_countdown_s = max((tc.move_ms or 0) for tc in PRESETS.values()) / 1000 + 1
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > longest_countdown_s + 60
    assert not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
    assert settings.CELERY_TASK_ROUTES["games.adjudicate"]["queue"] == "clock"
    assert settings.CELERY_TASK_ROUTES["games.adjudicate_due"]["queue"] == "clock"


def test_a_burst_of_deadlines_is_settled_in_one_pass_like_one_by_one(frozen: Any) -> None:
    from games.services import games_settle_due

    alone, burst = timed_game(), [timed_game() for _ in range(4)]
    later = play_at(timed_game(), "h8", 20, frozen)  # its deadline is 30 s after h8
    frozen.move_to(START + timedelta(seconds=31))

    assert game_settle(game_id=alone.pk, path="eta") == "applied"
    assert games_settle_due(path="eta") == 4
    assert games_settle_due(path="eta") == 0  # idempotent

    def trail(game: Game) -> list[tuple[str, Any]]:
        return [(e.kind, e.data) for e in GameEvent.objects.filter(game=game).exclude(kind="created").order_by("pk")]

    for game in burst:
        game.refresh_from_db()
        fields = ("status", "result", "result_reason", "result_detail", "adjudicated_by", "deadline")
        assert [getattr(game, f) for f in fields] == ["finished", "white", "time", "black", "eta", None]
        alone.refresh_from_db()
        assert game.clock == alone.clock and game.finished_at == alone.finished_at
        assert trail(game) == trail(alone)
    later.refresh_from_db()
    assert later.status == "playing"


def test_a_pass_that_finds_only_a_held_flag_writes_nothing_and_takes_no_lock(frozen: Any) -> None:
    """On SQLite every transaction takes the one write lock: a pass with nothing to write must not open one
    (the deadline task looks at a held flag again every 0.2 s, while the move it waits for needs the lock)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import flaghold
    from games.services import games_settle_due

    game = timed_game()
    frozen.move_to(START + timedelta(seconds=31))
    previous = flaghold.use_requests(lambda: (START + timedelta(seconds=29)).timestamp())  # a move in flight
    try:
        with CaptureQueriesContext(connection) as held:
            assert games_settle_due(path="eta") == 0
    finally:
        flaghold.use_requests(previous)

    written = [q["sql"] for q in held.captured_queries if q["sql"].split()[0] in ("SAVEPOINT", "UPDATE", "INSERT")]
    assert written == []
    assert games_settle_due(path="eta") == 1  # served: the flag falls
    game.refresh_from_db()
    assert (game.result_reason, game.adjudicated_by) == ("time", "eta")
