from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from games.models import Game
from tournament.demo_tournament import DEMO_DOUBLE_NAME, DEMO_NAME, DEMO_TEAMS_NAME
from tournament.models import Match, Team, TeamMatch, Tournament
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


def test_the_demo_double_elimination_is_part_way_through_its_brackets(client: Client) -> None:
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)  # idempotent

    event = Tournament.objects.get(name=DEMO_DOUBLE_NAME)
    stage = event.stages.get()
    rounds = list(stage.rounds.order_by("number").values_list("number", "status"))
    assert rounds == [(1, "closed"), (2, "closed"), (3, "closed"), (4, "published")]
    losses: dict[int, int] = {}
    for match in Match.objects.filter(group__stage=stage, status=Match.Status.FINISHED):
        loser = match.second_id if match.winner_id == match.first_id else match.first_id
        losses[loser] = losses.get(loser, 0) + 1
    assert max(losses.values()) == 2 and sum(losses.values()) == 4 + 2 + 2 + 1 + 2  # W1, W2, L1, W3, L2
    page = client.get(f"/t/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Winners&#x27; bracket" in page and "Losers&#x27; bracket" in page and "Grand final" in page
    assert "Bracket reset" not in page  # only once the losers' champion has won the final
