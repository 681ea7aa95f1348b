"""Live push end to end: a real Redis, the socket server (uvicorn, config.asgi) and, for the page, Chromium.

They run in the PostgreSQL pass of make test: the socket server reads the database from its own threads,
which an in-memory SQLite test database does not allow.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from config.tests.sockets import SocketServer, hub_listening, in_a_thread, listen, shown_ply
from devtools.processes import wait_until
from games.models import Game, Player
from games.services import game_act, game_create
from tournament.tests.browser import page_for, two_players

pytestmark = [pytest.mark.pg_django, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def public_game() -> tuple[Game, Player, Player]:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    return game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick"), one, two


def test_a_watcher_gets_the_state_then_each_move_within_a_second(sockets: SocketServer) -> None:
    game, one, two = public_game()
    url = f"ws://127.0.0.1:{sockets.port}/ws/live/?topic=game:{game.pk}&lang=en"
    thread, got = listen(url, 3)
    wait_until(lambda: len(got) >= 1 or not thread.is_alive(), 10, "the first state")  # the socket is open
    wait_until(hub_listening, 10, "the socket server's Redis subscription")

    moved_at = [time.monotonic()]
    game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    wait_until(lambda: len(got) >= 2 or not thread.is_alive(), 10, "the first push")
    moved_at.append(time.monotonic())
    game_act(game_id=game.pk, player=two, action="place h9", expected_ply=1)
    thread.join(10)

    plies = [shown_ply(message) for _at, message in got]
    assert plies == [0, 1, 2]
    assert "game" in got[0][1] and "game" not in got[1][1], "a plain move is pushed as what it changed"
    assert got[1][1]["moved"]["position"]["stones"] == ["h8"] and got[1][1]["moved"]["move"]["text"] == "place h8"
    for (arrived, _message), sent in zip(got[1:], moved_at, strict=True):
        assert arrived - sent < 1.0
    # A watcher arriving now is sent the whole state, the moves added to it included.
    late, seen = listen(url, 1)
    late.join(10)
    assert [m["text"] for m in seen[0][1]["game"]["moves"]] == ["place h8", "place h9"]


def test_a_private_game_and_a_foreign_page_are_refused(sockets: SocketServer) -> None:
    import websockets

    game, _one, _two = public_game()
    Game.objects.filter(pk=game.pk).update(is_public=False)
    base = f"ws://127.0.0.1:{sockets.port}/ws/live/"

    async def closed_code(url: str, headers: dict[str, str] | None = None) -> int | None:
        try:
            async with websockets.connect(url, additional_headers=headers or {}) as ws:
                await asyncio.wait_for(ws.recv(), 5)
        except websockets.ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None
        except websockets.InvalidStatus as exc:
            return exc.response.status_code
        return None

    private = in_a_thread(closed_code(f"{base}?topic=game:{game.pk}"))
    Game.objects.filter(pk=game.pk).update(is_public=True)
    foreign = in_a_thread(closed_code(f"{base}?topic=game:{game.pk}", {"Origin": "https://evil.example"}))
    unknown = in_a_thread(closed_code(f"{base}?topic=nothing:1"))

    assert private in (4403, 403)
    assert foreign in (4403, 403)
    assert unknown in (4403, 403)


@pytest.mark.browser
def test_a_spectator_page_follows_the_game_over_the_socket_and_catches_up_after_a_restart(
    sockets: SocketServer, live_server: Any, browser: Any
) -> None:
    game, one, two = public_game()
    context = browser.new_context(locale="en", extra_http_headers={"Accept-Language": "en"})
    page = context.new_page()
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if r.url.endswith(f"/api/games/{game.pk}/") else None)
    page.goto(f"{live_server.url}/g/{game.pk}/")
    expect(page.locator("#status")).not_to_be_empty()
    for _ in range(200):  # Playwright delivers its events while the page is waited on, not during a sleep
        if frames:
            break
        page.wait_for_timeout(50)
    assert frames, "no state came over the socket"

    sent, read_before = time.monotonic(), len(reads)
    game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    expect(page.locator("#record li")).to_have_count(1, timeout=1000)  # by push: the page polls rarely now
    assert time.monotonic() - sent < 1.0
    # Pushed as the move alone and added to the state shown, not fetched.
    assert any('"moved"' in frame for frame in frames) and len(reads) == read_before, reads
    expect(page.locator("#status")).to_contain_text("White")

    sockets.stop()  # the socket server restarts; a move is made meanwhile
    game_act(game_id=game.pk, player=two, action="place h9", expected_ply=1)
    sockets.start()
    expect(page.locator("#record li")).to_have_count(2, timeout=15000)  # reconnected and caught up

    game_act(game_id=game.pk, player=one, action="place h10", expected_ply=2)
    expect(page.locator("#record li")).to_have_count(3, timeout=2000)  # and pushed to again


@pytest.mark.browser
def test_a_players_console_is_pushed_their_turn(sockets: SocketServer, live_server: Any, browser: Any) -> None:

    one_user, _two_user, one, two = two_players("push")
    page = page_for(browser, live_server.url, one_user)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    page.goto(f"{live_server.url}/me/")
    for _ in range(200):
        if frames:
            break
        page.wait_for_timeout(50)
    assert frames, "the console opened no socket"

    game = game_create(player_one=two, player_two=one, rules="freestyle", time_control="quick")
    game_act(game_id=game.pk, player=two, action="place h8", expected_ply=0)

    expect(page.locator("#console-alert")).to_contain_text(f"#{game.pk}", timeout=1500)


@pytest.mark.browser
def test_a_referees_console_is_pushed_a_new_dispute(sockets: SocketServer, live_server: Any, browser: Any) -> None:
    from games.services import game_dispute_result, game_report_result
    from tournament.tests.browser import account

    referee = account("refpush", "referee")
    one, two = Player.objects.create(name="D1"), Player.objects.create(name="D2")
    game = game_create(player_one=one, player_two=two, mode="otb", rules="renju", time_control="quick")
    game.referees.add(referee)
    page = page_for(browser, live_server.url, referee)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    page.goto(f"{live_server.url}/referee/")
    for _ in range(200):
        if frames:
            break
        page.wait_for_timeout(50)
    assert frames, "the referee console opened no socket"

    game_report_result(game_id=game.pk, reporter=one, result="black", reason="five")
    game_dispute_result(game_id=game.pk, player=two, note="not a five")

    expect(page.locator("body")).to_contain_text("not a five", timeout=1500)


@pytest.mark.browser
def test_the_control_room_shows_an_arbiter_call_without_a_reload(
    sockets: SocketServer, live_server: Any, browser: Any
) -> None:
    """The call changes nothing the public parts show, so the socket sends no news of the tournament; the
    control room's own parts (what waits for the organizer) are fetched on their own while the socket is up."""
    from games.services.arbiter import game_call_arbiter
    from tournament.tests.browser import account
    from tournament.tests.helpers import started

    tournament, _stage = started(4)
    boss = account("callboss", "organizer")
    page = page_for(browser, live_server.url, boss)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    page.goto(f"{live_server.url}/organizer/t/{tournament.pk}/")
    for _ in range(200):
        if frames:
            break
        page.wait_for_timeout(50)
    assert frames, "the control room opened no socket"
    waiting = page.locator("[data-live-name=waiting]")
    expect(waiting).to_contain_text("Nothing is waiting")
    game = Game.objects.filter(match_game__match__tournament=tournament).select_related("black").first()
    assert game is not None and game.black is not None
    game_call_arbiter(game_id=game.pk, player=game.black, note="a clock stopped")

    expect(waiting).to_contain_text("a clock stopped", timeout=6000)


def test_a_render_keeps_its_threads_database_connection_as_a_request_would(settings: Any) -> None:
    """A new PostgreSQL connection per render is a new server process warming its caches for each move."""
    from django.db import connection

    settings.LIVE_KEEP_CONNECTIONS = True  # the default

    from config.live_reads import render

    one, two = Player.objects.create(name="Keep One"), Player.objects.create(name="Keep Two")
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    topic = f"game:{game.pk}"
    age = connection.settings_dict["CONN_MAX_AGE"]
    connection.close()
    try:
        connection.settings_dict["CONN_MAX_AGE"] = 60
        assert render(topic, "en") is not None
        kept = connection.connection
        assert kept is not None
        assert json.loads(render(topic, "zh-hans") or "{}")["game"]["id"] == game.pk
        assert connection.connection is kept  # the same server process answered both

        connection.settings_dict["CONN_MAX_AGE"] = 0  # no age allowed: closed after each use, as before
        connection.close()
        assert render(topic, "en") is not None
        assert connection.connection is None
    finally:
        connection.settings_dict["CONN_MAX_AGE"] = age
        connection.close()
