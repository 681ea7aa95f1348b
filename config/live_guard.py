"""Who a live socket is, decided once when it connects, and what its frames may cost (docs/security.md).

- **Admission** (:func:`admit`): the socket's session (or token) may see the topic — the same rule as the pages
  and the API — and, decided here once, whether it may act at all: a seat in the game's socket (or the game's
  organizer). A frame from any other socket is refused at once, in the event loop, without a thread or a place
  in the moves' queue (config.live._act), so anonymous sockets cannot crowd the players' moves out.
- **A gate per socket** (:class:`FrameGate`): at most ``SOCKET_FRAMES`` frames in ``SOCKET_WINDOW_S`` seconds
  (a game needs a move or two a second at the most), and a socket refused ``SOCKET_REFUSALS`` times is closed.
- **Rights that end**: a socket remembers (as digests) the session and the private link it was opened with;
  when that session signs out or that link is revoked or renewed, every socket server closes it
  (games.live.sockets_closed, :meth:`config.live.Hub.close_matching`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import translation
from django.utils.translation import gettext as _
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated, ValidationError

from config.api import exception_handler
from config.live_acts import frame_id, socket_identity
from games.access import (
    can_see,
    console_topic,
    may_organize,
    organizes_game,
    referees_any,
    seated_player,
)
from games.live import key_digest, sockets_closed
from games.models import Game, Player
from games.parsing import whole
from games.services import GameError
from tournament.models import Tournament

CLOSE_REFUSED = 4403  # the socket kept sending what it may not (or was refused at connect)
CLOSE_ENDED = 4401  # the session or link that opened it has ended


@dataclass
class Admission:
    """What was decided when a socket connected."""

    may_act: bool  # its frames are acted on (a seat in the game, or its organizer); others are refused at once
    session: str = ""  # digest of the session key it was opened with ("" for a token)
    link: str = ""  # digest of the private link that session was signed in with ("")
    refusal: dict[str, Any] = field(default_factory=dict)  # the answer to each frame of a socket that may not act


def admit(scope: dict[str, Any], topic: str, lang: str = "") -> Admission | None:
    """``None`` when the socket's session may not see ``topic``; else what it may do (runs in a thread with a
    database connection). The refusal a socket that may not act gets is the API's, in the socket's language:
    401 with a token's failure (expired, unknown) or for nobody signed in, 403 for someone not seated here."""
    user, session_key, link = socket_identity(scope)
    game = _game_of(topic)
    if not may_watch(user, topic, game):
        return None
    admission = Admission(
        may_act=may_act(user, topic, game),
        session=key_digest(session_key) if session_key else "",
        link=key_digest(link) if link else "",
    )
    if not admission.may_act:
        with translation.override(lang or settings.LANGUAGE_CODE):
            admission.refusal = _refusal(scope, user)
    return admission


def _refusal(scope: dict[str, Any], user: Any) -> dict[str, Any]:
    failure: Exception
    if user.is_authenticated:
        failure = GameError("not_your_game", _("You are not a player in this game."), 403)
    else:
        failure = NotAuthenticated()
        try:
            if any(name == b"authorization" for name, _value in scope.get("headers", [])):
                socket_identity(scope, strict=True)
        except AuthenticationFailed as failed:  # a token that is not (or no longer) valid: say which
            failure = failed
    response = exception_handler(failure, {})
    assert response is not None
    return {"status": response.status_code, **(response.data or {})}


def _game_of(topic: str) -> Game | None:
    """The game of a ``game:`` topic, read once for both questions (``None`` for any other topic)."""
    kind, _sep, text = topic.partition(":")
    ident = whole(text) if kind == "game" else None
    return Game.objects.filter(pk=ident).first() if ident is not None else None


def may_watch(user: Any, topic: str, game: Game | None = None) -> bool:
    """The session may see the topic (the same rule as the pages and the API); ``game``: the topic's, if read."""
    kind, _sep, text = topic.partition(":")
    if kind == "player":  # a console: only its own player's session, a link's as far as its link reaches
        number = whole(text.partition("@")[0]) or 0
        player = Player.objects.filter(pk=number, user_id=user.pk).first() if user.is_authenticated else None
        return player is not None and console_topic(user, player) == topic
    ident = whole(text)
    if ident is None:
        return False
    if kind == "game":
        game = game if game is not None else Game.objects.filter(pk=ident).first()
        return game is not None and can_see(user, game)
    if kind == "referee":  # a referee's console: only that referee's session
        return bool(user.is_authenticated and user.pk == ident and referees_any(user))
    if kind == "relaygame":  # a relayed game's public view: whoever may see the game
        game = Game.objects.filter(pk=ident).first()
        return game is not None and can_see(user, game)
    if kind in ("tournament", "relay"):  # a relay's multiboard: whoever may see the tournament
        tournament = Tournament.objects.filter(pk=ident).first()
        return tournament is not None and (
            tournament.status != Tournament.Status.DRAFT or may_organize(user, tournament)
        )
    return False


def may_act(user: Any, topic: str, game: Game | None = None) -> bool:
    """Frames on this socket may be acted on: a game's socket, and a session seated in that game (within its
    link's reach) or running it. Decided once; every act is still checked in full when it is made."""
    kind, _sep, text = topic.partition(":")
    ident = whole(text)
    if kind != "game" or ident is None or not user.is_authenticated:
        return False
    game = game if game is not None else Game.objects.filter(pk=ident).first()
    return game is not None and (seated_player(user, game) is not None or organizes_game(user, game))


@dataclass
class FrameGate:
    """One socket's frames: how many lately, and how many refused in all."""

    admission: Admission
    recent: list[float] = field(default_factory=list)
    refused: int = 0

    def refusal(self, text: str, lang: str, now: float | None = None) -> str | None:
        """The answer to a frame refused before any work (``None``: act on it): from a socket that may not act,
        or past the socket's frame limit."""
        now = time.monotonic() if now is None else now
        window = settings.SOCKET_WINDOW_S
        self.recent = [t for t in self.recent if t > now - window]
        self.recent.append(now)
        if not self.admission.may_act:
            self.refused += 1
            return _answer(text, self.admission.refusal)
        if len(self.recent) > settings.SOCKET_FRAMES:
            self.refused += 1
            with translation.override(lang):
                message = _("Too many messages on this socket; slow down.")
            return _answer(text, {"status": 429, "code": "throttled", "message": message})
        return None

    @property
    def spent(self) -> bool:
        """Refused too often: the socket is closed."""
        return self.refused >= settings.SOCKET_REFUSALS


def _answer(text: str, refusal: dict[str, Any]) -> str:
    """A refusal as the act's own would be: ``{"reply": <the frame's id>, "status", "code", "message"}``."""
    try:
        ident = frame_id(text)
    except ValidationError:
        ident = None
    return json.dumps({"reply": ident, **refusal}, cls=DjangoJSONEncoder)


def on_logout(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """A session signed out: its sockets close everywhere (``user_logged_out``, wired in config.apps)."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if key:
        sockets_closed(sessions=[key])
