"""Moves over the game's socket (config.live_moves): a real socket server (uvicorn, config.asgi), a real Redis,
and the clients a player and a stranger would use. In the PostgreSQL pass (the server reads the database from
its own threads)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token

from config.tests.sockets import SocketServer, hub_listening
from devtools.processes import wait_until
from games.models import Game, GameEvent, Move, Player
from games.selectors import clock_of
from games.services import game_create

pytestmark = [pytest.mark.pg_django, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def player_with_token(name: str) -> tuple[Player, str]:
    user = get_user_model().objects.create_user(name)
    return Player.objects.create(name=name, user=user), Token.objects.create(user=user).key


def a_game() -> tuple[Game, str, str]:
    """A public quick-play game between two players who hold API tokens: (game, token one, token two)."""
    (one, key_one), (two, key_two) = player_with_token("sock1"), player_with_token("sock2")
    game = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    return game, key_one, key_two


def url(server: SocketServer, game: Game, lang: str = "en") -> str:
    return f"ws://127.0.0.1:{server.port}/ws/live/?topic=game:{game.pk}&lang={lang}"


async def _exchange(address: str, frames: list[str], headers: dict[str, str]) -> list[dict[str, Any]]:
    """Send each frame and collect its answer (the pushes of states in between are skipped)."""
    import websockets

    answers: list[dict[str, Any]] = []
    async with websockets.connect(address, additional_headers=headers) as ws:
        await asyncio.wait_for(ws.recv(), 10)  # the state, sent when the socket opens
        for frame in frames:
            await ws.send(frame)
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message.get("op") in ("ack", "error"):
                    answers.append(message)
                    break
    return answers


def exchange(address: str, frames: list[Any], token: str | None = None) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Token {token}"} if token else {}
    texts = [f if isinstance(f, str) else json.dumps(f) for f in frames]
    return asyncio.run(_exchange(address, texts, headers))


def move(ply: int, point: str, ref: int = 0, **more: Any) -> dict[str, Any]:
    return {"op": "move", "ref": ref, "ply": ply, "point": point, "think_ms": 1500, **more}


def test_a_player_moves_over_the_socket_and_a_spectator_sees_it(sockets: SocketServer) -> None:
    game, one, two = a_game()
    watching: list[dict[str, Any]] = []

    async def spectate() -> None:
        import websockets

        async with websockets.connect(url(sockets, game)) as ws:
            while len(watching) < 3:
                watching.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))

    async def both() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        spectator = asyncio.ensure_future(spectate())
        await asyncio.sleep(0.3)
        wait_until(hub_listening, 10, "the socket server's Redis subscription")
        first = await _exchange(
            url(sockets, game), [json.dumps(move(0, "h8", ref=7))], {"Authorization": f"Token {one}"}
        )
        second = await _exchange(
            url(sockets, game), [json.dumps(move(1, "h9", ref=8))], {"Authorization": f"Token {two}"}
        )
        await asyncio.wait_for(spectator, 10)
        return first, second

    first, second = asyncio.run(both())

    assert first[0]["op"] == "ack" and first[0]["ref"] == 7 and first[0]["game"]["ply"] == 1
    assert second[0]["op"] == "ack" and second[0]["game"]["position"]["stones"] == ["h8", "h9"]
    stored = list(Move.objects.filter(game=game).order_by("ply").values_list("text", "player_number"))
    assert stored == [("place h8", 1), ("place h9", 2)]
    game.refresh_from_db()
    assert game.ply == 2 and clock_of(game).status == "running" and game.deadline is not None
    assert [m["game"]["ply"] for m in watching] == [0, 1, 2]  # the spectator's pushes, in order


def test_a_stale_ply_is_refused_in_the_sockets_language_and_a_repeat_is_answered_as_stored(
    sockets: SocketServer,
) -> None:
    game, one, _two = a_game()

    answers = exchange(url(sockets, game, "zh-hans"), [move(0, "h8", 1), move(0, "h8", 2), move(0, "j9", 3)], one)

    assert [a["op"] for a in answers] == ["ack", "ack", "error"]
    assert answers[1]["game"]["ply"] == 1  # the client's retry of a move it never saw answered
    assert answers[2]["status"] == 409 and answers[2]["code"] == "stale_ply"
    assert answers[2]["message"] == "对局已有新着，请刷新后重试。"
    assert Move.objects.filter(game=game).count() == 1


def test_strangers_and_wrong_turns_change_nothing(sockets: SocketServer) -> None:
    game, one, two = a_game()
    _outsider, stranger = player_with_token("sock3")
    address = url(sockets, game)

    nobody = exchange(address, [move(0, "h8")])
    outsider = exchange(address, [move(0, "h8", seat=1)], stranger)  # naming a seat is for organizers
    out_of_turn = exchange(address, [move(0, "h8")], two)
    garbage = exchange(address, ["not json", {"op": "resign"}, "x" * 5000, move(-1, "h8")], one)

    assert nobody[0]["status"] == 401 and nobody[0]["code"] == "not_signed_in"
    assert outsider[0]["status"] == 403 and outsider[0]["code"] == "not_your_game"
    assert out_of_turn[0]["code"] == "not_your_turn"
    assert [a["code"] for a in garbage] == ["bad_frame", "bad_frame", "bad_frame", "bad_input"]
    assert not Move.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.ply == 0 and clock_of(game).status == "waiting"
    assert not GameEvent.objects.filter(game=game, kind="move").exists()


def expire(key: str) -> None:
    """Age the token past its life (from a thread of its own: its connection is closed after)."""
    from django.db import connection

    try:
        Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=365))
    finally:
        connection.close()


def test_a_token_that_expires_while_the_socket_is_open_stops_the_next_move(sockets: SocketServer) -> None:
    import websockets

    game, one, _two = a_game()

    async def play() -> list[dict[str, Any]]:
        answers = []
        async with websockets.connect(url(sockets, game), additional_headers={"Authorization": f"Token {one}"}) as ws:
            await asyncio.wait_for(ws.recv(), 10)
            await ws.send(json.dumps(move(0, "h8")))
            while (message := json.loads(await asyncio.wait_for(ws.recv(), 10))).get("op") != "ack":
                pass
            answers.append(message)
            await asyncio.to_thread(expire, one)
            await ws.send(json.dumps(move(2, "j9")))
            while (message := json.loads(await asyncio.wait_for(ws.recv(), 10))).get("op") != "error":
                pass
            answers.append(message)
        return answers

    acked, refused = asyncio.run(play())

    assert acked["game"]["ply"] == 1
    assert refused["status"] == 401 and refused["code"] == "bad_token"
    assert Move.objects.filter(game=game).count() == 1
    # and the expired token opens no new socket on a private game
    Game.objects.filter(pk=game.pk).update(is_public=False)
    with pytest.raises((websockets.ConnectionClosed, websockets.InvalidStatus)):  # refused (403 or 4403)
        exchange(url(sockets, game), [move(1, "h9")], one)


def test_the_flag_waits_while_a_socket_move_is_served(sockets: SocketServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The move's arrival is published while it is in service, as a gunicorn worker publishes a request's:
    the adjudicators' flag hold (games.flaghold) reads it."""
    import config.live_moves
    from config import arrivals

    game, one, _two = a_game()
    seen: list[float | None] = []
    served = config.live_moves.play

    def watched(*args: Any) -> dict[str, Any]:
        seen.append(arrivals.waiting_since())
        return served(*args)

    monkeypatch.setattr(config.live_moves, "play", watched)
    before = timezone.now().timestamp()

    answers = exchange(url(sockets, game), [move(0, "h8")], one)

    assert answers[0]["op"] == "ack"
    assert seen[0] is not None and before <= seen[0] <= timezone.now().timestamp()
    assert arrivals.waiting_since() is None  # nothing in service once it is answered


def test_the_move_limit_is_the_apis(sockets: SocketServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from config.security import MoveThrottle

    monkeypatch.setattr(MoveThrottle, "THROTTLE_RATES", {"moves": "2/min"})
    game, one, _two = a_game()

    answers = exchange(url(sockets, game), [move(0, "h8", 1), move(1, "h9", 2), move(2, "j9", 3)], one)

    assert [a.get("code") for a in answers] == [None, "not_your_turn", "throttled"]
    assert answers[2]["status"] == 429 and Move.objects.filter(game=game).count() == 1
