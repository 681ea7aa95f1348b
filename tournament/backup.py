"""Backups of the whole database, taken while the system runs, and their restore.

SQLite: the online backup API (``sqlite3.Connection.backup``) copies a consistent snapshot page by page
while other connections keep writing (in WAL mode readers and the backup never block the writer for
long). PostgreSQL: ``pg_dump --format=custom`` (one consistent snapshot of the database), restored with
``pg_restore --clean``. A backup file says what it is by its first bytes (``SQLite format 3`` or
``PGDMP``), so restore refuses a file of the other kind with a clear message instead of half-writing.

A restore refuses to overwrite a database that holds anything (accounts, players, tournaments, games)
unless forced: a restore onto the running event by mistake would lose the day.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, connections

from games.models import Game, Player
from tournament.models import Tournament

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"


class BackupError(Exception):
    """A backup or restore that cannot be done, said plainly (the command prints it)."""


# Live logins, not data: left out of every copy (a backup must not be a set of cookies and tokens to replay).
# Password hashes and private-link keys stay (a restore must let people in again): the file is a secret.
CREDENTIAL_TABLES = ("django_session", "authtoken_token")


def backup_dir() -> Path:
    """The backups' folder, readable by the server's own user only (0700)."""
    path = Path(settings.BACKUP_DIR)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def _engine() -> str:
    engine = settings.DATABASES["default"]["ENGINE"]
    if "sqlite" in engine:
        return "sqlite"
    if "postgresql" in engine:
        return "postgresql"
    raise BackupError(f"backups support SQLite and PostgreSQL, not {engine}")


def _pg_env() -> tuple[list[str], dict[str, str]]:
    db = settings.DATABASES["default"]
    args = ["--dbname", str(db["NAME"])]
    if db.get("HOST"):
        args += ["--host", str(db["HOST"])]
    if db.get("PORT"):
        args += ["--port", str(db["PORT"])]
    if db.get("USER"):
        args += ["--username", str(db["USER"])]
    env = dict(os.environ)
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    return args, env


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
            return str(candidate)
        raise BackupError(f"{name} is not installed (it comes with PostgreSQL's client programs)")
    return found


def default_name() -> Path:
    suffix = ".sqlite3" if _engine() == "sqlite" else ".dump"
    return backup_dir() / f"backup-{datetime.now():%Y%m%d-%H%M%S-%f}{suffix}"


def backup(target: Path | str | None = None) -> Path:
    """A consistent copy of the database into ``target`` (a new file in var/backups/ by default)."""
    path = Path(target) if target is not None else default_name()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))  # 0600 before a byte is in it
        os.chmod(partial, 0o600)
        _copy(partial)
        os.chmod(partial, 0o600)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(path)  # a backup file is complete or absent, never half-written
    return path


def _copy(partial: Path) -> None:
    if _engine() == "sqlite":
        connection.ensure_connection()  # Django's own connection: the same database, a file or in memory
        source = connection.connection
        dest = sqlite3.connect(str(partial))
        try:
            if connection.in_atomic_block:
                # SQLite's backup API waits forever on a connection in its own write transaction: copy the
                # schema and rows through that transaction instead (as consistent: one transaction's view).
                dest.executescript("\n".join(source.iterdump()))
            else:
                source.backup(dest, pages=256, progress=_give_up_after(60.0))  # writers get the lock between
            _forget_credentials(dest)
        finally:
            dest.close()
    else:
        args, env = _pg_env()
        done = subprocess.run(
            [
                _tool("pg_dump"),
                "--format=custom",
                "--no-owner",
                *(f"--exclude-table-data={table}" for table in CREDENTIAL_TABLES),
                "--file",
                str(partial),
                *args,
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            partial.unlink(missing_ok=True)
            raise BackupError(f"pg_dump failed: {done.stderr.strip()}")


def _forget_credentials(copy: sqlite3.Connection) -> None:
    """Empty the session and token tables of a fresh SQLite copy, and vacuum so no page keeps them."""
    tables = {row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in CREDENTIAL_TABLES:
        if table in tables:
            copy.execute(f'DELETE FROM "{table}"')  # noqa: S608 - names from CREDENTIAL_TABLES
    copy.commit()
    copy.execute("VACUUM")


def _give_up_after(seconds: float) -> Any:
    """A backup progress callback that stops a copy kept busy longer than ``seconds`` (never hang)."""
    import time

    start = time.monotonic()

    def progress(status: int, remaining: int, total: int) -> None:
        if time.monotonic() - start > seconds:
            raise BackupError(f"the database stayed busy for {seconds:.0f} s; try the backup again")

    return progress


def rotate(keep: int) -> list[Path]:
    """Keep the newest ``keep`` backups in var/backups/; returns the files removed."""
    files = sorted(
        (p for p in backup_dir().glob("backup-*") if not p.name.endswith(".partial")),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    removed = files[keep:]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def latest() -> Path | None:
    files = [p for p in backup_dir().glob("backup-*") if not p.name.endswith(".partial")]
    return max(files, key=lambda p: p.stat().st_mtime) if files else None


def contents() -> dict[str, int]:
    """What the database holds that a restore would replace (empty when all are 0 or the tables are missing)."""
    out: dict[str, int] = {}
    tables = set(connection.introspection.table_names())
    for label, model in (("accounts", User), ("players", Player), ("tournaments", Tournament), ("games", Game)):
        out[label] = model.objects.count() if model._meta.db_table in tables else 0
    return out


def _kind_of(path: Path) -> str:
    with open(path, "rb") as handle:
        head = handle.read(16)
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_MAGIC):
        return "postgresql"
    raise BackupError(f"{path} is not a backup made by this program (neither SQLite nor pg_dump's format)")


def restore(source: Path | str, force: bool = False) -> dict[str, int]:
    """Replace the database with a backup; refused over a database that holds anything unless ``force``.
    Returns what the database held before."""
    path = Path(source)
    if not path.is_file():
        raise BackupError(f"there is no file {path}")
    kind, engine = _kind_of(path), _engine()
    if kind != engine:
        raise BackupError(f"{path} is a {kind} backup; this system's database is {engine}")
    held = contents()
    if any(held.values()) and not force:
        what = ", ".join(f"{n} {label}" for label, n in held.items() if n)
        raise BackupError(f"the database is not empty ({what}); restore with --force to replace it")
    if engine == "sqlite":
        _check_sqlite(path)
        connection.ensure_connection()
        source_db = sqlite3.connect(str(path))
        try:
            source_db.backup(connection.connection)  # replaces every page of the database, schema included
        finally:
            source_db.close()
    else:
        connections.close_all()
        args, env = _pg_env()
        done = subprocess.run(
            [_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction", *args, str(path)],
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise BackupError(f"pg_restore failed (nothing was changed): {done.stderr.strip()}")
    return held


def _check_sqlite(path: Path) -> None:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        verdict = db.execute("PRAGMA integrity_check").fetchone()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is damaged: {exc}") from None
    finally:
        db.close()
    if verdict is None or verdict[0] != "ok":
        raise BackupError(f"{path} is damaged: {verdict}")


def describe(path: Path) -> dict[str, Any]:
    stat = path.stat()
    return {"name": path.name, "bytes": stat.st_size, "at": datetime.fromtimestamp(stat.st_mtime)}
