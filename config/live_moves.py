"""Moves over the game's socket: a player whose page or client watches ``game:N`` on ``/ws/live/`` may send
its moves on that socket, as lichess's players do, and skip an HTTP request per move.

A frame ``{"op": "move", "ref": …, "ply": 12, "point": "h8", "think_ms": 2300}`` (or ``"action": "swap"``,
and ``"seat"`` for an organizer acting for a seat) is answered on the same socket by ``{"op": "ack", "ref": …,
"game": …}``, the body ``POST /api/games/N/move/`` answers, or ``{"op": "error", "ref": …, "status": 409,
"code": "stale_ply", "message": …}`` in the socket's language. The pushes go on as before.

The socket path keeps every rule of the HTTP one (games.api):

* the credential is read again for every move (the session's cookie, or an ``Authorization: Token`` header
  sent with the handshake), so a logout or an expired token stops the next move; the page's origin was
  checked when the socket opened (config.live), which is what the CSRF check does for a form;
* the per-user move limit is the API's own counter (``THROTTLE_MOVES``);
* a user acts for their own seat only (games.access.acting_player), and the game must be the socket's;
* the clock times the move at the instant its frame was read, and while it is being served the flag waits
  for it (the process's arrivals are published as gunicorn's are, config.arrivals);
* a repeat of a stored move (a client that lost the answer) is answered as stored, by the service.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import socket
import time
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from asgiref.sync import sync_to_async
from django.core.serializers.json import DjangoJSONEncoder

from config import arrivals

logger = logging.getLogger(__name__)
MAX_FRAME = 2_000  # a move is a few dozen bytes
_publisher: arrivals.Publisher | None = None
_tokens = itertools.count()


def publisher() -> arrivals.Publisher:
    """This process's ledger of the moves it is serving (one Redis key, as each gunicorn worker has)."""
    global _publisher
    if _publisher is None:
        _publisher = arrivals.Publisher(arrivals.redis_client(), f"{socket.gethostname()}:{os.getpid()}:live")
    return _publisher


async def answer(scope: dict[str, Any], topic: str, lang: str, text: str) -> str:
    """The answer to one frame a watcher of ``topic`` sent."""
    arrived = time.time()
    ledger, token = publisher(), next(_tokens)
    ledger.started(token, arrived)  # before anything could flag on it: the move is in service from now
    keeping = asyncio.get_running_loop().create_task(_keep_published(ledger))
    try:
        reply = await sync_to_async(play, thread_sensitive=False)(scope, topic, lang, text, arrived)
    finally:
        ledger.finished(token)
        keeping.cancel()
        ledger.flush()
    return json.dumps(reply, cls=DjangoJSONEncoder)


async def _keep_published(ledger: arrivals.Publisher) -> None:
    """A long move keeps its arrival published (the key expires in a few seconds if nobody refreshes it)."""
    while True:
        await asyncio.sleep(1.0)
        ledger.flush()


def play(scope: dict[str, Any], topic: str, lang: str, text: str, arrived: float) -> dict[str, Any]:
    from config.live import with_database

    return with_database(_play, scope, topic, lang, text, arrived)


def _play(scope: dict[str, Any], topic: str, lang: str, text: str, arrived: float) -> dict[str, Any]:
    from django.utils import translation
    from django.utils.translation import gettext as _

    from games.services import GameError

    with translation.override(lang):
        try:
            data = json.loads(text) if len(text) <= MAX_FRAME else None
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("op") != "move":
            return {"op": "error", "ref": None, "status": 400, "code": "bad_frame", "message": _("Send a move.")}
        ref = data.get("ref")
        try:
            return {"op": "ack", "ref": ref, "game": _move(scope, topic, data, arrived)}
        except GameError as exc:
            return {"op": "error", "ref": ref, "status": exc.status, "code": exc.code, "message": exc.message}


def _move(scope: dict[str, Any], topic: str, data: dict[str, Any], arrived: float) -> dict[str, Any]:
    from django.utils.translation import gettext as _

    from config.security import MoveThrottle
    from games import services
    from games.access import acting_player, can_see
    from games.models import Game
    from games.serializers import GameStateSerializer, MoveInputSerializer
    from games.services import GameError

    user = socket_user(scope)
    if not user.is_authenticated:
        raise GameError("not_signed_in", _("Sign in to play."), 401)
    kind, _sep, ident = topic.partition(":")
    game = Game.objects.filter(pk=int(ident)).first() if kind == "game" and ident.isdigit() else None
    if game is None or not can_see(user, game):
        raise GameError("no_game", _("There is no such game."), 404)
    throttle = MoveThrottle()
    if not throttle.allow_request(SimpleNamespace(user=user, method="POST"), SimpleNamespace(throttle_scope="moves")):
        raise GameError("throttled", _("Too many moves; wait a moment."), 429)
    form = MoveInputSerializer(data=data)
    if not form.is_valid():
        raise GameError("bad_input", _("The move is not valid: %(errors)s") % {"errors": _errors(form.errors)})
    fields = form.validated_data
    served = time.time()
    game = services.game_act(
        game_id=game.pk,
        player=acting_player(user, game, fields.get("seat")),
        action=fields.get("action") or f"place {fields['point']}",
        expected_ply=fields["ply"],
        actor=user,
        interface="api",
        at=datetime.fromtimestamp(arrived, tz=UTC),
        think_ms=fields.get("think_ms"),
        queued_ms=round((served - arrived) * 1000),
        live=True,
    )
    return dict(GameStateSerializer(game).data)


def _errors(errors: Any) -> str:
    return "; ".join(f"{name}: {' '.join(str(m) for m in messages)}" for name, messages in dict(errors).items())


def socket_user(scope: dict[str, Any]) -> Any:
    """Who the socket speaks for, read now: an ``Authorization: Token`` header sent with the handshake (an
    expired or unknown token is refused), else the session of the page's cookie (anonymous without one)."""
    from http.cookies import SimpleCookie
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import get_user
    from django.contrib.auth.models import AnonymousUser
    from rest_framework import exceptions

    from config.authentication import ExpiringTokenAuthentication
    from games.services import GameError

    cookies = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            words = value.decode("latin-1").split()
            if len(words) != 2 or words[0].lower() != "token":
                raise GameError("bad_token", str(exceptions.AuthenticationFailed.default_detail), 401)
            try:
                user, _token = ExpiringTokenAuthentication().authenticate_credentials(words[1])
            except exceptions.AuthenticationFailed as exc:
                raise GameError("bad_token", str(exc.detail), 401) from None
            return user
        if name == b"cookie":
            cookies.load(value.decode("latin-1"))
    if settings.SESSION_COOKIE_NAME not in cookies:
        return AnonymousUser()
    store = import_module(settings.SESSION_ENGINE).SessionStore
    return get_user(SimpleNamespace(session=store(cookies[settings.SESSION_COOKIE_NAME].value)))  # type: ignore[arg-type]
