"""Fair clocks under load (injected clock): the server's queue is never charged, network lag is credited
within a quota, a flag waits for a move that arrived in time, and an over-the-board game never flags."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from config import arrivals
from games import clock, flaghold
from games.models import Game, GameEvent, Move
from games.services import GameError, game_act, game_create, game_settle, game_state
from games.tasks import adjudicate, adjudicate_due
from games.tests.factories import GameFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
QUICK = clock.PRESETS["quick"]


def timed_game(control: Any = "quick", **kwargs: Any) -> Game:
    return game_create(
        player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=control, start_clock_at=START, **kwargs
    )


NOMINAL = {"preset": "quick", "lag_compensation": False}


def mover(game: Game) -> Any:
    return game.player_one if int(game_state(game).to_act) == 1 else game.player_two


def first_move(game: Game, *, seconds: float, think_ms: int) -> Game:
    """h8 played ``seconds`` after the clock started, the client saying it thought ``think_ms``."""
    return game_act(
        game_id=game.pk,
        player=mover(game),
        action="place h8",
        expected_ply=0,
        at=START + timedelta(seconds=seconds),
        think_ms=think_ms,
    )


def think(game: Game, ply: int) -> tuple[int, int]:
    readings = Move.objects.get(game=game, ply=ply).clock_ms
    return readings["think_ms"], readings["lag_credit_ms"]


# -- the server's queue ------------------------------------------------------------------------------


class Sent(list[float]):
    """Stands for ``scheduling.publish_due``: notes each instant a slice's task is sent for."""

    def __call__(self, when: float) -> bool:
        self.append(when)
        return True


def test_a_move_is_timed_when_it_reached_the_machine_not_when_django_got_to_it() -> None:
    account = UserFactory(username="black")
    game = GameFactory(player_one=PlayerFactory(user=account), time_control="quick", start_clock_at=START)
    client = APIClient()
    client.force_authenticate(account)
    arrived = START + timedelta(seconds=10)
    arrivals.set_current(arrived.timestamp())  # stamped by the front of the stack (config.gunicorn_worker)
    try:
        with time_machine.travel(arrived + timedelta(seconds=2.5), tick=False):  # 2.5 s in the server's queue
            response = client.post(f"/api/games/{game.pk}/move/", {"ply": 0, "point": "h8"}, format="json")
    finally:
        arrivals.set_current(None)

    assert response.status_code == 200, response.json()
    assert think(game, 1) == (10_000, 0)
    event = GameEvent.objects.filter(game=game, kind="move").get()
    assert event.data["queued_ms"] == 2_500


def test_the_opponent_is_not_charged_for_the_queue_either() -> None:
    accounts = [UserFactory(username=n) for n in ("black", "white")]
    game = GameFactory(
        player_one=PlayerFactory(user=accounts[0]),
        player_two=PlayerFactory(user=accounts[1]),
        time_control="quick",
        start_clock_at=START,
    )
    clients = [APIClient(), APIClient()]
    for client, account in zip(clients, accounts, strict=True):
        client.force_authenticate(account)

    def post(n: int, point: str, ply: int, arrived: float, applied: float) -> None:
        arrivals.set_current((START + timedelta(seconds=arrived)).timestamp())
        try:
            with time_machine.travel(START + timedelta(seconds=applied), tick=False):
                response = clients[n].post(f"/api/games/{game.pk}/move/", {"ply": ply, "point": point}, format="json")
        finally:
            arrivals.set_current(None)
        assert response.status_code == 200, response.json()

    post(0, "h8", 0, arrived=10, applied=12.5)  # black's move waits 2.5 s in the queue
    post(1, "a1", 1, arrived=15, applied=15)  # white saw it at 12.5 and answered at 15

    assert think(game, 1)[0] == 10_000 and think(game, 2)[0] == 2_500


def test_a_move_that_arrived_in_time_but_waited_past_the_deadline_stands() -> None:
    game = timed_game()
    deadline = START + timedelta(seconds=30)  # quick: 30 s a move
    arrived = deadline - timedelta(milliseconds=200)

    with time_machine.travel(deadline + timedelta(seconds=3), tick=False):
        game = game_act(
            game_id=game.pk, player=mover(game), action="place h8", expected_ply=0, at=arrived, queued_ms=3_200
        )

    assert (game.status, think(game, 1)[0]) == ("playing", 29_800)


@pytest.mark.parametrize("path", ["eta", "sweeper", "lazy_read"])
def test_no_flag_while_a_request_that_arrived_before_the_deadline_is_still_served(settings: Any, path: str) -> None:
    game = timed_game(NOMINAL)
    flag_at = START + timedelta(seconds=30)
    arrived = flag_at - timedelta(milliseconds=100)
    WAITING[:] = [arrived.timestamp()]

    held = game_settle(game_id=game.pk, at=flag_at + timedelta(seconds=2), path=path)
    game = game_act(game_id=game.pk, player=mover(game), action="place h8", expected_ply=0, at=arrived)
    WAITING[:] = []
    late = game_settle(game_id=game.pk, at=flag_at + timedelta(seconds=2), path=path)

    assert (held, game.status, late) == ("held", "playing", "not_due")


def test_a_request_that_arrived_after_the_deadline_does_not_hold_the_flag(settings: Any) -> None:
    game = timed_game(NOMINAL)
    flag_at = START + timedelta(seconds=30)
    WAITING[:] = [(flag_at + timedelta(milliseconds=1)).timestamp()]

    outcome = game_settle(game_id=game.pk, at=flag_at + timedelta(seconds=1), path="eta")

    WAITING[:] = []
    game.refresh_from_db()
    assert (outcome, game.status, game.result_reason) == ("applied", "finished", "time")


def test_a_hold_ends_after_the_bound(settings: Any) -> None:
    game = timed_game(NOMINAL)
    flag_at = START + timedelta(seconds=30)
    settings.CLOCK_HOLD_MAX_MS = 5_000
    WAITING[:] = [START.timestamp()]

    assert game_settle(game_id=game.pk, at=flag_at + timedelta(seconds=4), path="eta") == "held"
    assert game_settle(game_id=game.pk, at=flag_at + timedelta(seconds=6), path="eta") == "applied"
    WAITING[:] = []


def test_the_worker_task_looks_again_when_held(settings: Any, monkeypatch: Any) -> None:
    game = timed_game(NOMINAL)
    WAITING[:] = [START.timestamp()]
    sent: list[float] = []

    def publish(game_id: int, version: int, when: float) -> bool:
        sent.append(when)
        return True

    monkeypatch.setattr("games.services.scheduling.publish", publish)
    monkeypatch.setattr("games.services.scheduling.markers", lambda: None)

    with time_machine.travel(START + timedelta(seconds=31), tick=False):
        outcome = adjudicate(game.pk, -1)

    WAITING[:] = []
    assert outcome == "held" and sent == [pytest.approx((START + timedelta(seconds=31.2)).timestamp())]


def test_held_flags_of_many_games_are_looked_at_again_by_one_pass_not_one_task_each(monkeypatch: Any) -> None:
    games = [timed_game(NOMINAL) for _ in range(3)]
    WAITING[:] = [START.timestamp()]
    sent: list[int] = []

    class Markers:  # Redis's SET NX PX, GET and DELETE, in memory
        def __init__(self) -> None:
            self.values: dict[str, Any] = {}

        def set(self, key: str, value: Any, nx: bool = False, px: int | None = None, ex: int | None = None) -> bool:
            if nx and key in self.values:
                return False
            self.values[key] = value
            return True

        def get(self, key: str) -> Any:
            return self.values.get(key)

        def delete(self, key: str) -> None:
            self.values.pop(key, None)

    markers = Markers()
    monkeypatch.setattr("games.services.scheduling.markers", lambda: markers)
    monkeypatch.setattr("games.services.scheduling.publish", lambda game_id, version, when: sent.append(game_id))

    with time_machine.travel(START + timedelta(seconds=31), tick=False):
        outcomes = [adjudicate(g.pk, -1) for g in games]
        WAITING[:] = []  # the move in flight was served (and was not one of theirs)
        markers.delete("clock-task:held-retry")  # 0.2 s later
        again = adjudicate(games[0].pk, -1)

    assert (outcomes, sent) == (["held"] * 3, [games[0].pk])  # one look again for the three
    assert again == "applied"
    assert {g.result_reason for g in Game.objects.filter(pk__in=[g.pk for g in games])} == {"time"}


def test_the_slice_task_settles_every_game_due_and_looks_again_once_for_those_held(monkeypatch: Any) -> None:
    games = [timed_game(NOMINAL) for _ in range(3)]  # one round: one deadline, one slice's task
    later = game_create(  # due 20 s after them
        player_one=PlayerFactory(),
        player_two=PlayerFactory(),
        time_control=NOMINAL,
        start_clock_at=START + timedelta(seconds=20),
    )
    sent = Sent()
    monkeypatch.setattr("games.services.scheduling.publish_due", sent)
    monkeypatch.setattr("games.services.scheduling.claim_held_retry", lambda after_s: len(sent) < 1)
    when = (START + timedelta(seconds=30.3)).timestamp()

    WAITING[:] = [START.timestamp()]  # a request that arrived before the flags fell is still being served
    with time_machine.travel(START + timedelta(seconds=30.3), tick=False):
        assert adjudicate_due(when) == 0  # held: nothing written
    assert sent == pytest.approx([when + 0.2])  # one look again for the three
    WAITING[:] = []
    with time_machine.travel(START + timedelta(seconds=30.5), tick=False):
        assert adjudicate_due(when + 0.2) == 3
    assert sent == pytest.approx([when + 0.2])  # nothing due is left: no look again
    assert {g.result_reason for g in Game.objects.filter(pk__in=[g.pk for g in games])} == {"time"}
    assert set(Game.objects.filter(pk__in=[g.pk for g in games]).values_list("adjudicated_by", flat=True)) == {"eta"}
    later.refresh_from_db()
    assert later.status == "playing" and later.result_reason == ""  # not due: untouched


def test_a_slice_task_run_early_settles_what_is_due_and_is_sent_again_for_its_instant(monkeypatch: Any) -> None:
    game = timed_game(NOMINAL)  # due 30 s after START
    sent = Sent()
    monkeypatch.setattr("games.services.scheduling.publish_due", sent)
    when = (START + timedelta(seconds=31)).timestamp()  # a slice whose games fall due by 31 s
    with time_machine.travel(START + timedelta(seconds=30.5), tick=False):  # the task runs early
        assert adjudicate_due(when) == 1
    assert sent == [when]  # again at its instant, for what falls due by then
    game.refresh_from_db()
    assert (game.result_reason, game.adjudicated_by) == ("time", "eta")


WAITING: list[float] = []


@pytest.fixture(autouse=True)
def _requests_in_flight() -> Iterator[None]:
    """The flag hold reads the requests in flight from WAITING (nothing waits while it is empty)."""
    previous = flaghold.use_requests(waiting)
    yield
    flaghold.use_requests(previous)


def waiting() -> float | None:
    return min(WAITING) if WAITING else None


# -- network lag ----------------------------------------------------------------------------------------


def test_lag_is_credited_within_the_quota_and_the_quota_runs_out() -> None:
    game = timed_game()
    gain, start_quota, top = QUICK.lag_gain_ms, QUICK.lag_quota_start_ms, QUICK.lag_quota_max_ms
    assert (gain, start_quota, top) == (1000, 3000, 7000)
    # Black's client always reports 1 s of thinking; its moves reach the server 4.5 s after the turn began.
    at, quota, points, expected = START, start_quota, ["h8", "a1", "i8", "a3", "j8", "a5", "g6", "a7", "b12"], []
    for ply, point in enumerate(points):
        black = ply % 2 == 0
        at += timedelta(milliseconds=4_500 if black else 2_000)
        game = game_act(
            game_id=game.pk,
            player=mover(game),
            action=f"place {point}",
            expected_ply=ply,
            at=at,
            think_ms=1_000 if black else None,  # white's client says nothing: no credit
        )
        if black:
            credit = min(3_500, quota)
            quota = min(top, quota - credit + gain)
            expected.append((4_500 - credit, credit))
        else:
            expected.append((2_000, 0))

    assert [think(game, ply) for ply in range(1, len(points) + 1)] == expected
    assert [c for _t, c in expected[::2]] == [3000, 1000, 1000, 1000, 1000]  # the quota ran out after the first
    assert clock.ClockState.from_dict(game.clock).lag_quota == (0 + gain, start_quota + 4 * gain)


def test_a_claimed_think_longer_than_the_charge_gets_no_credit() -> None:
    game = timed_game()

    game = first_move(game, seconds=5, think_ms=9_000)

    assert think(game, 1) == (5_000, 0)


def test_lag_credit_lets_a_move_that_arrived_just_late_stand_and_is_logged() -> None:
    game = timed_game()
    arrived = START + timedelta(seconds=31)  # 1 s past the 30 s limit, after 29 s of thinking by the client

    game = game_act(game_id=game.pk, player=mover(game), action="place h8", expected_ply=0, at=arrived, think_ms=29_000)

    assert game.status == "playing" and think(game, 1) == (29_000, 2_000)
    assert GameEvent.objects.filter(game=game, kind="move").get().data["lag_credit_ms"] == 2_000


def test_without_lag_compensation_nothing_is_credited() -> None:
    game = game_create(
        player_one=PlayerFactory(),
        player_two=PlayerFactory(),
        time_control={"preset": "quick", "lag_compensation": False},
        start_clock_at=START,
    )

    with pytest.raises(GameError) as info:
        first_move(game, seconds=31, think_ms=29_000)

    assert info.value.code == "time_over"


def test_no_one_else_flags_while_the_actors_lag_allowance_lasts() -> None:
    game = timed_game()  # quick: 30 s a move; the starting quota lets a move 3 s late stand with its credit
    allowance = QUICK.lag_quota_start_ms
    deadline = START + timedelta(seconds=30)

    early = game_settle(game_id=game.pk, at=deadline + timedelta(milliseconds=allowance), path="lazy_read")
    game.refresh_from_db()
    stored = game.deadline
    late = game_settle(game_id=game.pk, at=deadline + timedelta(milliseconds=allowance + 1), path="eta")
    game.refresh_from_db()

    assert (early, late, game.result_reason) == ("not_due", "applied", "time")
    assert stored == deadline + timedelta(milliseconds=allowance)  # the worker is sent for then
    flag = GameEvent.objects.filter(game=game, kind="clock", data__op="flag").get()
    assert flag.data["at"] == round(deadline.timestamp() * 1000)  # the loss is recorded at the deadline itself


def test_the_actors_own_late_move_without_a_claim_gets_no_allowance() -> None:
    game = timed_game()

    with pytest.raises(GameError) as info:
        game_act(
            game_id=game.pk,
            player=mover(game),
            action="place h8",
            expected_ply=0,
            at=START + timedelta(seconds=30, milliseconds=1),
        )

    assert info.value.code == "time_over"


def test_an_over_the_board_game_never_flags() -> None:
    game = game_create(
        player_one=PlayerFactory(), player_two=PlayerFactory(), mode="otb", time_control="quick", start_clock_at=START
    )

    assert game_settle(game_id=game.pk, at=START + timedelta(days=1), path="sweeper") == "not_due"
    game.refresh_from_db()
    assert (game.status, game.clock["status"], game.deadline) == ("playing", "waiting", None)


# -- the stamp ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "trusted", "expected"),
    [
        ("t=1764579600.250", True, 1764579600.25),  # nginx: seconds with milliseconds
        ("1764579600250", True, 1764579600.25),  # milliseconds
        ("1764579600250000", True, 1764579600.25),  # microseconds
        ("t=1764579600.250", False, 1764579601.0),  # not behind a trusted proxy: ignored
        ("t=1764579000", True, 1764579601.0),  # ten minutes old: a clock that is off, ignored
        ("t=1764579700", True, 1764579601.0),  # in the future: ignored
        ("garbage", True, 1764579601.0),
    ],
)
def test_x_request_start_is_used_only_when_trusted_and_plausible(header: str, trusted: bool, expected: float) -> None:
    assert arrivals.arrival({"HTTP_X_REQUEST_START": header}, 1764579601.0, trusted) == pytest.approx(expected)


class FakeRedis:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def set(self, key: str, value: str, px: int) -> None:
        self.values[key] = value

    def delete(self, key: str) -> None:
        self.values.pop(key, None)

    def pipeline(self, transaction: bool = True) -> FakeRedis:
        return self

    def sadd(self, key: str, member: str) -> None:
        self.names = {*getattr(self, "names", set()), member}

    def expire(self, key: str, seconds: int) -> None:
        pass

    def execute(self) -> None:
        pass


def test_the_web_process_publishes_its_oldest_request_at_once_and_clears_it() -> None:
    redis = FakeRedis()
    publisher = arrivals.Publisher(redis, "web:1")

    publisher.started(1, 100.0)
    first = dict(redis.values)
    publisher.started(2, 101.0)
    publisher.finished(1)
    publisher.flush(force=True)
    second = dict(redis.values)
    publisher.finished(2)
    publisher.flush(force=True)

    assert (first, second, redis.values) == ({"arrivals:web:1": "100.0"}, {"arrivals:web:1": "101.0"}, {})
