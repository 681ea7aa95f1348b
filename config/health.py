"""Probes for /healthz: the database, Redis and a Celery worker."""

from __future__ import annotations

from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection


@dataclass(frozen=True)
class Probe:
    ok: bool
    reason: str = ""

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"ok": self.ok}
        if self.reason:
            data["reason"] = self.reason
        return data


def probe_database() -> Probe:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return Probe(False, f"{type(exc).__name__}: {exc}")
    return Probe(True)


def probe_redis(url: str | None = None) -> Probe:
    timeout = settings.HEALTHZ_TIMEOUT_S
    try:
        client = redis.Redis.from_url(url or settings.REDIS_URL, socket_connect_timeout=timeout, socket_timeout=timeout)
        client.ping()
    except Exception as exc:
        return Probe(False, f"{type(exc).__name__}: {exc}")
    return Probe(True)


def probe_celery(broker_url: str | None = None) -> Probe:
    """Ask the workers for a ping over the broker; at least one must answer."""
    from config.celery import app

    try:
        with app.connection_for_write(broker_url or settings.REDIS_URL) as conn:
            conn.ensure_connection(max_retries=1, timeout=settings.HEALTHZ_TIMEOUT_S)
            replies = app.control.ping(timeout=settings.HEALTHZ_TIMEOUT_S, connection=conn)
    except Exception as exc:
        return Probe(False, f"broker unreachable: {type(exc).__name__}: {exc}")
    if not replies:
        return Probe(False, "no Celery worker answered the ping")
    return Probe(True)
