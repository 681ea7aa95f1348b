"""When requests reached the machine, and which ones are still being served.

The clock charges a player only for thinking: a move is timed at the instant
its request reached the machine, never after it waited in the server's own
queue. The stamp comes from the front of the stack:

* behind a proxy that sets ``X-Request-Start`` (``t=<seconds>``, or
  milliseconds / microseconds since the epoch) and ``TRUST_X_REQUEST_START``
  is on, from that header;
* under ``make run``, from :mod:`config.gunicorn_worker`, which stamps each
  request when its bytes become readable, before it waits for a thread;
* otherwise (tests, ``runserver``), when Django starts the request.

The same worker publishes, per web process, the arrival of the oldest
request still in flight (and each live-push server, of the oldest move sent on a game's socket that it has
not yet answered: config.live) (``arrivals:<host>:<pid>`` in Redis, listed in the set ``arrivals``). The clock's
background adjudicators ask :func:`waiting_since` before flagging a player:
while a request that arrived before the deadline is still being served, it
may be that player's move, so the flag waits (clocks.md §6.5; issue 20).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

logger = logging.getLogger(__name__)

_local = threading.local()
KEY_PREFIX = "arrivals:"
KEY_TTL_MS = 5_000  # a web process that stops publishing stops counting after this long
KEYS = "arrivals"  # the set of the web processes' keys (a key that expired is left out by its missing value)
KEYS_TTL_S = 24 * 3600  # renewed by every publication: the names of processes long gone do not pile up


def set_current(arrived: float | None) -> None:
    """The worker thread's stamp for the request it is about to serve (epoch seconds)."""
    _local.arrived = arrived


def current() -> float | None:
    return getattr(_local, "arrived", None)


def parse_request_start(value: str) -> float | None:
    """``X-Request-Start`` as epoch seconds: ``t=1733043600.123``, or ms / µs since the epoch."""
    text = value.strip().removeprefix("t=")
    try:
        number = float(text)
    except ValueError:
        return None
    if number > 1e14:  # microseconds
        return number / 1e6
    if number > 1e11:  # milliseconds
        return number / 1e3
    return number


def arrival(meta: dict[str, Any], now: float, trust_header: bool, max_age_s: float = 60.0) -> float:
    """The earliest trustworthy stamp of a request (epoch seconds), never later than ``now``."""
    candidates = [now]
    stamped = current()
    if stamped is not None:
        candidates.append(stamped)
    if trust_header and meta.get("HTTP_X_REQUEST_START"):
        header = parse_request_start(meta["HTTP_X_REQUEST_START"])
        if header is not None and now - max_age_s <= header <= now:  # a proxy clock far off is ignored
            candidates.append(header)
    return min(candidates)


# -- what is still in flight (published by the web processes, read by the adjudicators) ----------------

_client: Any = None


def redis_client() -> Any:
    """One client per Redis URL (a test's Redis is set after the process began)."""
    global _client
    from django.conf import settings

    if _client is None or _client[0] != settings.REDIS_URL:
        import redis

        _client = (
            settings.REDIS_URL,
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.3, socket_timeout=0.3),
        )
    return _client[1]


def waiting_since() -> float | None:
    """The arrival (epoch seconds) of the oldest request any web process is still serving, if any.

    The web processes' keys are listed in one set (``arrivals``): two round trips, where a ``SCAN`` for
    them walked the whole key space (every game's clock markers, the cache) in dozens."""
    try:
        client = redis_client()
        keys = sorted(client.smembers(KEYS))
        values = [float(v) for v in client.mget(keys) if v is not None] if keys else []
    except Exception:  # no Redis: nothing is known to wait; the flag is not held back
        logger.debug("arrivals unavailable", exc_info=True)
        return None
    return min(values) if values else None


class Publisher:
    """Keeps one web process's oldest in-flight arrival in Redis (called from gunicorn's main loop)."""

    def __init__(self, client: Any, name: str) -> None:
        self.client = client
        self.key = KEY_PREFIX + name
        self.inflight: dict[int, float] = {}
        self.published: float | None = None
        self.published_at = 0.0

    def started(self, token: int, arrived: float) -> None:
        was_empty = not self.inflight
        self.inflight[token] = arrived
        if was_empty:  # a new oldest: say so before anyone could flag on it
            self.flush(force=True)

    def finished(self, token: int) -> None:
        self.inflight.pop(token, None)

    def catch_up(self) -> None:
        """After a request is done, where each costs a round trip to Redis (the live-push server's event loop):
        the key withdrawn once nothing is in flight, else refreshed at most once a second (an older arrival left
        standing a moment only keeps a flag waiting that long)."""
        if not self.inflight:
            if self.published is not None:
                self.flush(force=True)
        elif time.monotonic() - self.published_at >= 1.0:
            self.flush(force=True)

    def flush(self, force: bool = False) -> None:
        """Publish the oldest arrival; an older value left standing only delays a flag, so refresh lazily."""
        oldest = min(self.inflight.values()) if self.inflight else None
        now = time.monotonic()
        if not force and oldest == self.published and now - self.published_at < 1.0:
            return
        try:
            if oldest is None:
                self.client.delete(self.key)
            else:
                pipe = self.client.pipeline(transaction=False)
                pipe.set(self.key, repr(oldest), px=KEY_TTL_MS)
                pipe.sadd(KEYS, self.key)
                pipe.expire(KEYS, KEYS_TTL_S)
                pipe.execute()
            self.published, self.published_at = oldest, now
        except Exception:
            logger.warning("could not publish request arrivals", exc_info=True)
