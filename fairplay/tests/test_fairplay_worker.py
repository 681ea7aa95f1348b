"""A finished online game of a tournament screened by a real Celery worker on the ``fairplay`` queue (prefork,
as ``make run`` starts it), on a real Redis, against PostgreSQL: the game's end publishes the task once its
transaction has committed, and the worker stores both players' screenings."""

from __future__ import annotations

from typing import Any

import pytest

from devtools.processes import wait_until
from fairplay.models import Screening
from fairplay.tests.helpers import played, round_one

pytestmark = [pytest.mark.pg_django, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def test_a_games_end_has_it_screened_by_the_fairplay_worker(fairplay_worker: Any) -> None:
    _tournament, games = round_one()
    game = played(games[0])  # resigned: the follower publishes fairplay.screen_game on commit
    wait_until(lambda: Screening.objects.filter(game=game).count() == 2, 60, "both players' screenings")
    black = Screening.objects.get(game=game, player=game.black)
    assert black.moves and black.moves[0]["forced"] == "opening" and "z" in black.stats
