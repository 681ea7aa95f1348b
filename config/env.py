"""Typed readers for settings that come from the environment.

Each helper fails loudly: a malformed value raises ``ImproperlyConfigured``
naming the variable, so start-up stops with a message instead of running
with a guess (the healthchecks project's ``envbool``/``envint`` idea).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    """Return the variable, or ``default`` when it is unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean written as 1/0, true/false, yes/no or on/off."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false, 1/0), got {raw!r}")


def env_int(name: str, default: int) -> int:
    """Read an integer."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list; blanks are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# SQLite under concurrent writers (several gunicorn workers, the Celery worker): WAL lets readers run beside
# the writer, and IMMEDIATE transactions take the write lock at BEGIN, so a second writer waits up to
# ``timeout`` seconds for it instead of failing at once with "database is locked" when a deferred
# transaction tries to upgrade its read lock (which SQLite refuses without waiting).
# Django's SQLite backend with the writers queued in the kernel rather than in SQLite's sleeping retries
# (config/sqlite/base.py).
SQLITE_ENGINE = "config.sqlite"
SQLITE_OPTIONS: dict[str, Any] = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def env_database(name: str, default_sqlite: Path) -> dict[str, Any]:
    """Read a database URL (``sqlite:///path`` or ``postgres://…``).

    Unset means the SQLite file ``default_sqlite``.
    """
    import dj_database_url

    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        # Connections kept 60 s, as for a URL: make run's stack is the one bench/open.py measures.
        return {
            "ENGINE": SQLITE_ENGINE,
            "NAME": str(default_sqlite),
            "OPTIONS": dict(SQLITE_OPTIONS),
            "CONN_MAX_AGE": 60,
        }
    scheme = urlparse(raw).scheme
    if scheme not in {"sqlite", "postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"{name} must be a sqlite:/// or postgres:// URL, got {raw!r}")
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(raw, conn_max_age=60))
    except Exception as exc:  # dj-database-url raises several types
        raise ImproperlyConfigured(f"{name} is not a valid database URL: {exc}") from None
    if scheme != "sqlite" and not config.get("NAME"):
        raise ImproperlyConfigured(f"{name} must name a database, got {raw!r}")
    if scheme == "sqlite":
        config["ENGINE"] = SQLITE_ENGINE
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
    return config


def env_redis_url(name: str, default: str) -> str:
    """Read a Redis URL (``redis://host:port/db`` or ``unix:///path``)."""
    raw = os.environ.get(name, default)
    parsed = urlparse(raw)
    if parsed.scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(f"{name} must be a redis:// URL, got {raw!r}")
    if parsed.scheme != "unix":
        try:
            _port = parsed.port  # parsing the port is what validates it
        except ValueError:
            raise ImproperlyConfigured(f"{name} has a malformed port: {raw!r}") from None
        if not parsed.hostname:
            raise ImproperlyConfigured(f"{name} must name a host, got {raw!r}")
    return raw


def local_secret_key(path: Path) -> str:
    """Return the secret key kept in ``path``, creating it on first use.

    The file lives under ``var/`` (ignored by git), so every checkout has its
    own key and none is ever committed.
    """
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key
