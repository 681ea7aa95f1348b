"""The Celery worker and beat, back on a broker that came back within a second.

kombu's default backs off 2, 4, 6 … up to 30 s between attempts: after Redis was restarted, the worker and
beat reconnected up to 6 s late and every deadline that fell meanwhile waited for them (``bench/drills.py
--drill redis``: settled 4–6 s after Redis was back). Attempts every 0.2 s, growing to at most 1 s, cost a
loopback connection each while Redis is down. Used through ``CELERY_WORKER_CONSUMER`` and
``CELERY_BEAT_SCHEDULER`` (config/settings.py).

Exactly one beat sends the schedule, however many are started: the one holding a lease in Redis
(:class:`BeatLease`); any other stands by and takes over when the holder stops renewing.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
from typing import Any

from celery.beat import PersistentScheduler
from celery.worker.consumer import Consumer as CeleryConsumer

logger = logging.getLogger(__name__)
RECONNECT = {"interval_start": 0.2, "interval_step": 0.2, "interval_max": 1.0}


def quick(conn: Any) -> Any:
    """``conn`` retrying its connection every 0.2 s up to every second (kombu's ``ensure_connection``)."""
    if not isinstance(conn.ensure_connection, functools.partial):
        conn.ensure_connection = functools.partial(conn.ensure_connection, **RECONNECT)
    return conn


class Consumer(CeleryConsumer):
    def ensure_connected(self, conn: Any) -> Any:
        return super().ensure_connected(quick(conn))


# -- exactly one beat ----------------------------------------------------------------------------------------

LEASE_KEY = "celery:beat-lease"
LEASE_MS = 5000  # a leader silent this long (dead, or stopped) hands the schedule to a standby
STANDBY_S = 1.0  # how often a standby asks again
RENEW_S = 1.0  # the leader renews at least this often, well inside LEASE_MS

_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


class BeatLease:
    """The right to send the schedule: a Redis key naming its holder, renewed on every tick.

    A second beat started by mistake (or a standby kept on purpose) finds the key held and sends nothing;
    it takes over within ``LEASE_MS`` once the holder stops renewing. Without Redis nobody holds it, and
    nothing could be sent anyway.
    """

    def __init__(self, client: Any, holder: str, ms: int = LEASE_MS) -> None:
        self.client, self.holder, self.ms = client, holder, ms
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    def hold(self) -> bool:
        """Take the lease if it is free, renew it if it is ours; False while another beat holds it."""
        import redis

        try:
            if self.client.set(LEASE_KEY, self.holder, nx=True, px=self.ms):
                return True
            return bool(self._renew(keys=[LEASE_KEY], args=[self.holder, self.ms]))
        except redis.RedisError:
            return False

    def release(self) -> None:
        import redis

        with contextlib.suppress(redis.RedisError):
            self._release(keys=[LEASE_KEY], args=[self.holder])

    def holder_now(self) -> str | None:
        import redis

        try:
            value = self.client.get(LEASE_KEY)
        except redis.RedisError:
            return None
        return value.decode() if value else None


class BeatScheduler(PersistentScheduler):
    """Celery's scheduler, sending only while it holds the :class:`BeatLease` (exactly one beat sends)."""

    lease: BeatLease | None = None
    leading: bool | None = None

    def _ensure_connected(self) -> Any:
        quick(self.connection)
        return super()._ensure_connected()  # type: ignore[misc]  # celery-types omits this private method

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if self.lease is None:
            import redis

            client = redis.Redis.from_url(self.app.conf.broker_url, socket_connect_timeout=0.5, socket_timeout=0.5)
            self.lease = BeatLease(client, f"{socket.gethostname()}:{os.getpid()}")
        leading = self.lease.hold()
        if leading != self.leading:
            self.leading = leading
            if leading:
                logger.warning("beat: this process sends the schedule (holds %s)", LEASE_KEY)
            else:
                holder = self.lease.holder_now()
                logger.warning("beat: standing by, %s holds the schedule", holder or "nobody (Redis away)")
        if not leading:
            return STANDBY_S
        return min(float(super().tick(*args, **kwargs)), RENEW_S)

    def close(self) -> None:
        if self.lease is not None and self.leading:
            self.lease.release()
        super().close()
