"""A rated tournament on a fresh install, as `make run` serves it: no rating list exists; the tournament
starts (its category's lists are made), finishes, and a real Celery worker on a real Redis rates its games
into them (PostgreSQL, the worker being another process)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from games.models import Player
from ratings.models import Rating, RatingList
from ratings.services import category_of
from tournament import services
from tournament.models import Tournament
from tournament.tests.helpers import play_round

pytestmark = [pytest.mark.pg_django, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def test_a_finished_rated_tournament_is_rated_by_the_worker_into_lists_made_at_its_start(
    default_worker: Any, settings: Any
) -> None:
    assert not RatingList.objects.exists()  # a fresh install
    tournament = services.tournament_create(name="Rated", preset="swiss", stage_options={"rounds": 2}, rated=True)
    for n in range(6):
        services.register(tournament=tournament, player=Player.objects.create(name=f"R{n}", rating=1800 + n))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    rng = random.Random(3)
    for _round in range(2):
        services.pair_next_round(stage=stage)
        play_round(stage, rng)
    services.advance(stage=stage)  # finished: the task is sent once the transaction commits
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED

    lists = RatingList.objects.filter(category=category_of(tournament.rules))  # the Swiss preset: renju
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and Rating.objects.filter(rating_list__in=lists).count() < 12:
        time.sleep(0.2)
    assert sorted(lists.values_list("method", flat=True)) == ["elo", "whr"]
    for rating_list in lists:
        assert Rating.objects.filter(rating_list=rating_list).count() == 6
        assert RatingList.objects.get(pk=rating_list.pk).computed_at is not None
