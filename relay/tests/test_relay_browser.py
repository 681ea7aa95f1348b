"""The recorder's page in a real browser, on a phone (a touch screen: a first tap shows the stone, a second
records it) and on a tablet: a renju game's RIF opening entered at the board — three stones, black kept,
the fourth, two fifths offered, one chosen — then a stone and an undo; a second recorder is refused until
they take the board over."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from relay.models import Correction, LeaseChange, RelayMove
from tournament.tests.browser import account, click_point, open_page
from tournament.tests.helpers import started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 820, "height": 1180}


def stone(page: Page, point: str, touch: bool) -> None:
    click_point(page, point)
    if touch:  # the first tap only shows where the stone would go
        expect(page.locator(f'[data-mark="{point}"]')).to_have_count(1)
        click_point(page, point)


def entries(game: Game) -> list[str]:
    return list(RelayMove.objects.filter(game=game).order_by("ply").values_list("text", flat=True))


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_a_recorder_enters_a_renju_opening_at_the_board_and_undoes_a_stone(
    live_server: Any, browser: Any, viewport: Any, screenshot: Any
) -> None:
    touch = viewport["width"] < 600
    tournament, _stage = started(4, preset="renju-rif")
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert game is not None
    page = open_page(browser, live_server.url, account("boss", "organizer"), "en", viewport)
    page.goto(f"{live_server.url}/relay/{game.pk}/record/")
    status = page.locator("#status")
    expect(status).to_contain_text("Tap the point of the next stone")

    for n, point in enumerate(["h8", "h9", "j10"], start=1):
        stone(page, point, touch)
        expect(status).to_contain_text(f"{n} entries recorded")
    expect(status).to_contain_text("Did the other player swap?")
    page.get_by_role("button", name="Kept").click()
    expect(status).to_contain_text("4 entries recorded")
    stone(page, "h6", touch)
    expect(status).to_contain_text("Tap the 2 fifth stones offered")
    send = page.get_by_role("button", name="Send the offered stones")
    click_point(page, "g8")
    expect(send).to_be_disabled()
    click_point(page, "j11")
    expect(send).to_be_enabled()
    send.click()
    expect(status).to_contain_text("Tap the fifth stone chosen")
    click_point(page, "j11")
    expect(status).to_contain_text("7 entries recorded")
    stone(page, "k11", touch)
    expect(page.locator("#record li")).to_have_count(8)
    assert entries(game) == [
        "place h8",
        "place h9",
        "place j10",
        "no-swap",
        "place h6",
        "offer g8 j11",
        "choose j11",
        "place k11",
    ]
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the recorder's page scrolls sideways by {overflow}px"
    screenshot(page, f"relay-recorder-{'phone' if touch else 'tablet'}")

    page.get_by_role("button", name="Undo the last entry").click()
    expect(page.locator("#record li")).to_have_count(7)
    assert entries(game)[-1] == "choose j11" and Correction.objects.filter(game=game).count() == 1

    deputy = open_page(browser, live_server.url, account("deputy", "organizer"), "en", viewport)
    deputy.goto(f"{live_server.url}/relay/{game.pk}/record/")
    expect(deputy.locator("#status")).to_contain_text("7 entries recorded")  # the record has arrived
    stone(deputy, "k11", touch)
    expect(deputy.locator("#message")).to_contain_text("boss records this board")
    deputy.get_by_role("button", name="Take this board over").click()
    stone(deputy, "k11", touch)
    expect(deputy.locator("#record li")).to_have_count(8)
    assert LeaseChange.objects.filter(game=game).count() == 1


def test_the_recorders_page_is_for_the_games_referees_and_organizers_only(live_server: Any, browser: Any) -> None:
    tournament, _stage = started(4, preset="renju-rif")
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert game is not None
    page = open_page(browser, live_server.url, account("rival", "host"), "en")
    answer = page.goto(f"{live_server.url}/relay/{game.pk}/record/")
    assert answer is not None and answer.status == 404
