"""The heartbeat every long-running process writes, so a stop of the whole server is found (games.services.freeze).

The web workers (:mod:`config.gunicorn_worker`), the live-push server (:mod:`config.asgi`), the Celery worker
and beat (:mod:`config.celery`) each run :func:`start`: a daemon thread that calls
:func:`games.services.freeze.tick` every ``CLOCK_HEARTBEAT_S``. The heartbeat is one Redis key shared by every
process on every machine (its value: the last instant any of them ran, ms since the epoch), so one process
alive keeps it fresh and only a stop of them all leaves a gap.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

logger = logging.getLogger(__name__)
KEY = "clock:heartbeat"
_started: list[threading.Thread] = []


class RedisHeartbeat:
    def __init__(self, url: str) -> None:
        self.url = url
        self._client: Any = None

    def client(self) -> Any:
        if self._client is None:
            import redis

            self._client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5, socket_timeout=0.5)
        return self._client

    def read(self) -> int | None:
        raw = self.client().get(KEY)
        return None if raw is None else int(raw)

    def write(self, at_ms: int) -> None:
        self.client().set(KEY, at_ms)


def enabled() -> bool:
    """A heartbeat is kept where the processes share a Redis (make run, a club's server), not in tests."""
    from django.conf import settings

    return bool(os.environ.get("REDIS_URL")) and settings.CLOCK_FREEZE_MS > 0


def start(name: str) -> threading.Thread | None:
    """Start this process's heartbeat thread (once per process; nothing when no heartbeat is kept)."""
    from games.services import freeze

    if not enabled() or any(t.is_alive() for t in _started):
        return None
    thread = threading.Thread(target=_beat, args=(freeze,), name=f"heartbeat-{name}", daemon=True)
    _started[:] = [thread]
    thread.start()
    return thread


def _beat(freeze: Any) -> None:
    from django.conf import settings
    from django.db import connection

    stopped = threading.Event()
    while not stopped.wait(settings.CLOCK_HEARTBEAT_S):
        try:
            freeze.tick()
        except Exception as exc:  # Redis or the database away: said once a second, without a traceback
            logger.warning("heartbeat failed: %s", exc)
        finally:
            connection.close()


def worker_ready(**_kwargs: Any) -> None:
    start("worker")


def beat_init(**_kwargs: Any) -> None:
    start("beat")
