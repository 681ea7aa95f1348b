"""Practice against the computer and the analysis marks, in Chromium (Playwright).

The computer's turn runs inline here (the task's body called where the worker
would run it) so the page shows the reply without a worker; the worker itself
is tested in test_computer_worker.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games import tasks
from games.models import Game, Player
from games.services import game_import
from games.services.analysis import analysis_request, analysis_run
from games.services.practice import computer_turn
from tournament.tests.browser import account, open_page, tap_centre

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def inline_computer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.computer_move, "apply_async", lambda args, **_kw: computer_turn(*args))
    monkeypatch.setattr(tasks.analyse_game, "apply_async", lambda args, **_kw: analysis_run(*args))


def missed_vcf_game(black: Player) -> Game:
    """A finished game of ``black`` against "Other" where Black's move 11 (b2) lets the VCF k8 l8 k7 k6 k11 go."""
    other = Player.objects.create(name="Other")
    text = (
        f'[Black "{black.name}"]\n[White "{other.name}"]\n[Result "0-1"]\n[Reason "resignation"]\n\n'
        "h8 g8 i8 a1 j8 a3 k9 a5 k10 o15 b2 n14\n"
    )
    return game_import(text=text)


def test_a_player_starts_a_practice_game_on_a_phone_and_the_computer_replies(
    live_server: Any, browser: Any, inline_computer: None
) -> None:
    user = account("practiser", "player")
    Player.objects.create(name="Practiser", user=user)
    page = open_page(browser, live_server.url, user, viewport=PHONE)
    form = page.locator("#practice-form")
    form.locator("select[name=level]").select_option("2")
    form.locator("select[name=time_control]").select_option("untimed")
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/g/*/")
    game = Game.objects.get()
    assert game.practice and game.player_two.computer_level == 2
    tap_centre(page)
    tap_centre(page)  # a phone: the first tap shows the stone, the second places it
    expect(page.locator("#record li")).to_have_count(2, timeout=10_000)  # the computer's reply arrived
    expect(page.locator("#status")).to_contain_text("Your turn")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_practice_form_keeps_the_players_choice_and_says_what_is_wrong(
    live_server: Any, browser: Any, inline_computer: None
) -> None:
    user = account("nolevel", "player")
    Player.objects.create(name="No Level", user=user)
    page = open_page(browser, live_server.url, user)
    page.evaluate("document.querySelector('#practice-form select[name=level]').innerHTML = '<option>9</option>'")
    page.locator("#practice-form button[type=submit]").click()
    expect(page.locator("#practice-form").locator("xpath=..").locator(".message")).to_contain_text("1 to 5")
    assert not Game.objects.exists()


def test_the_game_page_marks_a_missed_win_and_draws_the_line_when_stepping(
    live_server: Any, browser: Any, inline_computer: None
) -> None:
    one_user = account("analyst", "player")
    game = missed_vcf_game(Player.objects.create(name="Analyst", user=one_user))
    Game.objects.filter(pk=game.pk).update(is_public=True)
    page = open_page(browser, live_server.url, one_user)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("#analysis-ask")).to_be_visible()
    page.locator("#analysis-ask").click()
    mark = page.locator('#record li[data-move="11"] .analysis-mark.missed')
    expect(mark).to_have_count(1, timeout=10_000)
    assert "VCF: k8 l8 k7 k6 k11" in (mark.get_attribute("title") or "")
    page.locator('#record li[data-move="10"]').click()  # the position before move 11: Black to move, a win on
    hints = page.locator("svg.board-svg .hint")
    expect(hints).to_have_count(5)
    expect(page.locator('svg.board-svg .hint.black[data-hint="k8"]')).to_have_count(1)
    page.locator('#record li[data-move="11"]').click()  # after b2, White to move: no forced win for White
    expect(hints).to_have_count(0)
    page.locator('#record li[data-move="12"]').click()  # White's n14 ignored it: Black's win is on the board again
    expect(page.locator('#record li[data-move="12"] .analysis-mark.allowed')).to_have_count(1)
    expect(hints).to_have_count(5)
    assert analysis_request(game=game).status == "done"  # the stored analysis is reused


FAKE_SOCKET = """
window.__sockets = [];
window.WebSocket = function (url) { this.url = url; window.__sockets.push(this);
  var self = this; setTimeout(function () { if (self.onopen) self.onopen(); }, 0); };
window.WebSocket.prototype.close = function () {};
"""


def test_the_analysis_appears_when_the_computers_winning_move_arrives_by_push(
    live_server: Any, browser: Any, settings: Any
) -> None:
    settings.LIVE_PUSH, settings.LIVE_URL = True, ":1/ws/live/"  # the page opens a (fake) socket, polls rarely
    user = account("pushed", "player")
    me = Player.objects.create(name="Pushed", user=user)
    computer = Player.objects.create(name="Computer 1", computer_level=1)
    text = f'[Black "{me.name}"]\n[White "{computer.name}"]\n\nh8 a1 i8 a2 j8 a3 k8 a4\n'
    game = game_import(text=text)
    Game.objects.filter(pk=game.pk).update(is_public=True, practice=True)
    page = open_page(browser, live_server.url, user)
    page.context.add_init_script(FAKE_SOCKET)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("#record li")).to_have_count(8)
    expect(page.locator("#analysis")).to_be_hidden()
    finished = page.evaluate(
        "fetch(location.pathname.replace('/g/', '/api/games/'), {credentials: 'same-origin'}).then(r => r.json())"
    )
    # The computer's five, as the socket would push it: the game's new state, finished.
    finished.update(status="finished", result="white")
    page.evaluate("(game) => window.__sockets[0].onmessage({data: JSON.stringify({game: game})})", finished)
    expect(page.locator("#analysis")).to_be_visible(timeout=5_000)


def test_a_registered_engine_analyses_the_game_and_its_move_shows_when_stepping(
    live_server: Any, browser: Any, inline_computer: None
) -> None:
    from games.services.engines import engine_register

    ours = engine_register(
        name="Ours",
        command="builtin",
        rules=["renju"],
        levels={str(n): {"turn_ms": 3000, "level": 3} for n in range(1, 6)},
    )
    one_user = account("engineer", "player")
    game = missed_vcf_game(Player.objects.create(name="Engineer", user=one_user))
    page = open_page(browser, live_server.url, one_user, viewport=PHONE)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    page.locator("#analysis-engine").select_option(str(ours.pk))
    page.locator("#analysis-ask").click()
    expect(page.locator('#record li[data-move="11"] .analysis-mark.missed')).to_have_count(1, timeout=60_000)
    page.locator('#record li[data-move="10"]').click()  # before b2: the engine would start Black's VCF instead
    note = page.locator("#analysis-engine-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Ours would play")
    assert "b2" not in (note.text_content() or "")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
