"""What a live socket's watchers are sent: the state of a topic, read and rendered once per language.

Runs in the socket server's reads' thread (config.live), each read with the thread's own database
connection kept as a request keeps it. Topics: ``game:12`` (the game as the API shows it), ``player:12``
and ``referee:3`` (a console), ``tournament:3`` (the tournament's live parts), ``relay:3`` (the tournament's
relayed boards as the public sees them, after each stage's delay: relay.boards) and ``relaygame:12`` (one
relayed game as the public sees it). A relay state says when it next changes by itself (``refresh_at``):
the socket server reads it again then, so an entry reaches the public's sockets as it comes of age.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder

P = ParamSpec("P")
T = TypeVar("T")


def render(topic: str, lang: str) -> str | None:
    """The state a watcher of ``topic`` sees, as the JSON text sent to it (None if it no longer exists).

    Runs in the reads' thread (:func:`_pool`), so on one connection, besides the checks' and the moves'. Each keeps
    its database connection as a request would, up to ``CONN_MAX_AGE`` and while it works: on PostgreSQL
    a new connection per render is a new server process warming its caches (bench/open.py, docs/reliability.md)."""
    return with_database(_render, topic, lang)


def with_database(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``work(*args)`` in an executor thread, keeping the thread's connection as a request does: one broken
    or older than ``CONN_MAX_AGE`` is closed before and after. ``LIVE_KEEP_CONNECTIONS=false``: closed
    after every use (a server whose threads outlive its database, as the tests' in-process one)."""
    from django.db import close_old_connections, connection

    close_old_connections()
    try:
        return work(*args, **kwargs)
    finally:
        if settings.LIVE_KEEP_CONNECTIONS:
            close_old_connections()
        else:
            connection.close()


def _render(topic: str, lang: str) -> str | None:
    from django.utils import translation

    kind, _sep, ident = topic.partition(":")
    with translation.override(lang):
        if kind == "game":
            from games.models import Game
            from games.serializers import game_detail_data

            game = (
                Game.objects.filter(pk=int(ident))
                .select_related("player_one", "player_two")
                .prefetch_related("moves", "claims", "reports")
                .first()
            )
            if game is None:
                return None
            return json.dumps({"topic": topic, "game": game_detail_data(game)}, cls=DjangoJSONEncoder)
        if kind == "player":
            from django.template.loader import render_to_string

            from games.access import scope_of_link
            from games.models import Player
            from tournament.views import player_console_context

            number, _at, origin = ident.partition("@")  # player:12@5: as a link of tournament 5 reaches it
            player = Player.objects.filter(pk=int(number)).first()
            if player is None:
                return None
            scope = scope_of_link(int(origin)) if origin else None
            html = render_to_string(
                "tournament/_player_console.html", {**player_console_context(player, scope), "live_fragment": True}
            )
            return json.dumps({"topic": topic, "fragments": {"console": html}})
        if kind == "referee":
            from django.contrib.auth import get_user_model
            from django.template.loader import render_to_string

            from tournament.views import referee_console_context

            user = get_user_model().objects.filter(pk=int(ident)).first()
            if user is None:
                return None
            html = render_to_string(
                "tournament/_referee_console.html", {**referee_console_context(user), "live_fragment": True}
            )
            return json.dumps({"topic": topic, "fragments": {"console": html}})
        if kind in ("relay", "relaygame"):
            return _render_relay(topic, kind, int(ident))
        if kind == "tournament":
            from tournament.models import Tournament
            from tournament.views import fragments

            tournament = Tournament.objects.filter(pk=int(ident)).first()
            if tournament is None:
                return None
            return json.dumps({"topic": topic, "fragments": fragments(tournament)})
    return None


def referees_of(game_id: int) -> list[int]:
    from games.models import Game

    query = Game.referees.through.objects.filter(game_id=game_id).values_list("user_id", flat=True)
    return with_database(lambda: list(query))


def game_tournament(game_id: int) -> int | None:
    from tournament.models import MatchGame

    query = MatchGame.objects.filter(game_id=game_id).values_list("match__tournament_id", flat=True)
    return with_database(query.first)


def _render_relay(topic: str, kind: str, ident: int) -> str | None:
    from django.contrib.auth.models import AnonymousUser

    from games.enums import GameMode
    from games.models import Game
    from relay.boards import board_states
    from relay.services import relay_view
    from tournament.models import Tournament

    public = AnonymousUser()
    if kind == "relay":
        tournament = Tournament.objects.filter(pk=ident).exclude(status=Tournament.Status.DRAFT).first()
        if tournament is None:
            return None
        state = board_states(tournament, public)
        return json.dumps({"topic": topic, "boards": state["boards"], "refresh_at": state["refresh_at"]})
    game = Game.objects.filter(pk=ident, mode=GameMode.OVER_THE_BOARD).first()
    if game is None:
        return None
    view = relay_view(game, public)
    view.pop("as_of")  # the moment of the read: the same record read twice is the same state
    refresh_at = view.pop("refresh_at")
    return json.dumps({"topic": topic, "relay": view, "refresh_at": refresh_at}, cls=DjangoJSONEncoder)
