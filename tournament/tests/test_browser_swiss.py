"""A Swiss stage in the browser: the organizer pairs, reviews and publishes a round from the control
room; the public page shows the Swiss standings, the round with why each board is paired so, and fits a
phone in both languages (Chromium through Playwright)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Player
from tournament import services
from tournament.models import Round, Stage
from tournament.tests.browser import account, open_page
from tournament.tests.helpers import pair_and_publish, play_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def running_swiss(players: int = 9) -> Stage:
    tournament = services.tournament_create(name="Anji Open", preset="swiss", stage_options={"rounds": 5})
    for n in range(1, players + 1):
        services.register(tournament=tournament, player=Player.objects.create(name=f"棋手{n:02d}", rating=2400 - 7 * n))
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=5)
    services.start_stage(stage=stage)
    return stage


def test_the_organizer_pairs_reviews_and_publishes_a_round(live_server: Any, browser: Any) -> None:
    stage = running_swiss()
    page = open_page(browser, live_server.url, account("boss", "organizer"))
    page.goto(f"{live_server.url}/organizer/t/{stage.tournament_id}/")
    page.get_by_role("button", name="Pair round 1").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 paired")
    draft = page.locator(".swiss-control details").first
    expect(draft.locator("table.pairings tbody tr")).to_have_count(5)  # four boards and the bye
    expect(draft.locator("td.why").first).to_contain_text("Score group 0")
    draft.get_by_role("button", name="Publish").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 published")
    assert Round.objects.get(stage=stage).status == Round.Status.PUBLISHED


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_swiss_page_fits_a_phone_and_says_why(live_server: Any, browser: Any, language: str) -> None:
    stage = running_swiss()
    rng = random.Random(2)
    for _ in range(2):
        pair_and_publish(stage)
        play_round(stage, rng)
    page = open_page(browser, live_server.url, language=language, viewport=PHONE)
    page.goto(f"{live_server.url}/t/{stage.tournament_id}/")
    page.wait_for_load_state("load")  # (not "networkidle": the live parts poll every second)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the Swiss page scrolls sideways by {overflow}px at 390×844"
    table = page.locator("table.standings.swiss")
    expect(table.locator("tbody tr")).to_have_count(9)
    expect(table.locator("thead")).to_contain_text("BH-C1")
    expect(page.locator("section.swiss-round table.pairings tbody tr")).to_have_count(5)  # the latest round
    page.locator("section.swiss-round h4 a").click()
    page.wait_for_url(f"**/swiss/{stage.pk}/round/2/")
    expect(page.locator("table.pairings tbody tr")).to_have_count(5)
    expect(page.locator("td.why").first).to_contain_text("分组" if language == "zh-hans" else "Score group")
    expect(page.locator("section.slip")).to_have_count(4)  # a slip per board, none for the bye
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the round page scrolls sideways by {overflow}px at 390×844"
    page.goto(f"{live_server.url}/t/{stage.tournament_id}/swiss/{stage.pk}/crosstable/")
    expect(page.locator("table.cross tbody tr")).to_have_count(9)
