"""Team events in the browser (Chromium through Playwright): the captain sends a lineup from a phone, the
opponent's team page hides it until both are in, and the public pages show the team standings and boards."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Player
from tournament import services
from tournament.models import Lineup, Match, TeamMatch
from tournament.teams.services import team_create
from tournament.tests.browser import account, open_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def team_cup() -> tuple[Any, Any, TeamMatch]:
    captain_user = account("captain", "player")
    captain = Player.objects.create(name="Captain Wang", user=captain_user)
    tournament = services.tournament_create(
        name="Team cup", preset="teams", stage_options={"boards": 3, "reserves": 1, "lineup_minutes": 30}
    )
    services.publish(tournament=tournament)
    home = [captain, *(Player.objects.create(name=f"Home {n}") for n in (2, 3, 4))]
    away = [Player.objects.create(name=f"Away {n}") for n in (1, 2, 3, 4)]
    team_create(tournament=tournament, name="East", players=home, captain=captain)
    team_create(tournament=tournament, name="West", players=away)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    services.pair_next_round(stage=stage)
    return tournament, captain_user, TeamMatch.objects.get(stage=stage)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_captain_sends_the_lineup_from_a_phone(live_server: Any, browser: Any, language: str) -> None:
    tournament, captain_user, team_match = team_cup()
    page = open_page(browser, live_server.url, captain_user, language=language, viewport=PHONE)
    page.goto(f"{live_server.url}/me/")

    form = page.locator(".lineup-form")
    expect(form.locator("select")).to_have_count(3)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the console scrolls sideways by {overflow}px at 390×844"
    for control in (*form.locator("select").all(), form.locator("button[type=submit]")):
        box = control.bounding_box()
        assert box is not None and box["height"] >= 40, box  # big enough to tap
    form.locator("select").nth(2).select_option(label="4. Home 4")  # the reserve plays board 3
    form.locator("button[type=submit]").tap()

    expect(page.locator(".messages")).to_be_visible()
    lineup = Lineup.objects.get(team_match=team_match, team__name="East")
    names = list(Player.objects.filter(entries__pk__in=[e for e in lineup.entries if e]).values_list("name", flat=True))
    assert sorted(names) == ["Captain Wang", "Home 2", "Home 4"] and not lineup.fallback

    other = open_page(browser, live_server.url, language=language)
    other.goto(f"{live_server.url}/t/{tournament.pk}/team/{team_match.home_id}/")  # West's page, anonymously
    match = other.locator("table.team-match")
    expect(match.locator(".lineup-hidden")).to_have_count(1)  # East's lineup is in, hidden until both are in
    expect(match.get_by_text("Home 4")).to_have_count(0)


def test_the_public_pages_show_the_team_standings_and_boards(live_server: Any, browser: Any) -> None:
    tournament, _captain_user, team_match = team_cup()
    from tournament.teams.services import make_boards

    make_boards(team_match)  # the deadline passed: both standing orders play
    assert Match.objects.filter(team_board__team_match=team_match).count() == 3
    page = open_page(browser, live_server.url, language="zh-hans", viewport=PHONE)
    page.goto(f"{live_server.url}/t/{tournament.pk}/")

    table = page.locator("table.standings.teams")
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(page.locator("table.team-match tbody tr")).to_have_count(3)
    page.locator("table.standings.teams a", has_text="East").click()
    expect(page.locator("h1")).to_contain_text("East")
    expect(page.locator("ol.roster li")).to_have_count(4)
    expect(page.locator("table.team-match tbody tr")).to_have_count(3)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
