"""The pages as players use them: forms that survive live updates, a record that matches the board,
phone-sized screens, and Chinese pages without raw identifiers (Chromium through Playwright)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import Page, expect

from games.models import Game, Player
from games.services import game_act, game_create, game_resign
from games.tests.helpers import CASES, played
from tournament.demo_tournament import DEMO_NAME
from tournament.models import Tournament
from tournament.tests.browser import PASSWORD, account, page_for, tap_centre, two_players

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def polls(page: Page, game: Game, n: int) -> None:
    """Wait for ``n`` answers to the page's own polling of the game (each may redraw the page)."""
    for _ in range(n):
        with page.expect_response(lambda r: r.url.endswith(f"/api/games/{game.pk}/"), timeout=5000):
            pass


def test_a_result_report_being_filled_in_survives_the_page_updates(live_server: Any, browser: Any) -> None:
    one_user, _two_user, one, two = two_players("form")
    game = game_create(player_one=one, player_two=two, mode="otb", rules="renju", time_control="quick")
    page = page_for(browser, live_server.url, one_user)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    form = page.locator(".report")
    form.locator("select").first.select_option("white")
    form.locator("select").nth(1).select_option("resignation")
    record = form.locator("textarea")
    record.fill("h8 h9 j10")
    record.focus()

    polls(page, game, 3)

    expect(form.locator("select").first).to_have_value("white")
    expect(form.locator("select").nth(1)).to_have_value("resignation")
    expect(record).to_have_value("h8 h9 j10")
    expect(record).to_be_focused()


def test_the_record_numbers_and_colours_stones_as_the_board_does(live_server: Any, browser: Any) -> None:
    one_user, _two_user, one, two = two_players("rec")
    game = game_create(player_one=one, player_two=two, rules="renju", protocol="rif", time_control="quick")
    for ply, (player, action) in enumerate(
        [(one, "place h8"), (one, "place h9"), (one, "place j10"), (two, "swap"), (one, "place h7")]
    ):
        game_act(game_id=game.pk, player=player, action=action, expected_ply=ply)
    page = page_for(browser, live_server.url, one_user)
    page.goto(f"{live_server.url}/g/{game.pk}/")

    items = page.locator("#record li")
    expect(items).to_have_text(["1. ● h8", "2. ○ h9", "3. ● j10", "colours swapped", "4. ○ h7"])
    expect(page.locator("svg.board-svg .stone.black")).to_have_count(2)
    expect(page.locator("svg.board-svg .stone.white")).to_have_count(2)
    expect(page.locator('svg.board-svg .stone.white[data-point="h9"]')).to_have_count(1)

    items.nth(0).click()  # the record steps the board back to that stone
    expect(page.locator("svg.board-svg .stone")).to_have_count(1)


def test_a_finished_game_page_stops_polling_and_says_who_won(live_server: Any, browser: Any) -> None:
    one_user, _two_user, one, two = two_players("done")
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    game_resign(game_id=game.pk, player=two)
    page = page_for(browser, live_server.url, one_user, language="zh-hans")
    fetched: list[str] = []
    failed: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if f"/api/games/{game.pk}/" in r.url else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server.url}/g/{game.pk}/")

    expect(page.locator("#status")).to_contain_text("黑胜")
    expect(page.locator("#status")).to_contain_text("认输")
    page.wait_for_timeout(2500)  # two polling intervals: a page still polling would have asked again
    assert [u for u in fetched if u.endswith(f"/api/games/{game.pk}/")] == fetched[:1], fetched
    # the engine's analysis is read once (none is pending, so it is not polled either)
    assert len([u for u in fetched if u.endswith(f"/api/games/{game.pk}/analysis/")]) == 1, fetched
    assert not failed  # nobody asked for an analysis: the page's question is answered "none", not 404
    expect(page.locator("#show-forbidden-row")).to_be_hidden()  # free-style has no forbidden points


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_pages_fit_a_phone(live_server: Any, browser: Any, language: str) -> None:
    call_command("load_demo", verbosity=0)
    tournament = Tournament.objects.get(name=DEMO_NAME)
    one_user, _two_user, one, two = two_players(f"phone{language[:2]}")
    game = game_create(player_one=one, player_two=two, rules="renju", time_control="quick")
    game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    page = page_for(browser, live_server.url, one_user, language=language, viewport=PHONE)

    for path in ("/", f"/t/{tournament.pk}/", f"/g/{game.pk}/", "/me/"):
        page.goto(live_server.url + path)
        page.wait_for_load_state("load")  # (not "networkidle": the live parts poll every second)
        if path.startswith("/g/"):
            expect(page.locator("#status")).not_to_be_empty()  # the board drawn from the API
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{path} scrolls sideways by {overflow}px at 390×844"

    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("#clocks .clock")).to_have_count(2)
    for target in (page.locator("svg.board-svg"), *page.locator("#clocks .clock").all()):
        box = target.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    board, mine, theirs = (
        page.locator(selector).bounding_box()
        for selector in ("svg.board-svg", "#clocks .clock.mine", "#clocks .clock:not(.mine)")
    )
    assert board and mine and theirs
    assert theirs["y"] + theirs["height"] <= board["y"] and mine["y"] >= board["y"] + board["height"]  # as at a table


def test_a_tap_shows_the_stone_and_a_second_tap_places_it(live_server: Any, browser: Any) -> None:
    one_user, _two_user, one, two = two_players("tap")
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    page = page_for(browser, live_server.url, one_user, viewport=PHONE)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    tap_centre(page)
    expect(page.locator('[data-mark="h8"]')).to_have_count(1)
    game.refresh_from_db()
    assert game.ply == 0  # one tap only shows where the stone would go

    tap_centre(page)
    expect(page.locator("#record li")).to_have_count(1)
    game.refresh_from_db()
    assert game.ply == 1


RAW = re.compile(
    r"\b(freestyle|renju|rif|resignation|no-swap|round_robin|best_of|knockout|playoff pending|"
    r"finished|running|pending|agreement|five|black|white|draw|online|otb)\b"
)


def test_chinese_pages_show_no_raw_identifiers(live_server: Any, browser: Any) -> None:
    call_command("load_demo", verbosity=0)
    tournament = Tournament.objects.get(name=DEMO_NAME)
    one_user, _two_user, one, two = two_players("zh")
    game = game_create(player_one=one, player_two=two, rules="renju", protocol="rif", time_control="quick")
    for ply, (player, action) in enumerate(
        [(one, "place h8"), (one, "place h9"), (one, "place j10"), (two, "no-swap")]
    ):
        game_act(game_id=game.pk, player=player, action=action, expected_ply=ply)
    game_resign(game_id=game.pk, player=two)
    page = page_for(browser, live_server.url, one_user, language="zh-hans")

    organizer = get_user_model().objects.get(username="organizer")
    organizer.set_password(PASSWORD)
    organizer.save()
    room = page_for(browser, live_server.url, organizer, language="zh-hans")
    for viewer, path in (
        (page, f"/g/{game.pk}/"),
        (page, f"/t/{tournament.pk}/"),
        (page, "/me/"),
        (room, f"/organizer/t/{tournament.pk}/"),
        (room, "/organizer/"),
    ):
        viewer.goto(live_server.url + path)
        viewer.wait_for_load_state("load")  # (not "networkidle": the live parts poll every second)
        if path.startswith("/g/"):
            expect(viewer.locator("#status")).not_to_be_empty()  # the game drawn from the API
        text = viewer.locator("main").inner_text().replace(".rif", "")  # the file format's name stays
        assert not RAW.findall(text), (path, RAW.findall(text))


def test_the_console_updates_itself_and_says_when_it_is_the_players_move(live_server: Any, browser: Any) -> None:
    one_user, _two_user, one, two = two_players("cons")
    page = page_for(browser, live_server.url, one_user)
    page.goto(f"{live_server.url}/me/")
    expect(page.locator("#console-alert")).to_be_hidden()

    game = game_create(player_one=two, player_two=one, rules="freestyle", time_control="quick")  # two moves first
    game_act(game_id=game.pk, player=two, action="place h8", expected_ply=0)

    expect(page.locator("#your-move-title")).to_be_visible(timeout=5000)  # no reload
    expect(page.locator("#console-alert")).to_contain_text(f"#{game.pk}")
    assert page.title().startswith("(!)")


def test_the_referee_console_shows_a_new_dispute_without_a_reload(live_server: Any, browser: Any) -> None:
    from games.services import game_dispute_result, game_report_result

    referee = account("refcons", "referee")
    _one_user, _two_user, one, two = two_players("disp")
    game = game_create(player_one=one, player_two=two, mode="otb", rules="renju", time_control="quick")
    game.referees.add(referee)
    page = page_for(browser, live_server.url, referee)
    page.goto(f"{live_server.url}/referee/")
    expect(page.locator("body")).to_contain_text("No open disputes.")

    game_report_result(game_id=game.pk, reporter=one, result="black", reason="five")
    game_dispute_result(game_id=game.pk, player=two, note="it was white's five")

    expect(page.locator("body")).to_contain_text("it was white's five", timeout=5000)


def test_the_record_matches_the_board_for_every_protocols_opening(live_server: Any, browser: Any) -> None:

    page = page_for(browser, live_server.url)
    for case in CASES:
        protocol, options, script = case[0], case[1], case[2]
        game = played(protocol, options, script)
        page.goto(f"{live_server.url}/g/{game.pk}/")
        expect(page.locator("#status")).not_to_be_empty()
        record = page.locator("#record li.stone").evaluate_all(
            "items => items.map(li => [Number(li.dataset.move), li.classList.contains('black'), li.textContent])"
        )
        board = page.locator("svg.board-svg g.stone").evaluate_all(
            "gs => gs.map(g => [g.dataset.point, g.classList.contains('black')])"
        )
        assert [n for n, _black, _text in record] == list(range(1, len(board) + 1)), (protocol, record)
        for (number, black, text), (point, stone_black) in zip(record, board, strict=True):
            assert black == stone_black == (number % 2 == 1), (protocol, number, text, point)
            assert text.split()[-1] == point, (protocol, number, text, point)
        notes = page.locator("#record li.step").all_inner_texts()
        assert not [n for n in notes if n.split()[0] in ("swap", "no-swap", "declare", "offer", "color", "branch")]


def test_a_check_in_tap_held_while_the_console_changes_lands_and_checks_in(live_server: Any, browser: Any) -> None:
    from tournament import services
    from tournament.models import CheckIn, Entry

    one_user, _two_user, one, two = two_players("tap")
    tournament = services.tournament_create(name="Tap cup", check_in=CheckIn.FIRST)
    entry = services.register(tournament=tournament, player=one)
    page = page_for(browser, live_server.url, one_user, viewport=PHONE)
    page.goto(f"{live_server.url}/me/")
    button = page.locator(f"form[action$='/check-in/{entry.pk}/'] button")
    expect(button).to_be_visible()

    box = button.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()  # the finger is on the button ...
    game_create(player_one=two, player_two=one, rules="freestyle", time_control="quick")  # ... the console changes
    with page.expect_response(lambda r: r.url.endswith("/me/live/") and r.status == 200, timeout=5000):
        pass  # the new version has arrived while the finger is still down
    with page.expect_navigation(timeout=5000):
        page.mouse.up()

    assert "403" not in page.title() and "CSRF" not in page.content()
    entry = Entry.objects.get(pk=entry.pk)
    assert entry.checked_in_round == 1
    expect(page.locator("#your-move-title, .console")).not_to_have_count(0)  # the console, updated after the tap


def test_both_clocks_stay_on_a_phone_screen_with_long_names_a_school_and_an_opening(
    live_server: Any, browser: Any
) -> None:
    one_user = account("longname1", "player")
    two_user = account("longname2", "player")
    one = Player.objects.create(name="欧阳明轩 Alexander-Maximilian", unit="北京市第一百六十一中学", user=one_user)
    two = Player.objects.create(name="司马慕容 Christopher-Jonathan", unit="上海交通大学附属中学", user=two_user)
    game = game_create(player_one=one, player_two=two, rules="renju", protocol="rif", time_control="quick")
    page = page_for(browser, live_server.url, one_user, language="zh-hans", viewport=PHONE)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("#clocks .clock")).to_have_count(2)
    for target in (page.locator("svg.board-svg"), *page.locator("#clocks .clock").all()):
        box = target.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    assert page.locator("#clocks .clock.mine .clock-time").inner_text().strip()  # the time is never cut


def test_a_late_answer_with_an_older_position_never_replaces_the_newer_one(live_server: Any, browser: Any) -> None:
    import json

    from django.test import Client

    one_user, _two_user, one, two = two_players("stale")
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    reader = Client()
    reader.force_login(one_user)
    older = reader.get(f"/api/games/{game.pk}/").json()  # one stone: the state before the reply
    game_act(game_id=game.pk, player=two, action="place h9", expected_ply=1)
    page = page_for(browser, live_server.url, one_user)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("svg.board-svg .stone")).to_have_count(2)

    answered: list[int] = []

    def stale(route: Any) -> None:  # a slow answer to a request sent before the reply, arriving after it
        answered.append(1)
        route.fulfill(status=200, body=json.dumps(older), headers={"Content-Type": "application/json", "ETag": '"old"'})

    page.route(f"**/api/games/{game.pk}/", stale)
    page.wait_for_timeout(2_500)  # polls answered with the old position
    assert answered
    expect(page.locator("svg.board-svg .stone")).to_have_count(2)  # the reply is still on the board
    expect(page.locator("#status")).to_contain_text("Your turn")  # and it is still the player's turn
