"""The Celery worker and beat, back on a broker that came back within a second.

kombu's default backs off 2, 4, 6 … up to 30 s between attempts: after Redis was restarted, the worker and
beat reconnected up to 6 s late and every deadline that fell meanwhile waited for them (``bench/drills.py
--drill redis``: settled 4–6 s after Redis was back). Attempts every 0.2 s, growing to at most 1 s, cost a
loopback connection each while Redis is down. Used through ``CELERY_WORKER_CONSUMER`` and
``CELERY_BEAT_SCHEDULER`` (config/settings.py).
"""

from __future__ import annotations

import functools
from typing import Any

from celery.beat import PersistentScheduler
from celery.worker.consumer import Consumer as CeleryConsumer

RECONNECT = {"interval_start": 0.2, "interval_step": 0.2, "interval_max": 1.0}


def quick(conn: Any) -> Any:
    """``conn`` retrying its connection every 0.2 s up to every second (kombu's ``ensure_connection``)."""
    if not isinstance(conn.ensure_connection, functools.partial):
        conn.ensure_connection = functools.partial(conn.ensure_connection, **RECONNECT)
    return conn


class Consumer(CeleryConsumer):
    def ensure_connected(self, conn: Any) -> Any:
        return super().ensure_connected(quick(conn))


class BeatScheduler(PersistentScheduler):
    def _ensure_connected(self) -> Any:
        quick(self.connection)
        return super()._ensure_connected()  # type: ignore[misc]  # celery-types omits this private method
