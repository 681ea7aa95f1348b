"""The projector at a real field's size (1920×1080, 100 players): every part fits the screen and pages
itself, boards finished this round stay on the boards part, and the hall finds its board by name."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Game, Player
from tournament import services
from tournament.services import rounds as cycle
from tournament.tests.browser import open_page
from tournament.tests.helpers import win

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PROJECTOR = {"width": 1920, "height": 1080}


def test_the_projector_pages_a_hundred_players_and_lists_them_by_name(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    tournament = services.tournament_create(name="Open", preset="swiss", stage_options={"rounds": 5}, boards=50)
    services.publish(tournament=tournament)
    names = [f"Player {n:03d}" for n in range(1, 101)]
    for n, name in enumerate(names):
        services.register(tournament=tournament, player=Player.objects.create(name=name, rating=2400 - n))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    rnd = cycle.round_pair(stage=stage)
    cycle.round_publish(stage=stage, number=rnd.number)
    first = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert first is not None
    win(first, first.black)  # one board finished: it stays on the boards part with its result

    page = open_page(browser, live_server.url, None, "en", PROJECTOR)
    page.goto(f"{live_server.url}/t/{tournament.pk}/screen/?seconds=5")
    boards = page.locator(".screen-part[data-part=boards]")
    expect(boards).to_be_visible()
    box = boards.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PROJECTOR["height"]  # the part fits the screen
    tall = "document.documentElement.scrollHeight"
    assert page.evaluate(tall) <= PROJECTOR["height"], "the screen scrolls"  # not even by a pixel
    screenshot(page, "projector-boards")
    expect(boards.locator(".finished")).to_contain_text(f"{first.black.name}")
    expect(boards.locator(".finished")).to_contain_text("1–0")
    listed = boards.locator(".by-name-list tbody tr td:first-child").all_inner_texts()
    assert listed == sorted(names)  # everyone of the round, by name, with the board
    assert boards.evaluate("el => el.scrollHeight > el.clientHeight")  # more than a screen: paged

    page.wait_for_timeout(5_500)
    assert boards.evaluate("el => el.scrollTop") > 0  # the next page of the same part
    expect(boards.locator(".screen-page")).to_contain_text("2 /")
    standings = page.locator(".screen-part[data-part=standings]")
    parts = "document.querySelectorAll('.screen-part')"
    show_standings = f"for (const p of {parts}) p.hidden = p.dataset.part !== 'standings'"
    page.evaluate(show_standings)
    expect(standings).to_be_visible()  # (it comes after the boards' last page; shown at once here)
    box = standings.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PROJECTOR["height"]
    assert page.evaluate(tall) <= PROJECTOR["height"], "the screen scrolls"
    assert standings.evaluate("el => el.scrollHeight > el.clientHeight")  # 100 rows: paged too
    for hidden in (".stage-links", ".draw-seed", ".swiss-round", ".notices"):
        assert standings.locator(hidden).evaluate_all("els => els.every(e => !e.offsetParent)"), hidden
