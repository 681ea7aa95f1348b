from __future__ import annotations

import pytest
from django.core.management import call_command

from games.models import Game
from tournament.models import Tournament
from tournament.stage_formats import stage_standings

pytestmark = pytest.mark.django_db


def test_demo_tournament_is_part_way_through_its_preliminary_stage() -> None:
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)  # idempotent

    tournament = Tournament.objects.get()
    stage = tournament.stages.get()
    played = Game.objects.filter(match_game__match__tournament=tournament, status="finished").count()
    tables = stage_standings(stage)

    assert (tournament.status, stage.status, len(tables)) == ("running", "running", 6)
    assert 0 < played < 5 * 12 + 3
    assert any(row["played"] > 0 for table in tables for row in table["rows"])
    assert tournament.entries.filter(player__user__username="player01").exists()
