"""Clocks adjudicated by a real Celery worker on a real Redis, against PostgreSQL (clocks.md §6.9 #6, #28, #8)."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from devtools.processes import wait_until
from games.enums import GameStatus
from games.models import Game, GameEvent, Move
from games.services import GameError, game_act, game_create, game_settle
from games.tests.factories import PlayerFactory

pytestmark = [pytest.mark.pg_django, pytest.mark.celery, pytest.mark.django_db(transaction=True)]
FAST = {"preset": "quick", "move_ms": 2000}


def started_games(n: int, control: dict[str, Any] = FAST, started: timedelta = timedelta(0)) -> list[Game]:
    """``n`` games whose clocks started ``started`` ago."""
    at = timezone.now() - started
    return [
        game_create(player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=control, start_clock_at=at)
        for _ in range(n)
    ]


def wait_for_all_finished(ids: list[int], timeout: float) -> None:
    def finished() -> bool:
        return not Game.objects.filter(pk__in=ids).exclude(status=GameStatus.FINISHED).exists()

    wait_until(finished, timeout, "every game adjudicated")


def test_a_game_nobody_moves_in_is_adjudicated_by_the_worker_never_before_its_deadline(clock_workers: Any) -> None:
    # How late after the deadline is a figure of the machine, measured by bench/fairness.py (settle p99), not
    # a timed assertion here: this test checks who settles it, with what result, never early, exactly once.
    clock_workers()
    games = started_games(5)
    deadlines = {g.pk: g.deadline for g in games}

    wait_for_all_finished(list(deadlines), timeout=15)

    for game in Game.objects.filter(pk__in=deadlines):
        assert (game.status, game.result, game.result_reason) == (GameStatus.FINISHED, "white", "time")
        assert game.adjudicated_by in ("eta", "sweeper")
        assert game.finished_at >= deadlines[game.pk]  # never before the flag could fall
        assert GameEvent.objects.filter(game=game, kind="finished").count() == 1


def test_killed_worker_restarted_settles_every_overdue_game_exactly_once(clock_workers: Any) -> None:
    worker = clock_workers()
    worker.kill()
    # while no worker runs, games whose every deadline (with the lag allowance) has already passed: their
    # clocks started a minute ago; their tasks wait in the broker
    games = started_games(12, started=timedelta(minutes=1))
    ids = [g.pk for g in games]
    deadlines = {g.pk: g.deadline for g in games}
    assert all(g.deadline is not None and g.deadline < timezone.now() for g in games)
    assert Game.objects.filter(pk__in=ids, status=GameStatus.FINISHED).count() == 0

    clock_workers()  # on start it sweeps
    wait_for_all_finished(ids, timeout=20)

    for game in Game.objects.filter(pk__in=ids):
        assert game.result_reason == "time"
        assert GameEvent.objects.filter(game=game, kind="finished").count() == 1
        assert game.finished_at >= deadlines[game.pk]  # never before the deadline


def test_last_instant_move_racing_the_timeout_task_has_exactly_one_outcome() -> None:
    outcomes = {"move": 0, "timeout": 0}
    for _ in range(30):
        game = started_games(1, {"preset": "quick", "move_ms": 1000})[0]
        deadline = game.deadline
        assert deadline is not None
        barrier = threading.Barrier(2)

        def move(game: Game = game, deadline: Any = deadline, barrier: threading.Barrier = barrier) -> None:
            try:
                barrier.wait()
                game_act(
                    game_id=game.pk,
                    player=game.player_one,
                    action="place h8",
                    expected_ply=0,
                    at=deadline - timedelta(milliseconds=1),
                )
            except GameError:
                pass
            finally:
                connection.close()

        def task(game: Game = game, deadline: Any = deadline, barrier: threading.Barrier = barrier) -> None:
            try:
                barrier.wait()
                game_settle(game_id=game.pk, at=deadline + timedelta(milliseconds=1), path="eta")
            finally:
                connection.close()

        threads = [threading.Thread(target=move), threading.Thread(target=task)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        game.refresh_from_db()
        moved = Move.objects.filter(game=game).count()
        finished = GameEvent.objects.filter(game=game, kind="finished").count()
        assert (moved, finished) in ((1, 0), (0, 1)), (moved, finished)
        assert (game.status == GameStatus.FINISHED) == (finished == 1)
        outcomes["move" if moved else "timeout"] += 1
    assert sum(outcomes.values()) == 30
