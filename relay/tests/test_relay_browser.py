"""The relay in a real browser. The recorder's page on a phone (a touch screen: a first tap shows the stone, a
second records it) and on a tablet: a whole renju game entered at the board — the RIF opening (three stones,
black kept, the fourth, two fifths offered, one chosen), a correction from ply k with its reason, the table
clock's readings, an undo, the five; a second recorder refused until they take the board over; the board
turned to the recorder's side. Spectators: the multiboard showing each stone after the stage's delay and not
before (an injected clock), and the projector's multiboard with sixteen boards on a 1920×1080 screen."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from playwright.sync_api import Page, expect

from games.models import Game
from relay.models import Correction, LeaseChange, RelayMove
from relay.services import relay_enter, set_delay
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


# A whole renju game at the board: the RIF opening (three stones, black kept, the fourth, two fifths offered,
# one chosen), then black's five down the j file (j9–j13) while white plays far away.
OPENING = ["place h8", "place h9", "place j10", "no-swap", "place h6", "offer g8 j11", "choose j11"]
AFTER = ["a1", "j12", "a3", "j13", "a5", "j9"]


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_a_recorder_enters_a_whole_renju_game_at_the_board_with_an_undo_and_a_correction(
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
    assert entries(game) == OPENING

    # White's sixth typed wrong (b1, not a1) with the table clock's readings; black's seventh; then the mistake
    # is seen: corrected from ply 8, with a reason everyone sees, and entered again.
    page.fill("#clock-black", "4:31")
    page.fill("#clock-white", "4:02")
    stone(page, "b1", touch)
    expect(status).to_contain_text("8 entries recorded")
    assert RelayMove.objects.get(game=game, ply=8).clock == {"black_ms": 271_000, "white_ms": 242_000}
    stone(page, "j12", touch)
    expect(status).to_contain_text("9 entries recorded")
    page.locator("#record li").nth(7).get_by_role("button").click()
    expect(page.locator("#fix")).to_contain_text("Correct from ply 8")
    page.get_by_role("button", name="Remove from here, then enter again").click()
    expect(page.locator("#fix-reason")).to_be_focused()  # no correction without its reason
    page.fill("#fix-reason", "a1, not b1: the players' sheet")
    page.get_by_role("button", name="Remove from here, then enter again").click()
    expect(status).to_contain_text("7 entries recorded")
    correction = Correction.objects.get(game=game)
    assert (correction.from_ply, correction.removed) == (8, ["place b1", "place j12"])

    for n, point in enumerate(AFTER, start=8):
        stone(page, point, touch)
        expect(status).to_contain_text(f"{n} entries recorded")
    # A stone sent by mistake after the five is refused by the rules; an undo takes back the last one.
    page.get_by_role("button", name="Undo the last entry").click()
    expect(page.locator("#record li")).to_have_count(12)
    stone(page, "j9", touch)
    expect(page.locator("#record li")).to_have_count(13)
    assert entries(game) == OPENING + [f"place {p}" for p in AFTER]
    assert Correction.objects.filter(game=game).count() == 2
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the recorder's page scrolls sideways by {overflow}px"
    screenshot(page, f"relay-recorder-{'phone' if touch else 'tablet'}")

    public = client_view(game)
    assert [c["reason"] for c in public["corrections"]][0] == "a1, not b1: the players' sheet"


def client_view(game: Game) -> Any:
    from rest_framework.test import APIClient

    return APIClient().get(f"/api/relay/{game.pk}/").json()


def test_a_second_recorder_is_refused_until_they_take_the_board_over(live_server: Any, browser: Any) -> None:
    tournament, _stage = started(4, preset="renju-rif")
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert game is not None
    boss = open_page(browser, live_server.url, account("boss", "organizer"), "en", TABLET)
    boss.goto(f"{live_server.url}/relay/{game.pk}/record/")
    expect(boss.locator("#status")).to_contain_text("0 entries recorded")  # the record has arrived
    stone(boss, "h8", False)
    expect(boss.locator("#status")).to_contain_text("1 entries recorded")

    deputy = open_page(browser, live_server.url, account("deputy", "organizer"), "en", PHONE)
    deputy.goto(f"{live_server.url}/relay/{game.pk}/record/")
    expect(deputy.locator("#status")).to_contain_text("1 entries recorded")  # the record has arrived
    stone(deputy, "h9", True)
    expect(deputy.locator("#message")).to_contain_text("boss records this board")
    assert entries(game) == ["place h8"]
    deputy.get_by_role("button", name="Take this board over").click()
    stone(deputy, "h9", True)
    expect(deputy.locator("#record li")).to_have_count(2)
    assert LeaseChange.objects.filter(game=game).count() == 1

    stone(boss, "j10", False)  # the first recorder's screen is behind: refused, and the record reloaded
    expect(boss.locator("#message")).to_contain_text("Ply 2 is already recorded as place h9")
    expect(boss.locator("#record li")).to_have_count(2)
    stone(boss, "j10", False)  # and without the board now
    expect(boss.locator("#message")).to_contain_text("deputy records this board")
    assert entries(game) == ["place h8", "place h9"]


def test_the_board_turns_to_the_recorders_side_of_the_table(live_server: Any, browser: Any) -> None:
    tournament, _stage = started(4, preset="seed")
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert game is not None
    page = open_page(browser, live_server.url, account("boss", "organizer"), "en", TABLET)
    page.goto(f"{live_server.url}/relay/{game.pk}/record/")
    expect(page.locator("#status")).to_contain_text("0 entries recorded")
    page.get_by_role("button", name="Turn the board").click()
    click_point(page, "a1")  # where a1 is on a board seen from black's side: o15 from white's
    expect(page.locator("#record li")).to_have_count(1)
    assert entries(game) == ["place o15"]
    page.reload()  # remembered on this device
    expect(page.locator("#record li")).to_have_count(1)
    click_point(page, "a2")
    expect(page.locator("#record li")).to_have_count(2)
    assert entries(game) == ["place o15", "place o14"]


def test_the_recorders_page_is_for_the_games_referees_and_organizers_only(live_server: Any, browser: Any) -> None:
    tournament, _stage = started(4, preset="renju-rif")
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("pk").first()
    assert game is not None
    page = open_page(browser, live_server.url, account("rival", "host"), "en")
    answer = page.goto(f"{live_server.url}/relay/{game.pk}/record/")
    assert answer is not None and answer.status == 404


def test_a_spectator_sees_each_stone_after_the_delay_and_not_before(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    """The public's multiboard and game page on a phone, the stage a minute behind; the server's clock is
    injected (time-machine moves it in this process, where the test server runs), the browser polls."""
    tournament, stage = started(4, preset="seed")
    game = Game.objects.filter(match_game__match__group__stage=stage).order_by("pk").first()
    assert game is not None
    boss = account("boss", "organizer")
    set_delay(stage=stage, minutes=1)
    start = timezone.now()
    with time_machine.travel(start, tick=True) as clock:
        relay_enter(game_id=game.pk, user=boss, expected_ply=0, action="place h8")
        board = open_page(browser, live_server.url, None, "en", PHONE)
        board.goto(f"{live_server.url}/t/{tournament.pk}/relay/")
        item = board.locator(f'li[data-game="{game.pk}"]')
        expect(item).to_have_count(1)
        watch = open_page(browser, live_server.url, None, "en", PHONE)
        watch.goto(f"{live_server.url}/relay/{game.pk}/")
        expect(watch.locator("#status")).to_contain_text("0 entries recorded")

        clock.shift(timedelta(seconds=20))
        relay_enter(game_id=game.pk, user=boss, expected_ply=1, action="place h9")  # twenty seconds later
        with board.expect_response(lambda r: f"/api/relay/boards/{tournament.pk}/" in r.url) as polled:
            pass  # a poll answered after both stones were entered
        assert polled.value.status in (200, 304)
        assert item.locator("circle.stone").count() == 0  # not before the delay
        expect(item.locator(".meta")).to_contain_text("1 min behind")

        first = RelayMove.objects.get(game=game, ply=1).entered_at
        clock.move_to(first + timedelta(minutes=1, seconds=1))  # the first stone comes of age, not the second
        expect(item.locator("circle.stone")).to_have_count(1)
        expect(item.locator('circle[data-point="h8"]')).to_have_count(1)
        expect(watch.locator("#status")).to_contain_text("1 entries recorded")
        expect(watch.locator("#record li")).to_have_count(1)

        clock.shift(timedelta(seconds=30))
        expect(item.locator("circle.stone")).to_have_count(2)
        expect(watch.locator("#record li")).to_have_count(2)
        for page in (board, watch):
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0
        screenshot(watch, "relay-watch-phone")


def test_the_projectors_multiboard_shows_sixteen_boards_on_one_1920_by_1080_screen(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    tournament, stage = started(32, preset="seed", boards=16)
    boss = account("boss", "organizer")
    games = list(Game.objects.filter(match_game__match__group__stage=stage).order_by("pk"))[:16]
    assert len(games) == 16
    for n, game in enumerate(games):
        for ply, point in enumerate(["h8", "h9", "j10", "g7", "k11"][: 1 + n % 5]):
            relay_enter(game_id=game.pk, user=boss, expected_ply=ply, action=f"place {point}")
    page = open_page(browser, live_server.url, None, "en", {"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/t/{tournament.pk}/relay/screen/")
    boards = page.locator("li.mini")
    expect(boards).to_have_count(16)
    size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert size[0] <= 1920 and size[1] <= 1080, f"the projector's page is {size[0]}×{size[1]}"
    for n in range(16):
        box = boards.nth(n).locator("svg").bounding_box()
        assert box is not None and box["height"] >= 220 and box["y"] + box["height"] <= 1080, (n, box)
        caption = boards.nth(n).locator("p").bounding_box()
        assert caption is not None and caption["y"] + caption["height"] <= 1080, (n, caption)
    assert boards.nth(15).locator("circle.stone").count() == 1 + 15 % 5
    screenshot(page, "relay-projector-16")


def test_a_new_stone_is_drawn_on_its_board_without_redrawing_the_others(live_server: Any, browser: Any) -> None:
    """The whole state fetched again fills the boards already drawn: a projector does not flicker, and a board
    is not taken from under a pointer (or a test's measuring) each time a stone comes."""
    tournament, stage = started(8, preset="seed", boards=4)
    boss = account("boss", "organizer")
    games = list(Game.objects.filter(match_game__match__group__stage=stage).order_by("pk"))
    for game in games:  # a board is on the multiboard once it is relayed
        relay_enter(game_id=game.pk, user=boss, expected_ply=0, action="place h8")
    page = open_page(browser, live_server.url, boss, "en")
    page.goto(f"{live_server.url}/t/{tournament.pk}/relay/")
    boards = page.locator("li.mini")
    expect(boards).to_have_count(len(games))
    page.evaluate("document.querySelectorAll('li.mini').forEach(function (li) { li.dataset.drawn = 'first'; })")
    relay_enter(game_id=games[0].pk, user=boss, expected_ply=1, action="place h9")
    expect(page.locator(f'li.mini[data-game="{games[0].pk}"] circle.stone')).to_have_count(2)
    assert page.locator("li.mini[data-drawn=first]").count() == len(games)


def test_a_few_boards_fill_the_projectors_screen(live_server: Any, browser: Any, screenshot: Any) -> None:
    """Four boards on the projector are drawn as large as the screen allows (two by two, not a sixth of a row
    each), and all of them on the screen."""
    tournament, stage = started(8, preset="seed", boards=4)
    boss = account("boss", "organizer")
    for game in Game.objects.filter(match_game__match__group__stage=stage).order_by("pk")[:4]:
        relay_enter(game_id=game.pk, user=boss, expected_ply=0, action="place h8")
    page = open_page(browser, live_server.url, None, "en", {"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/t/{tournament.pk}/relay/screen/")
    boards = page.locator("li.mini")
    expect(boards).to_have_count(4)
    for n in range(4):
        box = boards.nth(n).locator("svg").bounding_box()
        assert box is not None and box["height"] >= 400 and box["y"] + box["height"] <= 1080, (n, box)
    size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert size[0] <= 1920 and size[1] <= 1080, f"the projector's page is {size[0]}×{size[1]}"
    screenshot(page, "relay-projector-4")
