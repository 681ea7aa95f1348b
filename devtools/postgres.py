"""Throw-away servers for the tests: a PostgreSQL cluster on a free port.

initdb refuses to run as root, so when the tests run as root (as CI does)
the cluster is created and run as the ``postgres`` system user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from devtools.processes import free_port


def postgres_bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not candidates:
        raise FileNotFoundError("no PostgreSQL server found (install the postgresql package)")
    return Path(candidates[-1]).parent


class ThrowawayPostgres:
    """initdb + pg_ctl start on a free port; ``stop()`` removes everything."""

    def __init__(self, database: str = "gomoku") -> None:
        self.bindir = postgres_bindir()
        self.port = free_port()
        self.database = database
        self.root = Path(tempfile.mkdtemp(prefix="gomoku-pg-"))
        self.datadir = self.root / "data"
        self.run_as = "postgres" if os.geteuid() == 0 else None

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{self.database}"

    def _run(self, *argv: str) -> None:
        cmd = [str(self.bindir / argv[0]), *argv[1:]]
        if self.run_as:
            cmd = ["runuser", "-u", self.run_as, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, cwd=self.root)

    def start(self) -> ThrowawayPostgres:
        if self.run_as:
            user = pwd.getpwnam(self.run_as)
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.root.chmod(0o700)
        self._run(
            "initdb",
            "-D",
            str(self.datadir),
            "-U",
            "postgres",
            "-A",
            "trust",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale",
            "C",
        )
        self.resume()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", self.database)
        return self

    def pause(self) -> None:
        """Stop the server (a fault drill); :meth:`resume` starts it again with the same data."""
        self._run("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=300 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run("pg_ctl", "-D", str(self.datadir), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.datadir), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
