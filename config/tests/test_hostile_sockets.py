"""A socket flooder and a socket that outlives its rights (issue 59, low/medium 4), against the real socket server
(uvicorn, config.asgi) and Redis. Any frame on a public game's socket took a place in the moves' queue before
its sender was known: 20 anonymous sockets sending without pause made 6 of 10 players' single moves come back
busy. And a socket's right to its topic was checked only when it connected: a revoked link or a signed-out
session kept receiving pushes. In the PostgreSQL pass, as config/tests/test_live_acts.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings

from config.tests.sockets import SocketServer, hub_listening, in_a_thread
from devtools.processes import wait_until
from games.models import Game, Player
from games.services import game_create
from tournament import registration, services
from tournament.tests.browser import two_players

pytestmark = [pytest.mark.pg_django, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def url_of(sockets: SocketServer, topic: str) -> str:
    return f"ws://127.0.0.1:{sockets.port}/ws/live/?topic={topic}&lang=en"


def closing(work: Callable[[], Any]) -> Any:
    """``work`` in a thread of its own, its database connection closed after (the test database is dropped
    at the end, and a connection left open in a thread would hold it)."""
    try:
        return work()
    finally:
        connection.close()


def session_cookie(client: Client) -> dict[str, str]:
    return {"Cookie": f"sessionid={client.cookies['sessionid'].value}"}


async def flood(url: str, stop: asyncio.Event, answers: list[dict[str, Any]], closed: list[int]) -> None:
    """An anonymous socket sending move frames without pause until ``stop`` or until the server closes it."""
    import websockets

    async with websockets.connect(url) as ws:
        n = 0
        try:
            while not stop.is_set():
                n += 1
                await ws.send(json.dumps({"act": "move", "id": n, "ply": 0, "point": "h8"}))
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if "reply" in message:
                    answers.append(message)
        except websockets.ConnectionClosed as gone:
            closed.append(gone.rcvd.code if gone.rcvd else 0)


async def one_move(url: str, headers: dict[str, str]) -> dict[str, Any]:
    import websockets

    async with websockets.connect(url, additional_headers=headers) as ws:
        await ws.send(json.dumps({"act": "move", "id": 1, "ply": 0, "point": "h8", "think_ms": 500}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if "reply" in message:
                return dict(message)


def test_anonymous_floods_take_no_place_in_the_moves_queue_and_are_closed(sockets: SocketServer) -> None:
    one, two = Player.objects.create(name="P1"), Player.objects.create(name="P2")
    public = game_create(player_one=one, player_two=two, rules="freestyle")
    players = []
    for n in range(10):
        one_user, _two_user, one, two = two_players(f"mover{n}-")
        game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
        client = Client()
        client.force_login(one_user)
        players.append((game, session_cookie(client)))

    async def round_trip() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[int]]:
        stop = asyncio.Event()
        answers: list[dict[str, Any]] = []
        closed: list[int] = []
        public_url = url_of(sockets, f"game:{public.pk}")
        flooders = [asyncio.create_task(flood(public_url, stop, answers, closed)) for _ in range(20)]
        await asyncio.sleep(0.3)
        moves = await asyncio.gather(*(one_move(url_of(sockets, f"game:{g.pk}"), h) for g, h in players))
        stop.set()
        await asyncio.gather(*flooders)
        return list(moves), answers, closed

    # A queue just deep enough for the ten movers (on PostgreSQL a move takes long enough that ten sent at once
    # filled a queue of four by themselves: busy answers that had nothing to do with the flood), and flooders
    # never closed: a flood that took places in the queue (twenty sockets sending as fast as they can) would
    # fill it at once.
    with override_settings(LIVE_ACT_QUEUE=12, SOCKET_REFUSALS=1_000_000):
        moves, answers, closed = in_a_thread(round_trip())

    assert [m["status"] for m in moves] == [200] * 10, [m.get("code") for m in moves]
    assert len(answers) > 100 and {a["code"] for a in answers} == {"not_authenticated"}
    assert closed == []
    assert all(Game.objects.get(pk=g.pk).ply == 1 for g, _h in players)

    async def alone() -> list[int]:
        stop = asyncio.Event()
        answers: list[dict[str, Any]] = []
        closed: list[int] = []
        await asyncio.wait_for(flood(url_of(sockets, f"game:{public.pk}"), stop, answers, closed), 20)
        return closed

    assert in_a_thread(alone()) == [4403]  # with the default limit, closed after its tenth refusal


def test_a_players_socket_is_limited_in_frames_and_closed_when_it_keeps_on(sockets: SocketServer) -> None:
    one_user, _two_user, one, two = two_players("fast")
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    client = Client()
    client.force_login(one_user)

    async def hammer() -> tuple[list[str], int]:
        import websockets

        codes: list[str] = []
        url, headers = url_of(sockets, f"game:{game.pk}"), session_cookie(client)
        async with websockets.connect(url, additional_headers=headers) as ws:
            try:
                for n in range(40):
                    await ws.send(json.dumps({"act": "move", "id": n, "ply": 99, "point": "h8"}))
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        if "reply" in message:
                            codes.append(message.get("code", "ok"))
                            break
            except websockets.ConnectionClosed as gone:
                return codes, gone.rcvd.code if gone.rcvd else 0
        return codes, 0

    codes, closed = in_a_thread(hammer())

    assert "throttled" in codes  # past 10 frames in 5 s
    assert codes[:10].count("throttled") == 0  # a player's ordinary frames are acted on (a stale ply here)
    assert closed == 4403 and len(codes) < 40


def test_a_revoked_link_and_a_signed_out_session_close_their_sockets(sockets: SocketServer) -> None:
    tournament = services.tournament_create(name="Links")
    entry = services.register(tournament=tournament, player=Player.objects.create(name="Linked"))
    key = registration.access_key_new(entry=entry).access_key
    phone = Client()
    phone.post(f"/p/{key}/")
    user_one, _user_two, one, two = two_players("leaver")
    game = game_create(player_one=one, player_two=two, rules="freestyle")
    laptop = Client()
    laptop.force_login(user_one)
    console = f"player:{entry.player_id}@{tournament.pk}"

    async def watch(url: str, headers: dict[str, str], opened: asyncio.Event) -> int:
        import websockets

        async with websockets.connect(url, additional_headers=headers) as ws:
            opened.set()
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 20)
            except websockets.ConnectionClosed as gone:
                return gone.rcvd.code if gone.rcvd else 0
        return 0

    async def both() -> list[int]:
        link_open, session_open = asyncio.Event(), asyncio.Event()
        watchers = [
            asyncio.create_task(watch(url_of(sockets, console), session_cookie(phone), link_open)),
            asyncio.create_task(watch(url_of(sockets, f"game:{game.pk}"), session_cookie(laptop), session_open)),
        ]
        await asyncio.wait_for(asyncio.gather(link_open.wait(), session_open.wait()), 10)
        await asyncio.to_thread(wait_until, hub_listening, 10, "the socket server's Redis subscription")
        await asyncio.to_thread(closing, lambda: registration.access_key_revoke(entry=entry))
        await asyncio.to_thread(closing, lambda: laptop.post("/accounts/logout/"))
        return list(await asyncio.wait_for(asyncio.gather(*watchers), 15))

    assert in_a_thread(both()) == [4401, 4401]
