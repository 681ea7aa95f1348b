"""The worker and beat reconnect to a restarted broker within a second (config/celery_consumer.py); the drill
with a real Redis restarted is ``bench/drills.py --drill redis``."""

from __future__ import annotations

from typing import Any

import pytest
from celery.beat import PersistentScheduler
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.exceptions import OperationalError

from config.broker import Transport
from config.celery import app
from config.celery_consumer import BeatScheduler, Consumer, quick
from devtools.processes import free_port


class Connection:
    """kombu's ``ensure_connection`` signature with its defaults (2, 2, 30 s), recording what it is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float, float]] = []

    def ensure_connection(
        self,
        errback: Any = None,
        max_retries: Any = None,
        interval_start: float = 2,
        interval_step: float = 2,
        interval_max: float = 30,
        callback: Any = None,
    ) -> Connection:
        self.calls.append((interval_start, interval_step, interval_max))
        return self


def test_connections_are_retried_every_fifth_of_a_second_up_to_every_second() -> None:
    conn = quick(quick(Connection()))  # wrapped once, however often it is asked

    conn.ensure_connection(print, None, callback=None)

    assert conn.calls == [(0.2, 0.2, 1.0)]


def test_the_worker_and_beat_use_them() -> None:
    assert app.conf.worker_consumer == "config.celery_consumer:Consumer"
    assert app.conf.beat_scheduler == "config.celery_consumer:BeatScheduler"
    assert issubclass(Consumer, CeleryConsumer) and issubclass(BeatScheduler, PersistentScheduler)


def test_a_publish_with_the_broker_down_fails_at_once_instead_of_holding_the_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task sent after a commit (a game's end, a clock deadline) with the broker down: one attempt, then the
    error the sender catches (its sweep sends it again), not kombu's three attempts over 6 s."""
    attempts: list[int] = []
    real = Transport.establish_connection

    def counted(self: Transport) -> Any:
        attempts.append(1)
        return real(self)

    monkeypatch.setattr(Transport, "establish_connection", counted)
    with app.connection_for_write(f"redis://127.0.0.1:{free_port()}/0") as down, pytest.raises(OperationalError):
        task = app.tasks["fairplay.screen_game"]
        task.apply_async((1,), retry=False, connection=down)  # type: ignore[call-arg]  # Celery takes it; its stubs do not
    assert attempts == [1]
