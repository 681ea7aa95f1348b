"""The tournament app listening to the games app (besides tournament.outcomes for finished games)."""

from __future__ import annotations

from typing import Any

from games import live
from tournament.models import MatchGame


def on_arbiter_call(sender: Any, game: Any, call: Any, **_: Any) -> None:
    """An arbiter call opened or answered: the game's tournament page and control room are told."""
    link = MatchGame.objects.filter(game=game).select_related("match").first()
    if link is not None:
        live.changed(f"tournament:{link.match.tournament_id}")
