"""A stop of the whole server is nobody's time (games.services.freeze): the wall clock frozen with time-machine,
the heartbeat in a store of the test's own, then in the real Redis with the real heartbeat thread's writer."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.test import override_settings

from games.models import Game, GameEvent, ServerFreeze
from games.selectors import ms
from games.services import freeze, game_act, game_create, game_settle, game_state, games_settle_due
from games.tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
NOMINAL = {"preset": "quick", "lag_compensation": False}  # 30 s a turn, no lag allowance


def timed_game() -> Game:
    return game_create(
        player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=NOMINAL, start_clock_at=START
    )


def mover(game: Game) -> Any:
    return game.player_one if int(game_state(game).to_act) == 1 else game.player_two


class Store:
    """A heartbeat kept in memory: what the processes last wrote."""

    def __init__(self) -> None:
        self.value: int | None = None

    def read(self) -> int | None:
        return self.value

    def write(self, at_ms: int) -> None:
        self.value = at_ms


@pytest.fixture
def frozen() -> Iterator[Any]:
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def heartbeat() -> Iterator[Store]:
    store = Store()
    previous = freeze.use_heartbeat(store)
    with override_settings(CLOCK_FREEZE_RECHECK_MS=0):
        yield store
    freeze.use_heartbeat(previous)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def stop_the_server(frozen: Any, heartbeat: Store, last_beat: float, resumed: float) -> None:
    """The processes last beat at ``last_beat`` s, then stood still until ``resumed`` s."""
    frozen.move_to(at(last_beat))
    freeze.tick()
    frozen.move_to(at(resumed))


def test_a_read_after_a_stop_credits_the_stop_instead_of_flagging(
    frozen: Any, heartbeat: Store, django_capture_on_commit_callbacks: Any
) -> None:
    game = timed_game()  # black's turn from START: 30 s
    stop_the_server(frozen, heartbeat, last_beat=10, resumed=40)  # 30 s standing still

    with django_capture_on_commit_callbacks(execute=True):
        assert game_settle(game_id=game.pk) == "not_due"

    game.refresh_from_db()
    assert (game.status, game.deadline) == ("playing", at(60))
    row = ServerFreeze.objects.get()
    assert (row.since_ms, row.until_ms, row.clocks, row.detected_by) == (ms(at(10)), ms(at(40)), 1, "lazy_read")
    logged = GameEvent.objects.filter(game=game, kind="clock", data__op="freeze").get()
    assert logged.data["args"] == {"from": ms(at(10)), "ms": 30_000}
    assert heartbeat.value == ms(at(40))  # moved on once the credit is committed
    for second in range(41, 61):  # the processes beat on, once a second
        frozen.move_to(at(second))
        freeze.tick()
    frozen.move_to(at(60.1))
    assert game_settle(game_id=game.pk) == "applied"  # the rest of the turn still counts
    assert ServerFreeze.objects.count() == 1


def test_a_move_that_is_the_first_request_after_a_stop_is_charged_without_it(frozen: Any, heartbeat: Store) -> None:
    game = timed_game()
    stop_the_server(frozen, heartbeat, last_beat=12, resumed=42)

    game = game_act(game_id=game.pk, player=mover(game), action="place h8", expected_ply=0)

    assert game.moves.get().clock_ms["think_ms"] == 12_000  # thought until the stop; the stop is nobody's
    assert game.deadline == at(42 + 30)


def test_the_sweep_after_a_stop_credits_every_running_clock_and_flags_only_what_fell_before_it(
    frozen: Any, heartbeat: Store
) -> None:
    flagged_before = timed_game()  # its flag fell at 30 s, before the stop
    frozen.move_to(at(20))
    running = [
        game_act(game_id=g.pk, player=mover(g), action="place h8", expected_ply=0) for g in (timed_game(), timed_game())
    ]  # white to act from 20 s: 30 s
    stop_the_server(frozen, heartbeat, last_beat=32, resumed=48)

    assert games_settle_due(path="sweeper") == 1

    flagged_before.refresh_from_db()
    assert (flagged_before.result_reason, flagged_before.adjudicated_by) == ("time", "sweeper")
    for game in running:
        game.refresh_from_db()
        assert (game.status, game.deadline) == ("playing", at(20 + 30 + 16))
    assert ServerFreeze.objects.get().clocks == 2


def test_two_processes_finding_the_same_stop_credit_it_once(frozen: Any) -> None:
    game = timed_game()
    frozen.move_to(at(25))

    first = freeze.credit(ms(at(5)), ms(at(25)), "heartbeat")
    second = freeze.credit(ms(at(5)), ms(at(25.2)), "lazy_read")

    game.refresh_from_db()
    assert (first, second) == (1, 0)
    assert game.deadline == at(50)
    assert GameEvent.objects.filter(game=game, data__op="freeze").count() == 1


@pytest.mark.parametrize(
    ("last_beat", "credited"),
    [
        (None, False),  # no process has ever beaten: nothing is known to have stopped
        (20.0, False),  # beaten just now
        (17.0, False),  # a 3 s gap is a slow tick, not a stop
        (16.9, True),  # longer than CLOCK_FREEZE_MS
    ],
)
def test_only_a_gap_longer_than_the_threshold_is_a_stop(
    frozen: Any, heartbeat: Store, last_beat: float | None, credited: bool
) -> None:
    timed_game()
    heartbeat.value = None if last_beat is None else ms(at(last_beat))
    frozen.move_to(at(20))

    assert (freeze.guard() == 1) is credited
    assert ServerFreeze.objects.exists() is credited


def test_without_a_heartbeat_store_or_when_turned_off_nothing_is_credited(frozen: Any, heartbeat: Store) -> None:
    timed_game()
    heartbeat.value = ms(START)
    frozen.move_to(at(20))
    with override_settings(CLOCK_FREEZE_MS=0):
        assert freeze.guard() == 0
    previous = freeze.use_heartbeat(None)
    try:
        assert freeze.guard() == 0
    finally:
        freeze.use_heartbeat(previous)
    assert not ServerFreeze.objects.exists()


def test_a_player_marked_absent_keeps_the_time_the_stop_took(frozen: Any, heartbeat: Store) -> None:
    game = clock_not_started()
    game.absent_player, game.absent_deadline = game.player_two, at(30)
    game.save()
    stop_the_server(frozen, heartbeat, last_beat=10, resumed=25)

    freeze.guard()

    game.refresh_from_db()
    assert game.absent_deadline == at(45)


def clock_not_started() -> Any:
    return game_create(player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=NOMINAL)


@pytest.mark.redis
def test_the_heartbeat_in_redis_finds_a_stop(frozen: Any, redis_server: Any) -> None:
    from config.heartbeat import KEY, RedisHeartbeat

    store = RedisHeartbeat(redis_server.url)
    store.client().delete(KEY)
    previous = freeze.use_heartbeat(store)
    try:
        game = timed_game()
        frozen.move_to(at(5))
        assert freeze.tick() == 0 and store.read() == ms(at(5))
        frozen.move_to(at(35))  # every process stood still 30 s; the heartbeat thread runs first
        assert freeze.tick() == 1
        assert store.read() == ms(at(35))
        game.refresh_from_db()
        assert game.deadline == at(60)
    finally:
        freeze.use_heartbeat(previous)


@pytest.mark.pg_django
@pytest.mark.django_db(transaction=True)
def test_processes_that_find_the_same_stop_at_the_same_instant_credit_it_once() -> None:
    """Four processes (threads with their own PostgreSQL connections) wake from one stop together."""
    import threading

    from django.db import connection

    games = [
        game_create(player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=NOMINAL, start_clock_at=at(0))
        for _ in range(3)
    ]
    barrier = threading.Barrier(4)
    credited: list[int] = []

    def wake(n: int) -> None:
        try:
            barrier.wait()
            credited.append(freeze.credit(ms(at(5)), ms(at(25)) + n, f"process {n}"))
        finally:
            connection.close()

    threads = [threading.Thread(target=wake, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(credited) == [0, 0, 0, 3]
    assert ServerFreeze.objects.count() == 1
    for game in games:
        game.refresh_from_db()
        assert GameEvent.objects.filter(game=game, data__op="freeze").count() == 1
        assert game.deadline is not None and at(49.9) < game.deadline < at(50.1)
    assert connection.vendor == "postgresql"
