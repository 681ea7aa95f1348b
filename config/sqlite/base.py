"""Django's SQLite backend with its writers in a queue the kernel keeps, not in SQLite's sleeping retries.

SQLite lets one writer in at a time. A transaction that finds the write lock taken sleeps and tries again
(its busy handler: 1, 2, 5 … ms, then 100 ms at a time), so under load the lock stands free while the
writers that wait sleep, and one that arrives just then is let in before them. In a round of 1,000 games
about a third of the web threads' time went there, and a run that fell behind stayed behind (issue 43).

Here every transaction (``BEGIN IMMEDIATE``, the project's mode: each one takes the write lock) first
takes an exclusive ``flock`` on a file beside the database, and gives it back when it commits, rolls
back or its connection closes. A writer waiting for the file sleeps in the kernel until it is free and is
woken then, in the same process or another (web, worker, beat). The lock dies with its process, so a
killed process never leaves the others locked out. SQLite's own lock and timeout stay underneath, for any
writer that does not go through here (a write outside a transaction, the ``sqlite3`` shell).

An in-memory database (the tests' default) has one process and no file: nothing changes there.
"""

from __future__ import annotations

import fcntl
import logging
import os
from typing import Any

from django.db.backends.sqlite3 import base

logger = logging.getLogger(__name__)


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writers_fd: int | None = None
        self._writers_pid = 0
        self._writing = False

    def _writers_file(self) -> int | None:
        if self._writers_fd is not None and self._writers_pid != os.getpid():
            # a forked child's copy shares its parent's lock: its own file, and nothing of the parent's held
            os.close(self._writers_fd)
            self._writers_fd, self._writing = None, False
        if self._writers_fd is None and not self.is_in_memory_db():
            path = f"{self.settings_dict['NAME']}-writers.lock"
            try:
                self._writers_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o660)
            except OSError as exc:  # not ours to open (another account's file): SQLite's own lock alone
                logger.warning("SQLite writers' queue unavailable (%s): writers wait on SQLite's lock", exc)
                return None
            self._writers_pid = os.getpid()
        return self._writers_fd

    def _start_transaction_under_autocommit(self) -> None:
        fd = self._writers_file()
        if fd is not None and not self._writing:
            fcntl.flock(fd, fcntl.LOCK_EX)  # waits in the kernel, without the GIL
            self._writing = True
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]  # not in django-stubs
        except BaseException:
            self._done_writing()
            raise

    def _done_writing(self) -> None:
        if self._writing and self._writers_fd is not None:
            self._writing = False
            if self._writers_pid == os.getpid():  # never a lock a forked child's copy shares with its parent
                fcntl.flock(self._writers_fd, fcntl.LOCK_UN)

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._done_writing()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._done_writing()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._done_writing()
            if self._writers_fd is not None:
                os.close(self._writers_fd)
                self._writers_fd = None
