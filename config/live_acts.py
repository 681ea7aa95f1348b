"""Moves over the game's socket: a player whose page watches ``game:N`` (config.live) plays its stones and
passes on that same socket, as lichess does, as well as by ``POST /api/games/N/move/``.

A frame ``{"act": "move", "id": 7, "ply": 12, "point": "h8", "think_ms": 2300}`` (or ``"action": …`` for an
opening step; ``{"act": "pass", "id": 8, "ply": 13}``) is answered on the socket by ``{"reply": 7, "status":
200, "game": …}`` — the HTTP answer's state (games.serializers.game_state_data) — or by ``{"reply": 7,
"status": 409, "code": "stale_ply", "message": …}``, the HTTP refusal's code and status, the message in the
socket's language. The watchers of the game, the player's own socket included, are pushed the new state as
for any move.

Each act is checked as a request is, with none of a request's framework around it:
- the user is read again from the socket's credentials for every act (the session cookie, or ``Authorization:
  Token …`` for a script), so a signed-out session, an expired token or a revoked private link acts no more;
- the API's per-user rate limit on moves (``THROTTLE_MOVES``), counted in the socket server's own memory
  (:class:`Window`): a socket's act does not wait on Redis for it, and a user's acts on several socket
  servers are counted by each;
- the same input checks, the same service, the same lock, the same clock: ``at`` is when the frame reached the
  server, and the time it then waited for a thread is logged as ``queued_ms``;
- a socket opened by a page of another site is refused when it connects (config.live._origin_allowed).

A socket server whose moves queue already holds ``LIVE_ACT_QUEUE`` frames answers the next at once with
``{"reply": 7, "status": 503, "code": "busy", …}``, not acted on; the client sends it by HTTP.

A socket acts one frame at a time, in order; a client that loses its socket before the answer sends the same
ply again (over a new socket or by HTTP), and the repeat is answered as the stored move (games.services.play).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from contextlib import nullcontext
from datetime import datetime
from http.cookies import SimpleCookie
from importlib import import_module
from types import SimpleNamespace
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import get_user
from django.contrib.auth.models import AnonymousUser
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import translation
from django.utils.translation import gettext as _
from rest_framework.exceptions import (
    AuthenticationFailed,
    NotAuthenticated,
    Throttled,
    ValidationError,
)

from config.api import exception_handler
from config.authentication import ExpiringTokenAuthentication
from games.api import live_act, move_inputs, pass_inputs
from games.live import Deliver, delivered_here, described
from games.parsing import whole
from games.serializers import PassInputSerializer, game_state_data, move_input, validated
from games.services import game_act, game_pass
from tournament.middleware import SESSION_LINK, link_tournament, mark_link_session

logger = logging.getLogger(__name__)
MAX_FRAME = 4096  # characters: a move's frame is under a hundred
ACTS = ("move", "pass")


def socket_user(scope: dict[str, Any], *, strict: bool = False) -> Any:
    """The user behind a socket: its ``Authorization: Token …`` header (a script), else its session cookie.
    A session opened by a private link that has since been revoked is signed out, as every request's is
    (tournament.middleware). ``strict``: a token that is not valid raises ``AuthenticationFailed`` instead of
    reading as anonymous."""
    return socket_identity(scope, strict=strict)[0]


def socket_identity(scope: dict[str, Any], *, strict: bool = False) -> tuple[Any, str, str]:
    """:func:`socket_user`, with the session key and the private link key it was opened with ("" for none)."""
    cookies = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            kind, _sep, key = value.decode("latin-1").strip().partition(" ")
            if kind.lower() == "token" and key.strip():
                try:
                    return ExpiringTokenAuthentication().authenticate_credentials(key.strip())[0], "", ""
                except AuthenticationFailed:
                    if strict:
                        raise
                    return AnonymousUser(), "", ""
        elif name == b"cookie":
            try:
                cookies.load(value.decode("latin-1"))
            except Exception:  # a malformed cookie header reads as none
                continue
    store = import_module(settings.SESSION_ENGINE).SessionStore
    morsel = cookies.get(settings.SESSION_COOKIE_NAME)
    session = store(morsel.value if morsel is not None else None)
    link = session.get(SESSION_LINK) or ""
    origin = link_tournament(link) if link else None
    if link and origin is None:
        return AnonymousUser(), "", ""
    user = get_user(SimpleNamespace(session=session))  # type: ignore[arg-type]  # get_user reads .session only
    if origin is not None and user.is_authenticated:
        mark_link_session(user, origin)
    return user, (session.session_key or "") if user.is_authenticated else "", link


def act(scope: dict[str, Any], topic: str, lang: str, text: str, at: datetime, deliver: Deliver | None = None) -> str:
    """The answer to one frame sent on the socket of ``topic`` (run in a thread of the socket server).
    ``deliver``: the socket server's own watchers, told of what the act commits (games.live.delivered_here)."""
    queued_ms = max(0, round(time.time() * 1000 - at.timestamp() * 1000))
    with translation.override(lang), delivered_here(deliver) if deliver else nullcontext():
        ident: Any = None
        try:
            frame = _frame(text)
            ident = _ident(frame.pop("id", None))
            kind = frame.pop("act", None)
            game_id = whole(topic.removeprefix("game:")) if topic.startswith("game:") else None
            if kind not in ACTS or game_id is None:
                raise ValidationError({"act": _("Only a move or a pass is sent on a game's socket.")})
            user = socket_user(scope, strict=True)
            if not user.is_authenticated:
                raise NotAuthenticated()
            _throttle(user)
            if kind == "move":
                game = live_act(user, game_id, move_input(frame), game_act, move_inputs, at=at, queued_ms=queued_ms)
            else:
                data = validated(PassInputSerializer, frame)
                game = live_act(user, game_id, data, game_pass, pass_inputs, at=at, queued_ms=queued_ms)
            state = game_state_data(game, described(game))  # the move's position and clock, as pushed
            return json.dumps({"reply": ident, "status": 200, "game": state}, cls=DjangoJSONEncoder)
        except Exception as exc:
            response = exception_handler(exc, {})
            if response is None:
                logger.exception("a move on the socket of %s failed", topic)
                refusal = {"status": 500, "code": "error", "message": _("The server could not take the move.")}
            else:
                refusal = {"status": response.status_code, **(response.data or {})}
            return json.dumps({"reply": ident, **refusal}, cls=DjangoJSONEncoder)


def frame_id(text: str) -> Any:
    """The ``id`` a reply to the frame ``text`` repeats (``ValidationError`` if the frame cannot be read)."""
    return _ident(_frame(text).get("id"))


def busy(text: str, lang: str) -> str:
    """The answer to a frame not acted on because the socket server's moves queue is full: 503, ``busy``; the
    client sends the same act by HTTP. Nothing was read from the database or changed."""
    try:
        ident = frame_id(text)
    except ValidationError:
        ident = None
    with translation.override(lang):
        message = _("The server is busy; send the move by HTTP.")
    return json.dumps({"reply": ident, "status": 503, "code": "busy", "message": message})


def _ident(value: Any) -> Any:
    """A frame's ``id`` as its reply repeats it: a number or a short text, else None."""
    if not isinstance(value, (int, str)) or isinstance(value, bool) or len(str(value)) > 40:
        return None
    return value


def _frame(text: str) -> dict[str, Any]:
    if len(text) > MAX_FRAME:
        raise ValidationError(_("The message is too long."))
    try:
        frame = json.loads(text)
    except ValueError:
        raise ValidationError(_("The message is not JSON.")) from None
    if not isinstance(frame, dict):
        raise ValidationError(_("The message is not a JSON object."))
    return frame


class Window:
    """``THROTTLE_MOVES`` (as ``120/min``) for the acts on this process's sockets, per user: a sliding window of
    the instants of their last acts. Users with nothing in the window are dropped now and then."""

    def __init__(self) -> None:
        self.seen: dict[Any, deque[float]] = {}
        self.lock = threading.Lock()

    def wait(self, user_id: Any, now: float) -> float | None:
        """None if one more act is allowed at ``now`` (and it is counted); else the seconds to wait."""
        rate = cast(dict[str, Any], settings.REST_FRAMEWORK)["DEFAULT_THROTTLE_RATES"].get("moves")
        if not rate:
            return None
        number, _sep, period = str(rate).partition("/")
        allowed, duration = int(number), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[:1]]
        with self.lock:
            if len(self.seen) > 10_000:
                self.seen = {user: times for user, times in self.seen.items() if times and times[-1] > now - duration}
            times = self.seen.setdefault(user_id, deque())
            while times and times[0] <= now - duration:
                times.popleft()
            if len(times) >= allowed:
                return times[0] + duration - now
            times.append(now)
            return None


_window = Window()


def _throttle(user: Any) -> None:
    wait = _window.wait(user.pk, time.monotonic())
    if wait is not None:
        raise Throttled(wait)
