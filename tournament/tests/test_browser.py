"""The pages in a real browser: Debian's Chromium driven by Playwright against the live server.

Screenshots of each page are saved under var/test-artifacts/.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import translation
from playwright.sync_api import Page, expect

from devtools.catalogues import english_strings
from games.models import Game, Player
from games.services import game_create
from relay.models import RelayMove
from tournament import services
from tournament.demo_tournament import DEMO_DOUBLE_NAME, DEMO_NAME, DEMO_TEAMS_NAME
from tournament.models import Tournament
from tournament.stage_formats import stage_standings
from tournament.tests.browser import PASSWORD, account, click_point, open_page, untranslated

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
T01 = "g8 a1 i8 c1 h9 e1 h10 k1"  # black to move; h8 would be a double-three


def my_turn(page: Page) -> None:
    expect(page.locator("#status")).to_contain_text("Your turn", timeout=5000)


def test_demo_standings_render_with_the_right_numbers(live_server: Any, browser: Any, screenshot: Any) -> None:
    call_command("load_demo", verbosity=0)
    tournament = Tournament.objects.get(name=DEMO_NAME)
    page = open_page(browser, live_server.url)

    page.goto(f"{live_server.url}/t/{tournament.pk}/")

    for table in stage_standings(tournament.stages.get()):
        rows = page.locator(f"table.standings[data-group='{table['name']}'] tbody tr")
        expect(rows).to_have_count(len(table["rows"]))
        for index, row in enumerate(table["rows"]):
            cells = rows.nth(index).locator("td")
            expect(cells.nth(1)).to_have_text(row["player"])
            expect(cells.nth(3)).to_have_text(str(row["played"]))
            expect(cells.nth(7)).to_have_text(str(row["points"]))
    screenshot(page, "public-standings")
    page.goto(f"{live_server.url}/t/{tournament.pk}/call-sheet/")
    screenshot(page, "call-sheet")


def test_two_players_play_a_rif_game_to_a_five(live_server: Any, browser: Any, screenshot: Any) -> None:
    alice, bob = account("alice", "player"), account("bob", "player")
    one, two = Player.objects.create(name="Alice", user=alice), Player.objects.create(name="Bob", user=bob)
    game = game_create(player_one=one, player_two=two, rules="renju", protocol="rif", time_control="quick")
    first, second = open_page(browser, live_server.url, alice), open_page(browser, live_server.url, bob)
    for page in (first, second):
        page.goto(f"{live_server.url}/g/{game.pk}/")

    def act(page: Page, done: int, action: Any) -> None:
        """Wait until ``page`` shows all ``done`` actions and it is its turn; act; see the action recorded."""
        records = page.locator("#record li")
        expect(records).to_have_count(done)
        my_turn(page)
        action()
        expect(records).to_have_count(done + 1)

    act(first, 0, lambda: click_point(first, "h8"))  # player one places the first three stones
    act(first, 1, lambda: click_point(first, "h9"))

    def third_by_keyboard() -> None:  # from h9 (the last click) up one, then Enter
        first.locator("#board").focus()
        first.keyboard.press("ArrowUp")
        first.keyboard.press("Enter")

    act(first, 2, third_by_keyboard)
    act(second, 3, lambda: second.get_by_role("button", name="Swap colours").click())  # player two takes black
    act(first, 4, lambda: click_point(first, "h7"))  # white's fourth move

    expect(second.locator("#record li")).to_have_count(5)
    my_turn(second)
    click_point(second, "g12")
    click_point(second, "i12")  # mirror images of each other across the h file
    second.get_by_role("button", name=re.compile("Offer these points")).click()
    expect(second.locator("#message")).to_contain_text("symmetric")
    screenshot(second, "rif-symmetric-offers-refused")

    def offer() -> None:
        click_point(second, "g12")
        click_point(second, "j12")
        second.get_by_role("button", name=re.compile("Offer these points")).click()

    act(second, 5, offer)
    expect(first.locator("[data-mark]")).to_have_count(2)
    act(first, 6, lambda: click_point(first, "g12"))  # white keeps g12
    done = 7
    for white, black in zip(["o1", "o15", "o13", "o11", "m15"], ["b3", "c3", "d3", "e3", "f3"], strict=True):
        act(first, done, lambda w=white: click_point(first, w))
        act(second, done + 1, lambda b=black: click_point(second, b))
        done += 2

    expect(second.locator("#status")).to_contain_text("Finished", timeout=5000)
    expect(first.locator("#status")).to_contain_text("Finished", timeout=5000)
    game.refresh_from_db()
    assert (game.result, game.result_reason, game.black, game.white) == ("black", "five", two, one)
    screenshot(first, "rif-game-finished")


def test_referee_records_a_claim_and_sees_the_verdict_drawn(live_server: Any, browser: Any, screenshot: Any) -> None:
    referee = account("ref", "referee")
    game = game_create(
        player_one=Player.objects.create(name="X"),
        player_two=Player.objects.create(name="Y"),
        mode="otb",
        forbidden_mode="claim",
    )
    game.referees.add(referee)
    page = open_page(browser, live_server.url, referee)
    page.goto(f"{live_server.url}/g/{game.pk}/claim/")

    page.fill("#record", T01)
    page.dispatch_event("#record", "input")
    page.click("#pick")
    click_point(page, "h8")
    expect(page.locator("#point")).to_have_value("h8")
    page.click("#submit")

    expect(page.locator("#verdict [data-status]")).to_have_attribute("data-status", "upheld")
    expect(page.locator("#verdict")).to_contain_text("double-three")
    expect(page.locator("[data-shape]")).to_have_count(2)
    screenshot(page, "referee-claim-verdict")
    game.refresh_from_db()
    assert (game.result, game.result_reason) == ("white", "forbidden")


def test_reported_and_confirmed_result_reaches_the_public_standings_within_two_seconds(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    users = [account(f"p{n}", "player") for n in range(4)]
    tournament = services.tournament_create(name="Browser cup", boards=2)
    for n, user in enumerate(users):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}", user=user))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=11)
    services.start_stage(stage=stage)
    game = Game.objects.filter(match_game__match__tournament=tournament, board_number=1).get()
    black_user, white_user = game.black.user, game.white.user
    public = open_page(browser, live_server.url)
    public.goto(f"{live_server.url}/t/{tournament.pk}/")
    row = public.locator("table.standings tbody tr", has_text=game.black.name)
    expect(row.locator("td").nth(7)).to_have_text("0")

    reporter = open_page(browser, live_server.url, black_user)
    reporter.goto(f"{live_server.url}/g/{game.pk}/")
    reporter.locator(".report select").first.select_option("black")
    reporter.locator(".report select").nth(1).select_option("five")
    reporter.get_by_role("button", name="Report the result").click()
    confirmer = open_page(browser, live_server.url, white_user)
    confirmer.goto(f"{live_server.url}/g/{game.pk}/")
    confirm = confirmer.get_by_role("button", name="Confirm")
    confirm.click()
    confirmed_at = time.monotonic()

    expect(row.locator("td").nth(7)).to_have_text("2", timeout=2000)
    assert time.monotonic() - confirmed_at < 2.0
    screenshot(public, "standings-after-confirmed-result")


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_every_page_renders_in_the_browser_in_every_language_with_nothing_left_in_english(
    live_server: Any, browser: Any, screenshot: Any, language: str
) -> None:
    call_command("load_demo", verbosity=0)
    users = get_user_model().objects
    for name in ("player01", "referee1", "organizer"):
        user = users.get(username=name)
        user.set_password(PASSWORD)
        user.save()
    tournament = Tournament.objects.get(name=DEMO_NAME)
    teams = Tournament.objects.get(name=DEMO_TEAMS_NAME)
    double = Tournament.objects.get(name=DEMO_DOUBLE_NAME)
    game = (
        Game.objects.filter(match_game__match__tournament=tournament, status="finished").exclude(record_text="").first()
    )
    assert game is not None
    relayed = RelayMove.objects.filter(game__match_game__match__tournament=tournament).first()
    assert relayed is not None  # the demo relays some boards
    english = set() if language == "en" else english_strings(translation.to_locale(language))
    errors: list[str] = []
    left: dict[str, list[str]] = {}
    public = open_page(browser, live_server.url, language=language)
    public.on("pageerror", lambda exc: errors.append(str(exc)))
    pages = {
        "home": "/",
        "tournament": f"/t/{tournament.pk}/",
        "team-event": f"/t/{teams.pk}/",
        "double-elimination": f"/t/{double.pk}/",
        "game": f"/g/{game.pk}/",
        "call-sheet": f"/t/{tournament.pk}/call-sheet/",
        "result-sheets": f"/t/{tournament.pk}/result-sheets/",
        "ratings": "/ratings/",
        "login": "/accounts/login/",
        "relay": f"/t/{tournament.pk}/relay/",
        "relay-screen": f"/t/{tournament.pk}/relay/screen/",
        "relay-game": f"/relay/{relayed.game_id}/",
    }
    for name, path in pages.items():
        public.goto(live_server.url + path)
        expect(public.locator("html")).to_have_attribute("lang", language)
        if name == "relay-game":
            expect(public.locator("svg.board-svg .stone")).not_to_have_count(0)  # drawn from the API
        if name == "game":
            expect(public.locator("#status")).not_to_be_empty()  # the page has drawn the game from the API
            expect(public.locator("svg.board-svg .stone")).not_to_have_count(0)
        screenshot(public, f"{name}-{language}")
        left[name] = untranslated(public, english)
    signed_in = (
        ("player01", "/me/", "player-console"),
        ("referee1", "/referee/", "referee-console"),
        ("organizer", "/organizer/", "control-home"),
        ("organizer", f"/organizer/t/{tournament.pk}/", "control-room"),
        ("organizer", f"/organizer/t/{teams.pk}/", "control-room-teams"),
        ("organizer", f"/organizer/t/{double.pk}/", "control-room-double"),
    )
    for username, path, name in signed_in:
        page = open_page(browser, live_server.url, users.get(username=username), language)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(live_server.url + path)
        expect(page.locator("html")).to_have_attribute("lang", language)
        screenshot(page, f"{name}-{language}")
        left[name] = untranslated(page, english)
    assert errors == []
    assert {name: texts for name, texts in left.items() if texts} == {}


def test_an_over_the_board_game_page_takes_no_stone_and_shows_no_clock(live_server: Any, browser: Any) -> None:
    users = [account("otb1", "player"), account("otb2", "player")]
    game = game_create(
        player_one=Player.objects.create(name="O1", user=users[0]),
        player_two=Player.objects.create(name="O2", user=users[1]),
        mode="otb",
        rules="freestyle",
        time_control="quick",
    )
    page = open_page(browser, live_server.url, users[0], "zh-hans")
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator(".report")).to_be_visible()

    click_point(page, "h8")
    page.wait_for_timeout(1500)  # a poll or two: a placed stone would be back by now

    game.refresh_from_db()
    assert (game.ply, game.clock["status"], game.deadline) == (0, "waiting", None)
    expect(page.locator("#clocks .clock")).to_have_count(0)
    assert page.locator("#controls button", has_text="认输").count() == 0
    expect(page.locator("#status")).not_to_contain_text("轮到你")
