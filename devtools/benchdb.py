"""A throw-away SQLite database for the benchmarks that run the services in-process."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
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


def timed_reads(read: Callable[[], object], times: int = 5) -> tuple[float, int]:
    """``read`` run ``times`` times: the median milliseconds and the queries of the last run."""
    import statistics
    import time

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    timings = []
    queries = 0
    for _ in range(times):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            read()
            timings.append((time.perf_counter() - started) * 1000)
        queries = len(captured)
    return statistics.median(timings), queries
