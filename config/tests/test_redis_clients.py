"""The Redis the move path talks to, on a real redis-server: the cache's one client per pool (config.cache),
the clock's two markers in one round trip (games.services.scheduling.enqueue), the requests in flight
read in two (config.arrivals.waiting_since), and the broker's channel keeping its client (config.broker)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest
import redis

from config import arrivals
from config.broker import Channel
from config.cache import RedisCache
from games.services import scheduling


def test_the_cache_keeps_one_client_and_works_as_djangos(redis_server: Any) -> None:
    cache = RedisCache(redis_server.url, {"OPTIONS": {"socket_timeout": 0.5}})
    cache.set("moves:1", [1.5, 2.5], 30)
    assert cache.get("moves:1") == [1.5, 2.5]
    assert cache.add("count:1", 1, 30) and cache.incr("count:1") == 2
    backend: Any = cache._cache  # type: ignore[attr-defined]  # Django's client, not in the stubs
    client = backend.get_client(write=True)
    assert backend.get_client() is client  # Django's own builds a new client for every call


def test_the_markers_are_set_and_read_in_one_round_trip(redis_server: Any, settings: Any, monkeypatch: Any) -> None:
    settings.CLOCK_ETA_TASKS = True
    found: Any = redis.Redis.from_url(redis_server.url)
    monkeypatch.setattr(scheduling, "markers", lambda: found)
    sent: list[int] = []

    def publish(game_id: int, version: int, when: float) -> bool:
        sent.append(game_id)
        return True

    monkeypatch.setattr(scheduling, "publish", publish)
    deadline = datetime.fromtimestamp(time.time() + 60, tz=UTC)

    found.set(scheduling.pending_key(901), time.time() + 30)  # a task waits for an earlier instant
    assert scheduling.enqueue(901, 1, deadline) is False
    found.delete(scheduling.pending_key(902))
    assert scheduling.enqueue(902, 1, deadline) is True  # none waits: one is sent

    assert sent == [902]
    assert float(found.get(scheduling.due_key(901))) == pytest.approx(
        deadline.timestamp() + settings.CLOCK_SLACK_MS / 1000
    )


def test_the_requests_in_flight_are_read_in_two_round_trips_among_many_keys(
    redis_server: Any, monkeypatch: Any
) -> None:
    client: Any = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    monkeypatch.setattr(arrivals, "_client", client)
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
