"""Fair play in the background, on a queue and a worker of its own at low priority (scripts/run.py: the
``fairplay`` worker runs niced), so screening never takes a core from the games being played.

- ``fairplay.screen_game``: one finished online game of a tournament, both players, once it has committed;
- ``fairplay.sweep``: every few minutes, the finished online games of tournaments not screened yet (a
  publish lost with the broker down, a worker stopped) and the assessments past their keeping date.
"""

from __future__ import annotations

import contextlib
from typing import Any

from celery import current_app, shared_task
from django.db import transaction

from fairplay import services
from games.enums import GameMode
from games.models import Game
from tournament.models import MatchGame

SWEEP_BATCH = 50


def after_game(game: Game, correction: bool, actor: Any) -> None:
    """A game ended (games.services.finish): a finished online game of a tournament is screened once this
    commits. Nothing is sent for any other game (a practice or casual game is never screened): a publish costs
    the finishing request its broker's round trip, and seconds of retries when the broker is down."""
    if correction or game.mode != GameMode.ONLINE or not MatchGame.objects.filter(game_id=game.pk).exists():
        return
    game_id = game.pk

    def publish() -> None:  # by name, as the ratings do: a failed publish is caught by the sweep
        with contextlib.suppress(Exception):
            current_app.tasks["fairplay.screen_game"].apply_async((game_id,), retry=False)

    transaction.on_commit(publish)


@shared_task(name="fairplay.screen_game", ignore_result=True)
def screen_game(game_id: int) -> int:
    return len(services.screen_game(game_id))


@shared_task(name="fairplay.sweep", ignore_result=True)
def sweep() -> int:
    """Screen what was missed, and delete what is past its keeping time (fairplay.services)."""
    done = sum(len(services.screen_game(pk)) for pk in services.unscreened(SWEEP_BATCH))
    services.purge_expired()
    return done
