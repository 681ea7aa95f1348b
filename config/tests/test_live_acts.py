"""Moves over the game's socket (config.live_acts): a real Redis, the socket server (uvicorn, config.asgi) and,
for the page, Chromium. In the PostgreSQL pass, as config/tests/test_live.py, for the same reason."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone, translation
from django.utils.translation import gettext
from playwright.sync_api import expect
from rest_framework.authtoken.models import Token

from config.tests.sockets import SocketServer, hub_listening, in_a_thread, shown_ply
from devtools.processes import wait_until
from games.models import Game, GameEvent, Move, Player
from games.serializers import game_state_data
from games.services import game_create
from tournament.tests.browser import click_point, page_for, two_players

pytestmark = [pytest.mark.pg_django, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def a_game(prefix: str) -> tuple[Game, Any, Any, Player, Player]:
    one_user, two_user, one, two = two_players(prefix)
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    return game, one_user, two_user, one, two


def token(user: Any) -> str:
    return str(Token.objects.get_or_create(user=user)[0].key)


class Conversation:
    """Frames sent on one socket and the replies to them, in order (pushes are kept apart)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url, self.headers = url, headers or {}
        self.replies: list[dict[str, Any]] = []
        self.pushes: list[dict[str, Any]] = []

    async def _run(self, frames: list[str]) -> None:
        import websockets

        async with websockets.connect(self.url, additional_headers=self.headers, max_size=2**22) as ws:
            for frame in frames:
                await ws.send(frame)
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if "reply" in message:
                        self.replies.append(message)
                        break
                    self.pushes.append(message)

    def send(self, *frames: str | dict[str, Any]) -> list[dict[str, Any]]:
        """Send ``frames`` one after the other, each once the previous one is answered; their replies."""
        texts = [frame if isinstance(frame, str) else json.dumps(frame) for frame in frames]
        before = len(self.replies)
        in_a_thread(self._run(texts))
        return self.replies[before:]


def socket_open(page: Any, game: Game) -> None:
    """Wait until the page's socket of the game is open (Playwright delivers events only while waited on)."""
    for _ in range(200):
        if page.evaluate(f"window.LivePush.connected('game:{game.pk}')"):
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page's socket did not open")


def game_page(browser: Any, base: str, user: Any, game: Game, posts: list[str], frames: list[str]) -> Any:
    """``user``'s page of ``game``, noting the URL of every POST it makes and every frame its sockets send."""
    page = page_for(browser, base, user)
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    page.goto(f"{base}/g/{game.pk}/")
    return page


def first_stone(browser: Any, base: str, user: Any, game: Game) -> tuple[list[str], list[str]]:
    """``user`` plays h8 on the game's page once its socket is open; the page's POSTs and socket frames."""
    posts: list[str] = []
    frames: list[str] = []
    page = game_page(browser, base, user, game, posts, frames)
    socket_open(page, game)
    expect(page.locator("#status")).to_contain_text("Your turn", timeout=5000)
    click_point(page, "h8")
    expect(page.locator("#record li")).to_have_count(1, timeout=3000)
    return posts, frames


def url_of(sockets: SocketServer, topic: str, lang: str = "en") -> str:
    return f"ws://127.0.0.1:{sockets.port}/ws/live/?topic={topic}&lang={lang}"


def test_a_player_moves_on_the_games_socket_and_its_watchers_are_pushed_the_move(sockets: SocketServer) -> None:
    game, one_user, _two_user, _one, _two = a_game("sock")
    spectator = Conversation(url_of(sockets, f"game:{game.pk}"))

    async def watch(out: list[dict[str, Any]]) -> None:
        import websockets

        async with websockets.connect(spectator.url) as ws:
            while len(out) < 2:
                out.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))

    seen: list[dict[str, Any]] = []
    watcher = threading.Thread(target=lambda: asyncio.run(watch(seen)))
    watcher.start()
    wait_until(lambda: len(seen) >= 1, 10, "the spectator's first state")
    wait_until(hub_listening, 10, "the socket server's Redis subscription")

    player = Conversation(url_of(sockets, f"game:{game.pk}"), {"Authorization": f"Token {token(one_user)}"})
    sent = time.monotonic()
    (reply,) = player.send({"act": "move", "id": 7, "ply": 0, "point": "h8", "think_ms": 1200})
    watcher.join(10)

    assert reply["reply"] == 7 and reply["status"] == 200, reply
    assert reply["game"]["ply"] == 1 and reply["game"]["position"]["stones"] == ["h8"]
    assert [(m.ply, m.text) for m in Move.objects.filter(game=game)] == [(1, "place h8")]
    assert shown_ply(seen[-1]) == 1, "the spectator was not pushed the move"
    assert time.monotonic() - sent < 5
    event = GameEvent.objects.filter(game=game, kind="move").get()
    assert event.actor_id == one_user.pk


def watching(url: str, until: Any) -> tuple[list[dict[str, Any]], threading.Thread]:
    """A spectator's socket in a thread of its own, keeping what it is sent until ``until(seen)`` holds."""
    seen: list[dict[str, Any]] = []

    async def watch() -> None:
        import websockets

        async with websockets.connect(url) as ws:
            while not until(seen):
                seen.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))

    thread = threading.Thread(target=lambda: asyncio.run(watch()))
    thread.start()
    wait_until(lambda: len(seen) >= 1, 10, "the spectator's first state")
    return seen, thread


def test_a_socket_move_is_told_to_this_servers_watchers_once_not_back_through_redis(
    sockets: SocketServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server that acted delivers the move itself; its own message on Redis is skipped, another's is not."""
    import config.live
    import games.live

    delivered: list[str] = []
    deliver = config.live.Hub.deliver

    def counting(hub: Any, topics: list[str], moves: dict[str, Any]) -> None:
        delivered.extend(topics)
        deliver(hub, topics, moves)

    monkeypatch.setattr(config.live.Hub, "deliver", counting)
    game, one_user, _two_user, _one, _two = a_game("once")
    topic = f"game:{game.pk}"
    seen, watcher = watching(url_of(sockets, topic), lambda seen: seen and shown_ply(seen[-1]) == 1)
    wait_until(hub_listening, 10, "the socket server's Redis subscription")
    player = Conversation(url_of(sockets, topic), {"Authorization": f"Token {token(one_user)}"})

    (reply,) = player.send({"act": "move", "id": 1, "ply": 0, "point": "h8"})
    watcher.join(10)
    # Another process's change, published on the same connection after the move's: once it has arrived, the
    # move's own message has been read too.
    games.live.publish(["game:0"])
    wait_until(lambda: "game:0" in delivered, 10, "another process's change")

    assert reply["status"] == 200 and shown_ply(seen[-1]) == 1
    assert delivered.count(topic) == 1, delivered
    stored = Game.objects.get(pk=game.pk)
    assert reply["game"]["position"] == game_state_data(stored)["position"]
    assert reply["game"]["clock"]["version"] == stored.clock["version"]


def test_a_socket_move_reaches_this_servers_watchers_when_redis_loses_the_message(
    sockets: SocketServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import games.live

    game, one_user, _two_user, _one, _two = a_game("lost")
    topic = f"game:{game.pk}"
    seen, watcher = watching(url_of(sockets, topic), lambda seen: seen and shown_ply(seen[-1]) == 1)
    lost: list[list[str]] = []
    monkeypatch.setattr(games.live, "publish", lambda topics, moves=None, origin=None: lost.append(topics))
    player = Conversation(url_of(sockets, topic), {"Authorization": f"Token {token(one_user)}"})

    (reply,) = player.send({"act": "move", "id": 1, "ply": 0, "point": "h8"})
    watcher.join(10)

    assert reply["status"] == 200 and [topic] in [[t for t in ts if t == topic] for ts in lost]
    assert not watcher.is_alive() and shown_ply(seen[-1]) == 1, "the spectator was not pushed the move"


def test_a_repeat_is_answered_as_stored_and_a_stale_ply_is_refused_in_the_sockets_language(
    sockets: SocketServer,
) -> None:
    game, one_user, _two_user, _one, _two = a_game("repeat")
    player = Conversation(url_of(sockets, f"game:{game.pk}", "zh-hans"), {"Authorization": f"Token {token(one_user)}"})
    move = {"act": "move", "id": 1, "ply": 0, "point": "h8"}

    first, again, stale = player.send(move, {**move, "id": 2}, {**move, "id": 3, "point": "j9"})

    assert (first["status"], again["status"]) == (200, 200)
    same = ("ply", "position", "black", "white", "status")
    assert {k: first["game"][k] for k in same} == {k: again["game"][k] for k in same}
    assert first["game"]["clock"]["version"] == again["game"]["clock"]["version"]
    assert stale["status"] == 409 and stale["code"] == "stale_ply"
    with translation.override("zh-hans"):
        assert stale["message"] == gettext("The game has moved on; reload and try again.")
    assert stale["message"] != "The game has moved on; reload and try again."
    assert Move.objects.filter(game=game).count() == 1


def test_a_pass_and_an_opening_step_go_over_the_socket_too(sockets: SocketServer) -> None:
    one_user, two_user, one, two = two_players("steps")
    game = game_create(player_one=one, player_two=two, rules="renju", protocol="rif", time_control="quick")
    first = Conversation(url_of(sockets, f"game:{game.pk}"), {"Authorization": f"Token {token(one_user)}"})

    replies = first.send(
        {"act": "move", "id": 1, "ply": 0, "action": "place h8"},
        {"act": "move", "id": 2, "ply": 1, "action": "place h9"},
        {"act": "move", "id": 3, "ply": 2, "action": "place i10"},
        {"act": "pass", "id": 4, "ply": 3},  # player two's turn to swap or not: not player one's to pass
    )

    assert [r["status"] for r in replies[:3]] == [200, 200, 200]
    assert replies[3]["status"] >= 400 and replies[3]["code"] != "invalid"
    assert Move.objects.filter(game=game).count() == 3


def test_strangers_and_bad_frames_get_a_clear_refusal_and_change_nothing(sockets: SocketServer) -> None:
    game, one_user, two_user, _one, _two = a_game("hostile")
    stranger_user, _x, _stranger, _y = two_players("outsider")
    topic = f"game:{game.pk}"
    move = {"act": "move", "id": 1, "ply": 0, "point": "h8"}

    anonymous = Conversation(url_of(sockets, topic)).send(move)[0]
    outsider = Conversation(url_of(sockets, topic), {"Authorization": f"Token {token(stranger_user)}"}).send(move)[0]
    out_of_turn = Conversation(url_of(sockets, topic), {"Authorization": f"Token {token(two_user)}"}).send(move)[0]
    bad = Conversation(url_of(sockets, topic), {"Authorization": f"Token {token(one_user)}"}).send(
        "not json",
        "[1, 2]",
        json.dumps({**move, "act": "resign"}),
        json.dumps({**move, "ply": -1}),
        json.dumps({**move, "point": "z99"}),
        json.dumps({**move, "pad": "x" * 5000}),
        json.dumps({"act": "move", "id": 9, "ply": 0}),  # no point
    )
    expired_key = token(one_user)
    Token.objects.filter(key=expired_key).update(created=timezone.now() - timedelta(days=30))
    expired = Conversation(url_of(sockets, topic), {"Authorization": f"Token {expired_key}"}).send(move)[0]
    import websockets

    with pytest.raises(websockets.InvalidStatus):  # a topic that is not there: refused on connecting
        Conversation(url_of(sockets, "tournament:999999")).send(move)

    assert (anonymous["status"], anonymous["code"]) == (401, "not_authenticated")
    assert (outsider["status"], outsider["code"]) == (403, "not_your_game")
    assert out_of_turn["status"] in (403, 409) and out_of_turn["code"] != "invalid"
    assert expired["status"] == 401 and "expired" in expired["message"]
    assert [r["status"] for r in bad] == [400] * 7, bad
    assert [r["code"] for r in bad] == ["invalid"] * 4 + ["bad_action"] + ["invalid"] * 2
    assert [r["reply"] for r in bad] == [None, None, 1, 1, 1, None, 9]  # too long: not read
    assert Move.objects.filter(game=game).count() == 0
    assert Game.objects.get(pk=game.pk).ply == 0


def test_a_session_signed_out_after_connecting_acts_no_more(sockets: SocketServer, client: Any) -> None:
    """Signing out closes the session's sockets (config.live_guard); a frame that raced the close is refused,
    since the user is read again for every frame: the socket's credentials are checked per act, not once."""
    from django.conf import settings

    game, one_user, _two_user, _one, _two = a_game("signout")
    client.force_login(one_user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    url = url_of(sockets, f"game:{game.pk}")

    def sign_out() -> None:
        from django.db import connection

        client.logout()
        connection.close()  # this thread's own

    async def two_moves(out: list[dict[str, Any]]) -> None:
        import websockets

        async with websockets.connect(url, additional_headers={"Cookie": cookie}) as ws:
            await ws.send(json.dumps({"act": "move", "id": 1, "ply": 0, "point": "h8"}))
            while len(out) < 1:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if "reply" in message:
                    out.append(message)
            await asyncio.to_thread(sign_out)  # signed out in another tab
            try:
                await ws.send(json.dumps({"act": "move", "id": 2, "ply": 2, "point": "j9"}))
                while len(out) < 2:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if "reply" in message:
                        out.append(message)
                await asyncio.wait_for(ws.recv(), 10)
            except websockets.ConnectionClosed as gone:
                out.append({"closed": gone.rcvd.code if gone.rcvd else 0})

    replies: list[dict[str, Any]] = []
    in_a_thread(two_moves(replies))

    assert replies[0]["status"] == 200
    assert replies[-1] == {"closed": 4401}  # the socket closes with the session
    assert all(r.get("status") == 401 for r in replies[1:-1])  # a frame sent before the close: refused
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.browser
def test_the_game_page_plays_its_stones_over_the_socket(
    sockets: SocketServer, live_server: Any, browser: Any, settings: Any
) -> None:
    settings.LIVE_MOVES = True
    game, one_user, two_user, _one, _two = a_game("pagesock")
    posts: list[str] = []
    frames: list[str] = []
    first, second = (game_page(browser, live_server.url, user, game, posts, frames) for user in (one_user, two_user))
    wait_until(hub_listening, 10, "the socket server's Redis subscription")
    for page in (first, second):
        socket_open(page, game)

    expect(first.locator("#status")).to_contain_text("Your turn", timeout=5000)
    click_point(first, "h8")
    expect(second.locator("#record li")).to_have_count(1, timeout=3000)
    expect(second.locator("#status")).to_contain_text("Your turn", timeout=5000)
    click_point(second, "j9")
    expect(first.locator("#record li")).to_have_count(2, timeout=3000)

    assert [(m.ply, m.text) for m in Move.objects.filter(game=game).order_by("ply")] == [
        (1, "place h8"),
        (2, "place j9"),
    ]
    assert not [u for u in posts if "/move/" in u], posts
    assert sum('"act": "move"' in f or '"act":"move"' in f for f in frames) == 2, frames


def test_the_moves_rate_limit_holds_on_the_socket(sockets: SocketServer, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "moves": "2/min"},
    }
    game, one_user, two_user, _one, _two = a_game("flood")
    one = Conversation(url_of(sockets, f"game:{game.pk}"), {"Authorization": f"Token {token(one_user)}"})
    two = Conversation(url_of(sockets, f"game:{game.pk}"), {"Authorization": f"Token {token(two_user)}"})

    first = one.send({"act": "move", "id": 1, "ply": 0, "point": "h8"})
    two.send({"act": "move", "id": 1, "ply": 1, "point": "a1"})
    replies = one.send(
        {"act": "move", "id": 2, "ply": 2, "point": "c1"},
        {"act": "move", "id": 3, "ply": 4, "point": "e1"},  # a third act within the minute
    )

    assert [r["status"] for r in first + replies] == [200, 200, 429]
    assert replies[1]["code"] == "throttled"
    assert Move.objects.filter(game=game).count() == 3


def test_a_full_moves_queue_answers_busy_and_acts_on_nothing(sockets: SocketServer, settings: Any) -> None:
    """The client then sends the same act by HTTP (static/js/game.js, bench/open.py)."""
    settings.LIVE_ACT_QUEUE = 0  # every frame finds the queue full
    game, one_user, _two_user, _one, _two = a_game("busy")
    player = Conversation(url_of(sockets, f"game:{game.pk}", "zh-hans"), {"Authorization": f"Token {token(one_user)}"})

    (reply,) = player.send({"act": "move", "id": 5, "ply": 0, "point": "h8"})

    assert (reply["reply"], reply["status"], reply["code"]) == (5, 503, "busy")
    with translation.override("zh-hans"):
        busy = gettext("The server is busy; send the move by HTTP.")
    assert reply["message"] == busy != "The server is busy; send the move by HTTP."
    assert Move.objects.filter(game=game).count() == 0


@pytest.mark.browser
def test_without_live_moves_the_game_page_plays_by_http(
    sockets: SocketServer, live_server: Any, browser: Any, settings: Any
) -> None:
    settings.LIVE_MOVES = False
    game, one_user, _two_user, _one, _two = a_game("pagehttp")
    posts, frames = first_stone(browser, live_server.url, one_user, game)

    assert [u for u in posts if u.endswith(f"/api/games/{game.pk}/move/")], posts
    assert not [f for f in frames if '"act"' in f], frames


@pytest.mark.browser
def test_a_busy_socket_server_hands_the_pages_stone_to_http(
    sockets: SocketServer, live_server: Any, browser: Any, settings: Any
) -> None:
    """``LIVE_MOVES`` on (the default) and the socket server's moves queue full: the page's stone is sent on
    the socket, answered busy, sent again by HTTP and stored once."""
    settings.LIVE_MOVES = True
    settings.LIVE_ACT_QUEUE = 0
    game, one_user, _two_user, _one, _two = a_game("pagebusy")
    posts, frames = first_stone(browser, live_server.url, one_user, game)

    assert sum('"act"' in f for f in frames) == 1, frames  # tried on the socket first
    assert [u for u in posts if u.endswith(f"/api/games/{game.pk}/move/")], posts  # then by HTTP
    assert [(m.ply, m.text) for m in Move.objects.filter(game=game)] == [(1, "place h8")]


class HeldMove:
    """A move sent on a game's socket whose act is held in its thread until :meth:`release` (at most 15 s)."""

    def __init__(self, sockets: SocketServer, monkeypatch: pytest.MonkeyPatch, prefix: str) -> None:
        from config import live_acts

        self.game, one_user, _two_user, _one, _two = a_game(prefix)
        self.entered, self.released = threading.Event(), threading.Event()
        real = live_acts.act

        def slow(*args: Any, **kwargs: Any) -> str:
            self.entered.set()
            self.released.wait(15)
            return real(*args, **kwargs)

        monkeypatch.setattr(live_acts, "act", slow)
        player = Conversation(url_of(sockets, f"game:{self.game.pk}"), {"Authorization": f"Token {token(one_user)}"})
        self.replies: list[dict[str, Any]] = []
        self.sent_at = time.time()
        frame = {"act": "move", "id": 1, "ply": 0, "point": "h8"}
        self.sender = threading.Thread(target=lambda: self.replies.extend(player.send(frame)))
        self.sender.start()
        assert self.entered.wait(10)

    def release(self) -> None:
        self.released.set()
        self.sender.join(20)


def test_a_new_socket_is_let_in_while_a_move_is_still_being_acted_on(
    sockets: SocketServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New sockets wait for the moves queued before them, but not for ever: with a deep queue a busy server may
    never be quiet, and a spectator must still get in (config.live.ACTS_FIRST_S)."""
    held = HeldMove(sockets, monkeypatch, "quiet")
    other, *_rest = a_game("watched")
    try:
        seen, thread = watching(url_of(sockets, f"game:{other.pk}"), lambda seen: len(seen) >= 1)
        thread.join(10)
        assert seen and not held.released.is_set()  # its first state came while the move was still held
    finally:
        held.release()
    assert [reply["status"] for reply in held.replies] == [200]


def test_a_move_waiting_in_the_socket_servers_queue_holds_the_flag(
    sockets: SocketServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move sent on the socket is in the ledger the adjudicators read (config.arrivals) from its arrival until
    it is answered, as a request waiting in a web process is: a flag that falls meanwhile waits for it."""
    from config import arrivals

    held = HeldMove(sockets, monkeypatch, "ledger")
    try:
        since = arrivals.waiting_since()
        assert since is not None and held.sent_at - 0.5 <= since <= time.time()
    finally:
        held.release()
    replies = held.replies
    assert [reply["status"] for reply in replies] == [200]
    wait_until(lambda: arrivals.waiting_since() is None, 5, "the answered move out of the ledger")
