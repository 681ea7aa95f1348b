"""The event day in Chromium, run from the control room as an organizer new to the program would, on a
desktop and on a 390×844 phone: create a rated Swiss, import players (a file with problem rows, then one
with a repeat), add one by hand, make the private links, a player checks in by scanning theirs (a phone of
their own), the organizer ticks the others, one stays away; draw, start, pair and publish; a result
reported on the game page and confirmed, a correction, an arbiter call answered; the projector page; a PDF;
the remaining rounds; the end; the rating lists filled. Then the seed's format the same way, shorter.

Every button and field the organizer and the players touch is at least 40 px tall on the phone."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.enums import GameStatus
from games.models import ArbiterCall, Game
from games.services import game_confirm_result, game_report_result
from ratings import tasks as rating_tasks
from ratings.models import Rating, RatingList
from tournament.models import Entry, Round, Stage, Tournament
from tournament.tests.browser import account, open_page
from tournament.tests.helpers import pdf_text_and_fonts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
DESKTOP = None

BAD_CSV = "name,unit,rating\n王一,一中,1800\n,一中,\n李二,二中,strong\n"
CSV = "name,unit,rating\n" + "\n".join(
    [f"棋手{n:02d},{'一中' if n % 2 else '二中'},{2000 - 13 * n}" for n in range(1, 12)] + ["棋手03,一中,1961"]
)


@pytest.fixture
def opened(live_server: Any, browser: Any) -> Iterator[Callable[..., Page]]:
    """open_page, whose browser contexts are closed before the database is flushed (pages that poll the
    live server would otherwise hold its tables)."""
    pages: list[Page] = []

    def open_one(user: Any = None, viewport: Any = None) -> Page:
        page = open_page(browser, live_server.url, user, viewport=viewport)
        pages.append(page)
        return page

    yield open_one
    for page in pages:
        page.context.close()


@pytest.fixture
def ratings_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rating task runs where the worker would (the worker itself: ratings' own tests)."""
    monkeypatch.setattr(
        rating_tasks.rate_and_recompute, "apply_async", lambda args, **_kw: rating_tasks.rate_and_recompute(*args)
    )


def small_targets(page: Page) -> list[str]:
    """Visible buttons, selects, fields and button-links under 40 px tall."""
    found: list[str] = page.evaluate(
        """() => Array.from(document.querySelectorAll(
            'main button, main select, main input:not([type=hidden]):not([type=checkbox]):not([type=radio]), a.button'))
          .filter(e => e.offsetParent !== null)
          .filter(e => e.getBoundingClientRect().height < 40)
          .map(e => (e.textContent || e.name || e.tagName).trim().slice(0, 30) + ' '
                    + Math.round(e.getBoundingClientRect().height) + 'px')"""
    )
    return found


def no_sideways_scroll(page: Page) -> None:
    page.wait_for_load_state("load")  # a page still arriving after a click has no document to measure yet
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"


def check_page(page: Page, phone: bool) -> None:
    if phone:
        assert small_targets(page) == [], page.url
        no_sideways_scroll(page)


def creation_form(opened: Any, base: str, viewport: Any, name: str) -> tuple[Page, Any]:
    """The organizer's control room home on ``viewport``, its new-tournament form named ``name``."""
    page = opened(account("boss", "organizer"), viewport=viewport)
    page.goto(f"{base}/organizer/")
    form = page.locator("form.stack").last
    form.get_by_label("Tournament name").fill(name)
    return page, form


def stage_button(page: Page, stage: Stage, label: str) -> None:
    page.locator(f"form:has(input[name=stage][value='{stage.pk}'])").get_by_role("button", name=label).click()


def play_open_games(tournament: Tournament, rng: random.Random) -> None:
    """The players report and confirm every game on a board (as they would on their phones)."""
    for _ in range(30):
        games = list(
            Game.objects.filter(
                match_game__match__tournament=tournament, status__in=GameStatus.active()
            ).select_related("black", "white")
        )
        if not games:
            return
        for game in games:
            assert game.black is not None and game.white is not None
            result = rng.choice(["black", "white", "draw"])
            game_report_result(
                game_id=game.pk, reporter=game.black, result=result, reason="agreement" if result == "draw" else "five"
            )
            game_confirm_result(game_id=game.pk, player=game.white)
    raise AssertionError("games never ran out")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_rated_swiss_is_run_from_the_control_room_alone(
    live_server: Any, opened: Any, viewport: Any, ratings_inline: None
) -> None:
    phone = viewport is not None
    base = live_server.url
    # Create: a rated Swiss with check-in, from the form.
    page, form = creation_form(opened, base, viewport, "Hall Swiss")
    form.get_by_label("format").select_option("swiss")
    form.get_by_label("Swiss rounds").fill("3")
    form.get_by_label("how games are played").select_option("otb")
    form.get_by_label("Rated").check()
    form.get_by_label("Check-in").select_option("first")
    check_page(page, phone)
    form.get_by_role("button", name="Create").click()
    expect(page.locator(".messages")).to_contain_text("Tournament created.")
    tournament = Tournament.objects.get(name="Hall Swiss")
    assert tournament.rated and tournament.check_in == "first"
    expect(page.locator(".rated-note")).to_contain_text("the gomoku lists (WHR and Elo) are made when it starts")

    # Register: a CSV with problem rows is refused naming each; the corrected one enters all, once each.
    page.get_by_role("link", name=re.compile("Players: registration and check-in")).click()
    expect(page.get_by_label("Players, one a line")).to_be_visible()
    check_page(page, phone)
    page.get_by_label("Players, one a line").fill(BAD_CSV)
    page.get_by_role("button", name="Import").click()
    expect(page.locator(".messages .error")).to_contain_text("Row 3:")
    expect(page.locator(".messages .error")).to_contain_text("Row 4:")
    assert not Entry.objects.filter(tournament=tournament).exists()
    page.get_by_label("Players, one a line").fill(CSV)
    page.get_by_role("button", name="Import").click()
    expect(page.locator(".messages")).to_contain_text("11 players entered.")
    expect(page.locator(".messages")).to_contain_text("row 13 repeats row 4 (棋手03 (一中))")
    add = page.locator("section[aria-labelledby=add-title]")
    add.get_by_label("Name").fill("Walk-in Wang")
    add.get_by_role("button", name="Add", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("Walk-in Wang entered.")
    page.get_by_role("button", name="Make the missing private links").click()
    expect(page.locator(".messages")).to_contain_text("12 private links made.")

    # Check-in: one player scans their slip on their own phone; the organizer ticks ten; 棋手11 stays away.
    scanner = Entry.objects.get(tournament=tournament, player__name="棋手01")
    own_phone = opened(viewport=PHONE)
    own_phone.goto(f"{base}/p/{scanner.access_key}/")
    own_phone.get_by_role("button", name="Check in for round 1").click()
    expect(own_phone.locator(".checked-in")).to_contain_text("You are checked in for round 1.")
    check_page(own_phone, True)
    page.reload()
    for entry in Entry.objects.filter(tournament=tournament).exclude(player__name__in=["棋手01", "棋手11"]):
        page.locator(f"#entry-{entry.pk}").get_by_role("button", name="Check in").click()
        expect(page.locator(".messages")).to_contain_text(f"{entry.player.name} checked in.")
    expect(page.locator(".missing")).to_have_text("棋手11")
    check_page(page, phone)

    # Draw, start, pair, publish: all buttons of the control room.
    page.get_by_role("link", name="Back to the control room").click()
    stage = tournament.stages.get()
    stage_button(page, stage, "the draw")
    expect(page.locator(".messages")).to_contain_text("Done: the draw")
    assert Entry.objects.get(tournament=tournament, player__name="棋手11").withdrawn  # left out: not here
    stage_button(page, stage, "start")
    page.get_by_role("button", name="Pair round 1").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 paired")
    page.locator(".swiss-control details").first.get_by_role("button", name="Publish").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 published")
    check_page(page, phone)
    assert RatingList.objects.filter(category="gomoku").count() == 2  # made when the rated tournament started

    # A result on the game page (the black player's phone), confirmed by the opponent.
    game = Game.objects.filter(match_game__match__tournament=tournament).order_by("board_number").first()
    assert game is not None and game.black is not None and game.white is not None
    black = Entry.objects.get(tournament=tournament, player=game.black)
    black_phone = opened(viewport=PHONE)
    black_phone.goto(f"{base}/p/{black.access_key}/")
    black_phone.get_by_role("button", name="Open my games on this device").click()  # a GET signs nobody in
    expect(black_phone).to_have_url(f"{base}/me/")
    black_phone.goto(f"{base}/g/{game.pk}/")
    report = black_phone.locator("#controls .report")
    report.locator("select").first.select_option("black")
    report.locator("select").nth(1).select_option("five")
    report.get_by_role("button", name="Report").click()
    expect(black_phone.locator("#controls .reported")).to_contain_text("waiting for your opponent to confirm")
    game_confirm_result(game_id=game.pk, player=game.white)

    # An arbiter call from another board's console; the control room shows it; the organizer answers.
    other = Game.objects.filter(match_game__match__tournament=tournament, status__in=GameStatus.active()).first()
    assert other is not None and other.white is not None
    caller = Entry.objects.get(tournament=tournament, player=other.white)
    caller_phone = opened(viewport=PHONE)
    caller_phone.goto(f"{base}/p/{caller.access_key}/")
    caller_phone.get_by_role("button", name="Open my games on this device").click()
    expect(caller_phone).to_have_url(f"{base}/me/")
    caller_phone.get_by_role("button", name="Call the arbiter").click()
    expect(caller_phone.locator(".messages")).to_contain_text("The arbiter has been called to your board.")
    check_page(caller_phone, True)
    waiting = page.locator("[data-live-name=waiting]")  # the control room, not reloaded, follows
    expect(waiting).to_contain_text("Arbiter called")
    waiting.get_by_role("button", name="Answered: resume the game").click()
    expect(page.locator(".messages")).to_contain_text("is answered")
    assert not ArbiterCall.objects.filter(answered_at__isnull=True).exists()

    # The rest of round 1 by the players; a correction from the control room.
    play_open_games(tournament, random.Random(1))
    page.goto(f"{base}/organizer/t/{tournament.pk}/")
    correction = page.locator("form:has(input[name=note])").first
    correction.locator("#id_game").fill(str(game.pk))
    correction.locator("#id_result").select_option("draw")
    correction.locator("#id_reason").select_option("agreement")
    correction.locator("#id_note").fill("both signed a draw")
    correction.get_by_role("button", name="Correct").click()
    expect(page.locator(".messages")).to_contain_text(f"Result of game {game.pk} corrected.")
    assert Game.objects.get(pk=game.pk).result == "draw"

    # The projector and a PDF.
    screen = opened(viewport={"width": 1280, "height": 720})
    screen.goto(f"{base}/t/{tournament.pk}/screen/?seconds=5")
    expect(screen.locator(".screen-part[data-part=boards]")).to_be_visible()
    # it turns after the boards part's last page (the boards, those finished, everyone by name)
    expect(screen.locator(".screen-part[data-part=standings]")).to_be_visible(timeout=30_000)
    expect(screen.locator(".screen-part[data-part=standings]")).to_contain_text("棋手")
    pdf = page.request.get(base + (page.get_by_role("link", name="Standings (PDF)").get_attribute("href") or ""))
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf" and pdf.body().startswith(b"%PDF-")

    # Rounds 2 and 3, then the end; the lists are filled.
    for number in (2, 3):
        page.goto(f"{base}/organizer/t/{tournament.pk}/")
        page.get_by_role("button", name=f"Pair round {number}").click()
        page.locator(".swiss-control details").first.get_by_role("button", name="Publish").click()
        expect(page.locator(".messages")).to_contain_text(f"Round {number} published")
        play_open_games(tournament, random.Random(number))
    page.goto(f"{base}/organizer/t/{tournament.pk}/")
    stage_button(page, stage, "advance to the next stage")
    expect(page.locator(".messages")).to_contain_text("Done: advance")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert Round.objects.filter(stage=stage).count() == 3
    for rating_list in RatingList.objects.filter(category="gomoku"):
        assert Rating.objects.filter(rating_list=rating_list).count() == 11  # everyone who played
    page.goto(f"{base}/ratings/")
    expect(page.locator("main")).not_to_contain_text("No rating lists yet")
    page.locator("main a").first.click()
    expect(page.locator("main table tbody tr")).to_have_count(11)
    check_page(page, phone)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_seed_format_is_run_from_the_control_room_to_its_certificates(
    live_server: Any, opened: Any, viewport: Any
) -> None:
    phone = viewport is not None
    base = live_server.url
    page, form = creation_form(opened, base, viewport, "College Cup")
    form.get_by_label("how games are played").select_option("otb")
    form.get_by_role("button", name="Create").click()
    tournament = Tournament.objects.get(name="College Cup")
    page.get_by_role("link", name=re.compile("Players: registration and check-in")).click()
    page.get_by_label("Players, one a line").fill("\n".join(f"选手{n},{'甲' if n % 2 else '乙'}" for n in range(1, 9)))
    page.get_by_role("button", name="Import").click()
    expect(page.locator(".messages")).to_contain_text("8 players entered.")
    page.get_by_role("link", name="Back to the control room").click()
    rng = random.Random(5)
    for _step in range(10):
        stage = tournament.stages.order_by("-order").first()
        assert stage is not None
        if stage.status == Stage.Status.PENDING:
            stage_button(page, stage, "the draw")
            stage_button(page, stage, "start")
        check_page(page, phone)
        play_open_games(tournament, rng)
        page.goto(f"{base}/organizer/t/{tournament.pk}/")
        stage_button(page, stage, "advance to the next stage")
        expect(page.locator(".messages")).to_contain_text("Done: advance")
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    assert tournament.status == Tournament.Status.FINISHED
    page.goto(f"{base}/t/{tournament.pk}/")
    first = page.locator("ol.final li").first.inner_text().split(" ")[0]
    certificates = page.request.get(f"{base}/t/{tournament.pk}/pdf/certificates.pdf")
    assert certificates.ok and certificates.body().startswith(b"%PDF-")
    text, fonts = pdf_text_and_fonts(certificates.body())
    assert first in text and "took place 1" in text and fonts
