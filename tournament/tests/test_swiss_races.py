"""Two organizers press "pair" at the same moment: one draft is written, the other is refused with a
message — on the default SQLite stack (a database file with the project's settings, in a fresh process,
as ``make run`` has it) and on PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tournament.tests.races import two_at_once

SCRIPT = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from tournament.tests.races import two_at_once
print(json.dumps(two_at_once()))
"""


def test_two_pairings_at_once_make_one_draft_on_the_default_sqlite_stack(tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'race.sqlite3'}"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["draft_open", "drafts=1", "paired"]


@pytest.mark.pg_django
@pytest.mark.django_db(transaction=True)
def test_two_pairings_at_once_make_one_draft_on_postgresql() -> None:
    assert two_at_once() == ["draft_open", "drafts=1", "paired"]
    assert connection.vendor == "postgresql"
