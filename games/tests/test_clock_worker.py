"""Clocks adjudicated by a real Celery worker on a real Redis, against PostgreSQL (clocks.md §6.9 #6, #28, #8)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games.enums import GameStatus
from games.models import Game, GameEvent, Move
from games.services import GameError, game_act, game_create, game_settle
from games.tests.factories import PlayerFactory

pytestmark = [pytest.mark.pg_django, pytest.mark.celery, pytest.mark.django_db(transaction=True)]
FAST = {"preset": "quick", "move_ms": 2000}


def started_games(n: int, control: dict[str, Any] = FAST) -> list[Game]:
    now = timezone.now()
    return [
        game_create(player_one=PlayerFactory(), player_two=PlayerFactory(), time_control=control, start_clock_at=now)
        for _ in range(n)
    ]


def wait_for_all_finished(ids: list[int], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not Game.objects.filter(pk__in=ids).exclude(status=GameStatus.FINISHED).exists():
            return
        time.sleep(0.05)


def test_a_game_nobody_moves_in_is_adjudicated_by_the_worker_within_a_second(clock_workers: Any) -> None:
    clock_workers()
    games = started_games(5)
    deadlines = {g.pk: g.deadline for g in games}

    wait_for_all_finished(list(deadlines), timeout=15)

    for game in Game.objects.filter(pk__in=deadlines):
        assert (game.status, game.result, game.result_reason) == (GameStatus.FINISHED, "white", "time")
        assert game.adjudicated_by in ("eta", "sweeper")
        lateness = game.finished_at - deadlines[game.pk]
        assert timedelta(0) <= lateness < timedelta(seconds=1), lateness
        assert GameEvent.objects.filter(game=game, kind="finished").count() == 1


def test_killed_worker_restarted_settles_every_overdue_game_exactly_once(clock_workers: Any) -> None:
    worker = clock_workers()
    games = started_games(12)
    ids = [g.pk for g in games]
    time.sleep(0.5)  # the worker has received the ETA tasks
    worker.kill()
    # every deadline (the stored one includes the lag allowance) passes while no worker runs
    last = max(g.deadline for g in games if g.deadline is not None)
    time.sleep(max(0.0, (last - timezone.now()).total_seconds()) + 0.5)
    assert Game.objects.filter(pk__in=ids, status=GameStatus.FINISHED).count() == 0

    clock_workers()  # on start it sweeps
    wait_for_all_finished(ids, timeout=20)

    for game in Game.objects.filter(pk__in=ids):
        assert game.result_reason == "time"
        assert GameEvent.objects.filter(game=game, kind="finished").count() == 1
        assert game.finished_at >= game.created_at + timedelta(seconds=2)  # never before the deadline


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
