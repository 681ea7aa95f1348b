"""The default SQLite stack under concurrent writers: writes wait for the lock instead of failing.

Each run starts a fresh process on a fresh database file with Django's settings for SQLite, and
8 threads that each run read-then-write transactions at the same instant (as a move does: read the
game, then write it). With deferred transactions SQLite refuses the upgrade from a read to a write
lock at once ("database is locked"); with the project's options (WAL, IMMEDIATE) every write waits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import json, os, sys, threading
import django
from django.conf import settings
from config.env import SQLITE_OPTIONS

options = dict(SQLITE_OPTIONS) if sys.argv[2] == "project" else {"timeout": 20}
settings.configure(
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": sys.argv[1], "OPTIONS": options}},
    INSTALLED_APPS=[],
)
django.setup()
from django.db import connection, transaction, OperationalError

with connection.cursor() as c:
    c.execute("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER)")
    c.execute("INSERT INTO counter (id, n) VALUES (1, 0)")
connection.close()
barrier = threading.Barrier(8)
errors = []

def worker():
    from django.db import connection
    for _ in range(5):
        barrier.wait()
        try:
            with transaction.atomic():
                with connection.cursor() as c:
                    c.execute("SELECT n FROM counter WHERE id = 1")
                    n = c.fetchone()[0]
                    c.execute("UPDATE counter SET n = %s WHERE id = 1", [n + 1])
        except OperationalError as exc:
            errors.append(str(exc))
    connection.close()

threads = [threading.Thread(target=worker) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
with connection.cursor() as c:
    c.execute("SELECT n FROM counter WHERE id = 1")
    total = c.fetchone()[0]
print(json.dumps({"errors": len(errors), "total": total}))
"""


def _run(tmp_path: Path, mode: str) -> dict[str, int]:
    db = tmp_path / f"{mode}.sqlite3"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db), mode],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def test_concurrent_read_then_write_transactions_wait_instead_of_failing(tmp_path: Path) -> None:
    project = _run(tmp_path, "project")

    assert project == {"errors": 0, "total": 40}  # 8 threads x 5 writes, none lost, none refused


@pytest.mark.parametrize("attempt", [1])
def test_deferred_transactions_are_refused_under_the_same_load(tmp_path: Path, attempt: int) -> None:
    # the control: what the default stack did before (503 "database is locked" for ordinary play)
    deferred = _run(tmp_path, "deferred")

    assert deferred["errors"] > 0
