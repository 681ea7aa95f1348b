"""Exactly one beat sends the schedule (config/celery_consumer.py), against a real Redis: a second beat
started by mistake stands by and takes over only once the first stops renewing its lease."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from config.celery_consumer import LEASE_KEY, STANDBY_S, BeatLease, BeatScheduler
from devtools.processes import EmbeddedRedis


@pytest.fixture
def client(redis_server: EmbeddedRedis) -> Any:
    client = redis.Redis.from_url(redis_server.url)
    client.delete(LEASE_KEY)
    yield client
    client.delete(LEASE_KEY)


def test_one_holder_at_a_time_and_the_standby_takes_over_when_it_is_released(client: Any) -> None:
    first, second = BeatLease(client, "host:1"), BeatLease(client, "host:2")

    assert first.hold() and first.hold()  # taken, then renewed
    assert not second.hold()
    assert second.holder_now() == "host:1"
    second.release()  # not its lease: nothing happens
    assert client.get(LEASE_KEY) == b"host:1"

    first.release()
    assert second.hold()
    assert not first.hold()


def test_a_holder_that_stopped_renewing_is_replaced(client: Any) -> None:
    first, second = BeatLease(client, "host:1", ms=60_000), BeatLease(client, "host:2", ms=60_000)
    assert first.hold()
    assert 55_000 < client.pttl(LEASE_KEY) <= 60_000

    client.delete(LEASE_KEY)  # what Redis does once the lease's time runs out unrenewed

    assert second.hold()
    assert not first.hold()  # a holder back from a stop does not take it back: it stands by


def test_without_redis_nobody_holds_it() -> None:
    away = redis.Redis(port=1, socket_connect_timeout=0.2)
    assert not BeatLease(away, "host:1").hold()


def scheduler(app: Any, tmp_path: Path, name: str, client: Any) -> tuple[BeatScheduler, list[str]]:
    beat = BeatScheduler(app=app, schedule_filename=str(tmp_path / name))
    for entry in beat.schedule.values():  # every entry last ran an hour ago: all due now, no waiting
        entry.last_run_at = entry.default_now() - timedelta(hours=1)
    sent: list[str] = []
    beat.apply_entry = lambda entry, producer=None: sent.append(entry.name)  # type: ignore[method-assign]
    beat.lease = BeatLease(client, name)
    return beat, sent


def test_a_second_beat_sends_nothing_while_the_first_holds_the_lease(
    celery_app_on_redis: Any, client: Any, tmp_path: Path
) -> None:
    one, sent_by_one = scheduler(celery_app_on_redis, tmp_path, "one", client)
    two, sent_by_two = scheduler(celery_app_on_redis, tmp_path, "two", client)
    try:
        for _ in range(5):  # each tick sends one due entry
            one.tick()
            assert two.tick() == STANDBY_S
        assert sent_by_one and not sent_by_two
        assert one.leading and two.leading is False

        one.close()  # the first beat stops (its lease released)
        for _ in range(3):
            two.tick()
        assert sent_by_two
    finally:
        two.close()
