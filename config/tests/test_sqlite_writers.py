"""The default SQLite stack under concurrent writers: writes wait for the lock instead of failing.

Each run starts a fresh process on a fresh database file with Django's settings for SQLite, and
8 threads that each run read-then-write transactions at the same instant (as a move does: read the
game, then write it). With deferred transactions SQLite refuses the upgrade from a read to a write
lock at once ("database is locked"); with the project's options (WAL, IMMEDIATE) every write waits.
The project's backend (config/sqlite) queues the writers on a file lock: a writer waits for its turn
however long the others hold the lock, where SQLite's own retries give up after their timeout.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import json, os, sys, threading, time
import django
from django.conf import settings
from config.env import SQLITE_OPTIONS

mode, hold = sys.argv[2], float(sys.argv[3])
options = {"timeout": 20} if mode == "deferred" else dict(SQLITE_OPTIONS)
if hold:  # each writer holds the lock for ``hold`` seconds, far longer than SQLite will wait
    options["timeout"] = hold / 10
engine = "config.sqlite" if mode == "project" else "django.db.backends.sqlite3"
settings.configure(
    DATABASES={"default": {"ENGINE": engine, "NAME": sys.argv[1], "OPTIONS": options}},
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
                    time.sleep(hold)
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


ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, mode: str, hold: float = 0.0) -> dict[str, int]:
    db = tmp_path / f"{mode}.sqlite3"
    root = ROOT
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db), mode, str(hold)],
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


def test_writers_queue_for_their_turn_however_long_it_takes(tmp_path: Path) -> None:
    # each of 8 writers holds the lock 0.03 s, where SQLite alone waits 0.003 s: they queue, none refused
    queued = _run(tmp_path, "project", hold=0.03)

    assert queued == {"errors": 0, "total": 40}


def test_without_the_queue_the_same_writers_are_refused(tmp_path: Path) -> None:
    # the control: Django's own backend with the same options leaves them to SQLite's retries
    stock = _run(tmp_path, "stock", hold=0.03)

    assert stock["errors"] > 0
    assert stock["total"] == 40 - stock["errors"]


ENDINGS = r"""
import fcntl, os, sys
import django
from django.conf import settings
from config.env import SQLITE_OPTIONS

settings.configure(
    DATABASES={"default": {"ENGINE": "config.sqlite", "NAME": sys.argv[1], "OPTIONS": dict(SQLITE_OPTIONS)}},
    INSTALLED_APPS=[],
)
django.setup()
from django.db import connection, transaction

def free():
    fd = os.open(sys.argv[1] + "-writers.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)

with connection.cursor() as c:
    c.execute("CREATE TABLE t (n INTEGER)")
seen = {}
with transaction.atomic():
    connection.cursor().execute("INSERT INTO t VALUES (1)")
    seen["inside"] = free()
seen["committed"] = free()
try:
    with transaction.atomic():
        connection.cursor().execute("INSERT INTO t VALUES (2)")
        raise ValueError
except ValueError:
    pass
seen["rolled_back"] = free()
with transaction.atomic():
    connection.cursor().execute("INSERT INTO t VALUES (3)")
    connection.close()
seen["closed"] = free()
with connection.cursor() as c:
    c.execute("SELECT n FROM t ORDER BY n")
    seen["rows"] = [n for (n,) in c.fetchall()]
if sys.argv[2] == "fork":  # the parent wrote first (its file is open); then two forked children
    with transaction.atomic():
        connection.cursor().execute("INSERT INTO t VALUES (5)")
    held, done, told = os.pipe(), os.pipe(), os.pipe()
    first = os.fork()
    if first == 0:  # writes, and holds its turn until the second child has looked
        connection.connection = None  # its own connection to the database; the wrapper is the parent's copy
        with transaction.atomic():
            connection.cursor().execute("INSERT INTO t VALUES (10)")
            os.write(held[1], b"x")
            os.read(done[0], 1)
        os._exit(0)
    second = os.fork()
    if second == 0:  # while the first holds its turn: may this one take it too?
        connection.connection = None
        os.read(held[0], 1)
        try:
            fcntl.flock(connection._writers_file(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(told[1], b"shared")  # the parent's open file: the same lock as its sibling's
        except BlockingIOError:
            os.write(told[1], b"waits")
        os.write(done[1], b"x")
        os._exit(0)
    os.waitpid(first, 0)
    os.waitpid(second, 0)
    seen["second_child"] = os.read(told[0], 10).decode()
if sys.argv[2] == "hold":
    with transaction.atomic():
        connection.cursor().execute("INSERT INTO t VALUES (4)")
        print("holding", flush=True)
        sys.stdin.read()
print(seen)
"""


def test_the_turn_is_given_back_however_a_transaction_ends(tmp_path: Path) -> None:
    db = str(tmp_path / "endings.sqlite3")
    done = subprocess.run(
        [sys.executable, "-c", ENDINGS, db, "-"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr[-2000:]
    seen = done.stdout.strip().splitlines()[-1]
    assert seen == str({"inside": False, "committed": True, "rolled_back": True, "closed": True, "rows": [1]})


def test_a_writer_killed_mid_transaction_does_not_lock_the_others_out(tmp_path: Path) -> None:
    db = str(tmp_path / "killed.sqlite3")
    with subprocess.Popen(
        [sys.executable, "-c", ENDINGS, db, "hold"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "holding"
        fd = os.open(db + "-writers.lock", os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):  # its transaction holds the turn
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            holder.kill()
            holder.wait(timeout=30)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # gone with it: the next writer goes in at once
        finally:
            os.close(fd)


def test_forked_processes_queue_apart_from_their_parent(tmp_path: Path) -> None:
    # a forked child's copy of the parent's open file would share its lock: the children would go in together
    db = str(tmp_path / "forked.sqlite3")
    done = subprocess.run(
        [sys.executable, "-c", ENDINGS, db, "fork"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert "'second_child': 'waits'" in done.stdout.strip().splitlines()[-1]


UNOPENABLE = r"""
import sys
import django
from django.conf import settings
from config.env import SQLITE_OPTIONS

settings.configure(
    DATABASES={"default": {"ENGINE": "config.sqlite", "NAME": sys.argv[1], "OPTIONS": dict(SQLITE_OPTIONS)}},
    INSTALLED_APPS=[],
)
django.setup()
from django.db import connection, transaction

with transaction.atomic():
    connection.cursor().execute("CREATE TABLE t (n INTEGER)")
    connection.cursor().execute("INSERT INTO t VALUES (1)")
print(connection.cursor().execute("SELECT COUNT(*) FROM t").fetchone()[0])
"""


def test_a_lock_file_it_may_not_open_leaves_the_writers_to_sqlites_own_lock(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    (tmp_path / "shared.sqlite3-writers.lock").mkdir()  # not a file it can open for writing
    done = subprocess.run(
        [sys.executable, "-c", UNOPENABLE, str(db)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "1"
    assert "writers' queue unavailable" in done.stderr
