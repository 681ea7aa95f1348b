"""The fair-play pages in a real browser, on a desktop and a phone: a referee finds the case in the queue,
reads its numbers and charts (forced moves greyed) and decides; a second referee agrees; the player reads the
outcome with its grounds and appeals; another player finds no case."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from fairplay.models import Case, FocusLoss
from fairplay.tests.helpers import opened_case, played, referee_of, round_one
from games.models import Player
from games.services import game_act
from tournament.tests.browser import PASSWORD, open_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def with_password(user: Any) -> Any:
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_two_referees_decide_a_case_and_the_player_reads_it_and_appeals(
    live_server: Any, browser: Any, viewport: Any, screenshot: Any
) -> None:
    tournament, games = round_one()
    case = opened_case(tournament, played(games[0]))
    first, second = referee_of(tournament, "ref1"), referee_of(tournament, "ref2")
    page = open_page(browser, live_server.url, first, "en", viewport)
    page.goto(f"{live_server.url}/fairplay/")
    page.get_by_role("link", name=case.player.name).click()
    expect(page.locator("h1")).to_contain_text(f"Case {case.pk}")
    expect(page.locator(".fairplay-summary")).to_contain_text("z = 4.20")
    expect(page.locator(".notice")).to_contain_text("What the numbers do not prove")
    expect(page.locator(".fairplay-game svg.chart rect.forced")).not_to_have_count(0)  # the opening stone, greyed
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the case page scrolls sideways by {overflow}px"
    screenshot(page, f"fairplay-case-{'phone' if viewport else 'desktop'}")
    page.select_option("select[name=outcome]", "warning")
    page.fill("textarea[name=note]", "every move the engine's first choice")
    page.get_by_role("button", name="Record the decision").click()
    expect(page.locator("#decisions-title + ul")).to_contain_text("ref1")
    assert Case.objects.get(pk=case.pk).status == "open"  # one referee is not enough

    other = open_page(browser, live_server.url, second, "en", viewport)
    other.goto(f"{live_server.url}/fairplay/case/{case.pk}/")
    other.select_option("select[name=outcome]", "warning")
    other.get_by_role("button", name="Record the decision").click()
    expect(other.locator("h1 + p")).to_contain_text("warning")
    assert Case.objects.get(pk=case.pk).status == "decided"

    player = Player.objects.get(pk=case.player_id)
    assert player.user is not None
    mine = open_page(browser, live_server.url, with_password(player.user), "en", viewport)
    mine.goto(f"{live_server.url}/fairplay/mine/")
    expect(mine.locator(".grounds")).to_contain_text("every move the engine's first choice")
    mine.fill("textarea[name=text]", "I was at the club; the arbiter saw me play")
    mine.get_by_role("button", name="Send the appeal").click()
    expect(mine.locator("body")).to_contain_text("Your appeal is sent")
    assert Case.objects.get(pk=case.pk).status == "appealed"
    answer = mine.goto(f"{live_server.url}/fairplay/case/{case.pk}/")
    assert answer is not None and answer.status == 404  # the player reads the outcome, not the case file

    stranger = Player.objects.exclude(pk=case.player_id).exclude(user=None).first()
    assert stranger is not None and stranger.user is not None
    nosy = open_page(browser, live_server.url, with_password(stranger.user), "en", viewport)
    answer = nosy.goto(f"{live_server.url}/fairplay/case/{case.pk}/")
    assert answer is not None and answer.status == 404
    nosy.goto(f"{live_server.url}/fairplay/mine/")
    expect(nosy.locator("main")).to_contain_text("No decision about your games")


def test_the_game_page_says_it_lost_the_focus_on_the_players_turn_but_not_when_the_player_leaves_it(
    live_server: Any, browser: Any
) -> None:
    _tournament, games = round_one()
    game = games[0]
    assert game.black is not None and game.white is not None and game.white.user is not None
    game_act(game_id=game.pk, player=game.black, action="place h8", expected_ply=0)
    page = open_page(browser, live_server.url, with_password(game.white.user))
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("#record li")).to_have_count(1)  # the page has the game: White is on move
    page.evaluate("Object.defineProperty(document, 'hidden', {get: () => true, configurable: true})")
    with page.expect_response("**/api/fairplay/focus/") as answer:
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    assert answer.value.json() == {"kept": True}
    assert FocusLoss.objects.get(game=game).player_id == game.white.pk

    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url))
    with page.expect_request("**/?after-leaving"):
        page.evaluate(
            "window.dispatchEvent(new PageTransitionEvent('pagehide'));"
            "document.dispatchEvent(new Event('visibilitychange'));"
            "fetch('/?after-leaving')"
        )
    assert not [url for url in sent if "/api/fairplay/focus/" in url], sent
