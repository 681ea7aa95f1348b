"""A throw-away SQLite database for the benchmarks that run the services in-process."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def throwaway_django() -> Path:
    """Django set up on a new, migrated SQLite file in a temporary directory (clock tasks not scheduled:
    no worker runs here); returns the directory."""
    workdir = Path(tempfile.mkdtemp(prefix="gomoku-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["CLOCK_ETA_TASKS"] = "false"

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return workdir
