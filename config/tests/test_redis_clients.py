"""The Redis the move path talks to, on a real redis-server: the cache's one client per pool (config.cache),
the clock's slice markers (games.services.scheduling.enqueue: one task per slice of deadlines), the requests in flight
read in two (config.arrivals.waiting_since), and the broker's channel keeping its client (config.broker)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
import redis

from config import arrivals
from config.broker import Channel
from config.cache import RedisCache
from games.services import scheduling


class Sent(list[float]):
    """Stands for ``scheduling.publish_due``: notes each instant a slice's task is sent for."""

    def __call__(self, when: float) -> bool:
        self.append(when)
        return True


def test_the_cache_keeps_one_client_and_works_as_djangos(redis_server: Any) -> None:
    cache = RedisCache(redis_server.url, {"OPTIONS": {"socket_timeout": 0.5}})
    cache.set("moves:1", [1.5, 2.5], 30)
    assert cache.get("moves:1") == [1.5, 2.5]
    assert cache.add("count:1", 1, 30) and cache.incr("count:1") == 2
    backend: Any = cache._cache  # type: ignore[attr-defined]  # Django's client, not in the stubs
    client = backend.get_client(write=True)
    assert backend.get_client() is client  # Django's own builds a new client for every call


@dataclass
class Markers:
    """The slice markers on a real Redis (emptied), every ``SET`` asked of it noted, the tasks' sending
    noted instead of done, and a process that has seen no slice yet."""

    found: Any
    asked: list[str]
    sent: Sent

    def set(self, key: str, *args: Any, **kwargs: Any) -> Any:
        self.asked.append(key)
        return self.found.set(key, *args, **kwargs)


@pytest.fixture
def markers(redis_server: Any, settings: Any, monkeypatch: Any) -> Markers:
    settings.CLOCK_ETA_TASKS = True
    found: Any = redis.Redis.from_url(redis_server.url)
    found.flushdb()
    marks = Markers(found, [], Sent())
    monkeypatch.setattr(scheduling, "markers", lambda: marks)
    monkeypatch.setattr(scheduling, "known_slices", scheduling.KnownSlices())
    monkeypatch.setattr(scheduling, "publish_due", marks.sent)
    return marks


def test_deadlines_in_one_slice_send_one_task_and_each_other_slice_its_own(markers: Markers, settings: Any) -> None:
    assert scheduling.SLICE_MS == 250  # the instants below are for slices of a quarter of a second
    settings.CLOCK_SLACK_MS = 300
    sent = markers.sent
    base = float(int(time.time()) + 60)  # a whole second: the slices' ends are known
    at = [datetime.fromtimestamp(base + offset, tz=UTC) for offset in (0.21, 0.25, 0.45, 0.46, 0.71, 0.95)]

    # A round's clocks started together: a thousand games, one deadline, one task.
    assert [scheduling.enqueue(at[0]) for _ in range(1000)].count(True) == 1
    assert sent == pytest.approx([base + 0.75])  # the deadline plus the slack (0.51), at its slice's end
    assert scheduling.enqueue(at[1]) is False and scheduling.enqueue(at[2]) is False  # 0.55 and 0.75: covered
    assert scheduling.enqueue(at[3]) is True  # 0.76: the next slice
    assert scheduling.enqueue(at[4]) is True and scheduling.enqueue(at[5]) is False  # 1.01 and 1.25: one more
    assert sent == pytest.approx([base + 0.75, base + 1.0, base + 1.25])
    for when, deadline in zip(sent, (at[0], at[3], at[5]), strict=True):  # never before a deadline plus the slack
        assert deadline.timestamp() + 0.3 <= when + 1e-6 < deadline.timestamp() + 0.3 + 0.25
    lapses_in_ms = markers.found.pttl(scheduling.slice_key(sent[0]))  # the marker lapses a minute after its task
    assert (sent[0] - time.time() + 59) * 1000 < lapses_in_ms <= (sent[0] - time.time() + 60) * 1000 + 50


def test_a_process_asks_redis_once_a_slice_and_another_process_finds_it_marked(
    markers: Markers, settings: Any, monkeypatch: Any
) -> None:
    settings.CLOCK_SLACK_MS = 0
    asked, sent = markers.asked, markers.sent
    base = float(int(time.time()) + 60)
    one, two = (datetime.fromtimestamp(base + offset, tz=UTC) for offset in (0.26, 0.5))  # the slice ending 0.5

    assert [scheduling.enqueue(one) for _ in range(100)].count(True) == 1  # a web process
    assert scheduling.enqueue(two) is False
    assert len(asked) == 1 and sent == pytest.approx([base + 0.5])

    monkeypatch.setattr(scheduling, "known_slices", scheduling.KnownSlices())  # another process, the same slice
    assert [scheduling.enqueue(two) for _ in range(100)].count(True) == 0
    assert len(asked) == 2 and len(sent) == 1  # it asked once, found the marker, and sent nothing

    markers.found.flushdb()  # the markers lost (a Redis restarted empty): a process that never saw the slice sends it
    monkeypatch.setattr(scheduling, "known_slices", scheduling.KnownSlices())
    assert scheduling.enqueue(one) is True and len(sent) == 2


def test_without_the_markers_every_deadline_sends_its_task(settings: Any, monkeypatch: Any) -> None:
    settings.CLOCK_ETA_TASKS = True

    class Down:
        def set(self, *args: Any, **kwargs: Any) -> bool:
            raise redis.ConnectionError("Redis is down")

    monkeypatch.setattr(scheduling, "markers", lambda: Down())
    monkeypatch.setattr(scheduling, "known_slices", scheduling.KnownSlices())
    sent = Sent()
    monkeypatch.setattr(scheduling, "publish_due", sent)
    deadline = datetime.fromtimestamp(time.time() + 30, tz=UTC)
    assert scheduling.enqueue(deadline) and scheduling.enqueue(deadline) and len(sent) == 2


def test_the_requests_in_flight_are_read_in_two_round_trips_among_many_keys(redis_server: Any, settings: Any) -> None:
    settings.REDIS_URL = redis_server.url  # the ledger's reader follows the URL it is given
    client: Any = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    assert arrivals.redis_client() is arrivals.redis_client()  # one client for the URL, not one per read
    pipe = client.pipeline(transaction=False)
    for n in range(5000):  # a round's key space: every game's clock markers, the cache, the broker
        pipe.set(f"clock:due:{n}", n)
    pipe.execute()
    one, two = arrivals.Publisher(client, "web:1"), arrivals.Publisher(client, "web:2")
    assert arrivals.waiting_since() is None

    one.started(1, 105.0)
    two.started(7, 101.5)
    before = client.info("stats")["total_commands_processed"]
    oldest = arrivals.waiting_since()
    commands = client.info("stats")["total_commands_processed"] - before - 1  # less the first INFO itself
    assert (oldest, commands) == (101.5, 2)  # a SCAN for the keys took 50 round trips here

    two.finished(7)
    two.flush(force=True)
    assert arrivals.waiting_since() == 105.0
    client.delete("arrivals:web:1")  # its process died: the key expired, its name stays in the set
    assert arrivals.waiting_since() is None
    arrivals.Publisher(client, "web:3").started(2, 110.0)  # one started in its place is found
    assert arrivals.waiting_since() == 110.0
    assert 0 < client.ttl(arrivals.KEYS) <= arrivals.KEYS_TTL_S


def test_the_brokers_channel_keeps_its_client_and_carries_messages(celery_app_on_redis: Any) -> None:
    with celery_app_on_redis.connection_for_write() as connection:  # as Celery connects (CELERY_BROKER_TRANSPORT)
        assert isinstance(connection.default_channel, Channel)
        channel: Any = connection.default_channel  # kombu's internals, not in its stubs
        first = channel._create_client()
        assert channel._create_client() is first  # kombu's own builds one for each message and acknowledgement
        assert channel._create_client(asynchronous=True) is not first  # the one that waits is kombu's
        queue = connection.SimpleQueue("broker-test")
        queue.put({"game": 7, "version": 3})
        message = queue.get(timeout=5)
        assert message.payload == {"game": 7, "version": 3}
        message.ack()
        queue.close()
        channel._disconnect_pools()  # as after a lost connection: a new pool, and a client on it
        again = channel._create_client()
        assert again is not first and again.connection_pool is channel.pool
        assert again.ping()
