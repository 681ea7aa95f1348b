"""The migration that moved a team event's boards out of the shared Match (0022) keeps every board, both ways:
a real team event's boards are taken back into the old columns and out again, the same rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from relay.models import StageDelay
from tournament.demo_tournament import load_demo_team_event
from tournament.models import TeamBoard

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tournament", "0021_stage_kind_double_elimination")]


def test_the_team_boards_survive_the_migration_back_and_forth() -> None:
    event = load_demo_team_event()
    boards = set(TeamBoard.objects.values_list("match_id", "team_match_id", "number"))
    assert len(boards) == 8 and {n for _m, _t, n in boards} == {1, 2, 3, 4}  # round 1: two team matches of four
    executor = MigrationExecutor(connection)
    try:
        executor.migrate(BEFORE)
        old = MigrationExecutor(connection).loader.project_state(BEFORE).apps.get_model("tournament", "Match")
        kept = set(
            old.objects.filter(tournament_id=event.pk, team_match__isnull=False).values_list(
                "pk", "team_match_id", "team_board"
            )
        )
        assert kept == boards  # back in the old columns, every one
    finally:  # every app back at its latest migration (taking 0022 back took back what depends on it too)
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert set(TeamBoard.objects.values_list("match_id", "team_match_id", "number")) == boards
    assert StageDelay.objects.count() == 0  # the relay's tables, which depend on it, are back too
