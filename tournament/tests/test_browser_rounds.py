"""The one round cycle in the browser: the organizer pairs a round of the test-only format (which no module of
the application knows) from the control room, changes a board by hand with a reason, and publishes it
(Chromium through Playwright)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Player
from tournament import services
from tournament.models import Match, Round
from tournament.tests.browser import account, open_page
from tournament.tests.formats import RoundsThenFinal

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_organizer_pairs_edits_and_publishes_a_round_of_a_new_format(
    live_server: Any, browser: Any, test_format: Any
) -> None:
    tournament = services.tournament_create(name="Rounds cup", first_stage=RoundsThenFinal.kind)
    for name in ("甲", "乙", "丙", "丁"):
        services.register(tournament=tournament, player=Player.objects.create(name=name))
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    page = open_page(browser, live_server.url, account("boss", "organizer"))
    page.goto(f"{live_server.url}/organizer/t/{tournament.pk}/")

    page.get_by_role("button", name="Pair round 1").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 paired")
    panel = page.locator(".rounds-control")
    expect(panel.locator("table.pairings tbody tr")).to_have_count(2)
    (a, b), (c, d) = Round.objects.get(stage=stage).boards
    names = dict(tournament.entries.values_list("pk", "player__name"))
    panel.locator("select[name=change]").select_option("swap")
    panel.locator("select[name=first]").select_option(str(b))
    panel.locator("select[name=second]").select_option(str(c))
    panel.locator("input[name=reason]").fill("同校回避")
    panel.get_by_role("button", name="Change the pairing").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 changed")
    expect(panel.locator("table.pairings tbody tr").first).to_contain_text(names[c])
    expect(panel).to_contain_text("同校回避")

    panel.get_by_role("button", name="Publish").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 published")
    made = Match.objects.filter(group__stage=stage, round=1).order_by("order")
    assert [(m.first_id, m.second_id) for m in made] == [(a, c), (b, d)]
    assert Round.objects.get(stage=stage).status == Round.Status.PUBLISHED
