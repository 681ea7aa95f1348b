"""Celery's broker: kombu's Redis transport, with the channel's client kept instead of built for each message.

kombu's Redis channel builds a new ``redis.Redis`` — and with it redis-py's table of reply callbacks — for
every message it sends and every one it acknowledges. In a round of 1,000 games the clock's worker sends on
and acknowledges some 30 deadline tasks a second, and building those clients was a tenth of its work
(py-spy, issue 43). Here each channel keeps one client on its connection pool (thread-safe: each command
takes a connection from the pool) and builds a new one only when kombu replaces the pool (after a lost
connection). The asynchronous client that waits for tasks is kombu's own.

Selected by ``CELERY_BROKER_TRANSPORT`` (config/settings.py); the broker's URL is unchanged.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis


class Channel(redis.Channel):
    _kept: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:
            return super()._create_client(asynchronous=True)  # type: ignore[misc]  # not in kombu's stubs
        kept = self._kept
        if kept is None or kept.connection_pool is not self.pool:
            kept = self._kept = super()._create_client()  # type: ignore[misc]
        return kept


class Transport(redis.Transport):
    Channel = Channel
