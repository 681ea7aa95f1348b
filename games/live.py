"""Live push, the publishing side: after a transaction that changed games commits, say so on Redis.

A change is announced as a topic (``game:12``, ``tournament:3``) on the Redis channel ``live``; the
socket server (``config/live.py``) reads the new state once per topic and language and sends it to
every page watching. Announcing costs one Redis PUBLISH per committed transaction, whatever the
number of watchers, and nothing when live push is off (``LIVE_PUSH``, on when Redis is configured).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)
CHANNEL = "live"
_client: Any = None


def changed(topic: str) -> None:
    """Announce ``topic`` once the current transaction commits (at once outside a transaction).

    One announcement per transaction, whatever it changed; a rolled-back transaction announces nothing
    (Django drops its on-commit callbacks, and with them the pending topics).
    """
    if not settings.LIVE_PUSH:
        return
    conn = transaction.get_connection()
    if not conn.in_atomic_block:
        publish([topic])
        return
    registered = any(entry[1] is _flush for entry in conn.run_on_commit)
    if not registered:
        conn.live_topics = set()  # our own attribute on the connection
        transaction.on_commit(_flush)
    conn.live_topics.add(topic)


def game_changed(game: Any) -> None:
    """A game changed: its watchers and both players' consoles are told (and its referees' consoles: the
    socket server looks them up, config.live, only while one is watched)."""
    changed(f"game:{game.pk}")
    changed(f"player:{game.player_one_id}")
    changed(f"player:{game.player_two_id}")


def _flush() -> None:
    conn = transaction.get_connection()
    topics: set[str] = getattr(conn, "live_topics", None) or set()
    conn.live_topics = set()
    if topics:
        publish(sorted(topics))


def publish(topics: list[str]) -> None:
    """Send the topics now; a Redis that cannot be reached loses only the push (pages still poll)."""
    global _client
    try:
        if _client is None:
            import redis

            _client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.3, socket_timeout=0.3)
        _client.publish(CHANNEL, json.dumps(topics))
    except Exception:
        logger.warning("live push unavailable", exc_info=True)
