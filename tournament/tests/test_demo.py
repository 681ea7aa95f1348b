from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from games.models import Game
from tournament.demo_tournament import DEMO_NAME, DEMO_TEAMS_NAME
from tournament.models import Team, TeamMatch, Tournament
from tournament.stage_formats import stage_standings
from tournament.teams.services import team_standings

pytestmark = pytest.mark.django_db


def test_demo_tournament_is_part_way_through_its_preliminary_stage() -> None:
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)  # idempotent

    tournament = Tournament.objects.get(name=DEMO_NAME)
    stage = tournament.stages.get()
    played = Game.objects.filter(match_game__match__tournament=tournament, status="finished").count()
    tables = stage_standings(stage)

    assert (tournament.status, stage.status, len(tables)) == ("running", "running", 6)
    assert 0 < played < 5 * 12 + 3
    assert any(row["played"] > 0 for table in tables for row in table["rows"])
    assert tournament.entries.filter(player__user__username="player01").exists()


def test_the_demo_team_event_has_round_one_played_and_player01_captains_a_team_awaiting_round_two(
    client: Client,
) -> None:
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)  # idempotent: one team event, its teams entered once

    event = Tournament.objects.get(name=DEMO_TEAMS_NAME)
    stage = event.stages.get()
    assert Team.objects.filter(tournament=event).count() == 4
    rows = team_standings(stage)
    assert sorted(r.played for r in rows) == [1, 1, 1, 1]
    assert sum(r.game_points for r in rows) == 2 * 4 * 2  # two team matches of four boards, counted in halves
    waiting = TeamMatch.objects.filter(stage=stage, round=2)
    assert waiting.count() == 2 and all(m.boards_made_at is None for m in waiting)

    client.force_login(get_user_model().objects.get(username="player01"))
    console = client.get("/me/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "lineup" in console.lower() and 'action="/me/lineup/' in console
