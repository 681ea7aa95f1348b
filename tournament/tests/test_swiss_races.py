"""Two organizers press "pair" at the same moment: one draft is written, the other is refused with a
message — on the default SQLite stack (a database file with the project's settings, in a fresh process,
as ``make run`` has it) and on PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connection


def two_at_once() -> list[str]:
    from games.models import Player
    from tournament import services
    from tournament.models import SwissRound
    from tournament.swiss.services import swiss_pair

    tournament = services.tournament_create(name="Race open", preset="swiss", stage_options={"rounds": 5})
    for n in range(12):
        services.register(tournament=tournament, player=Player.objects.create(name=f"R{n}", rating=2000 + n))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=4)
    services.start_stage(stage=stage)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def press() -> None:
        try:
            barrier.wait()
            swiss_pair(stage=stage)
            outcomes.append("paired")
        except services.TournamentError as exc:
            outcomes.append(exc.code)
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
            outcomes.append(f"{type(exc).__name__}: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=press) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcomes.append(f"drafts={SwissRound.objects.filter(stage=stage).count()}")
    return sorted(outcomes)


SCRIPT = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from tournament.tests.test_swiss_races import two_at_once
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
