"""Celery tasks that adjudicate clocks: a task waiting for each game's deadline, and a sweep every second.

Both call :func:`games.services.game_settle`, which is idempotent: a stale,
early or repeated task changes nothing to the game (clocks.md §6.6-6.7).
Two markers in Redis per game (``clock-due:<game>``, its current deadline,
and ``clock-task:<game>``, when the task now waiting is due) keep one task
per game pending rather than one per move: a move that pushes the deadline
later sends nothing, and the waiting task sends itself on to the new deadline.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from games.enums import GameStatus, Settled
from games.models import Game
from games.services import games_settle_due

logger = logging.getLogger(__name__)
SWEEP_BATCH = 500
HOLD_RETRY_S = 0.2


ANY_VERSION = -1  # a task that follows a game's deadline, whatever moves were made since it was sent


@shared_task(name="games.adjudicate", acks_late=True, ignore_result=True)
def adjudicate(game_id: int, version: int) -> Settled:
    """Settle ``game_id`` if its clock is still at ``version`` (or at any version: ``ANY_VERSION``).

    A stale or early task changes nothing. If the game's deadline has moved
    later (moves were made), the task sends itself on to the new deadline
    without touching the database, so each game keeps one task pending
    instead of one per move.
    """
    markers = _markers()
    due = None
    if markers is not None:
        try:
            markers.delete(_pending_key(game_id))
            raw = markers.get(_due_key(game_id))
            due = float(raw) if raw is not None else None
        except Exception:
            logger.warning("clock task markers unavailable", exc_info=True)
    if due is not None and due > timezone.now().timestamp() + 0.02:
        _publish(game_id, ANY_VERSION, due)
        return Settled.STALE
    now = timezone.now()
    settled = games_settle_due(at=now, path="eta")  # this game and every other one due: one pass for a burst
    game = Game.objects.filter(pk=game_id, status__in=GameStatus.active()).only("deadline", "clock_version").first()
    if game is None or game.deadline is None:
        return Settled.APPLIED if settled else Settled.FINISHED
    if game.deadline <= now:  # held: a request that arrived in time is still being served; look again shortly
        _publish(game_id, ANY_VERSION, timezone.now().timestamp() + HOLD_RETRY_S)
        return Settled.HELD
    enqueue(game_id, ANY_VERSION, game.deadline)  # not due yet (moves were made): follow the new deadline
    return Settled.STALE if version not in (ANY_VERSION, game.clock_version) else Settled.NOT_DUE


_redis: Any = None


def _markers() -> Any:
    """Redis for the per-game markers (None when it cannot be reached: then every move sends a task)."""
    global _redis
    if _redis is None:
        import redis

        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5)
    return _redis


def _pending_key(game_id: int) -> str:
    return f"clock-task:{game_id}"  # the instant the task now waiting for this game is due


def _due_key(game_id: int) -> str:
    return f"clock-due:{game_id}"  # the instant the game's current deadline (plus slack) passes


def enqueue(game_id: int, version: int, deadline: datetime) -> bool:
    """Make sure a worker settles the game just after ``deadline``; True when a task was sent.

    Records the deadline; sends a task only if none waits for an earlier (or
    the same) instant, because that task will follow the deadline. A failed
    publish loses nothing: the sweeper and the lazy checks settle the game.
    """
    if not settings.CLOCK_ETA_TASKS:
        return False
    when = (deadline + timedelta(milliseconds=settings.CLOCK_SLACK_MS)).timestamp()
    ttl = max(1, int(when - timezone.now().timestamp()) + 60)
    try:
        markers = _markers()
        markers.set(_due_key(game_id), when, ex=ttl)
        waiting = markers.get(_pending_key(game_id))
        if waiting is not None and float(waiting) <= when:
            return False
    except Exception:
        logger.warning("clock task markers unavailable; sending anyway", exc_info=True)
    return _publish(game_id, version, when)


def _publish(game_id: int, version: int, when: float) -> bool:
    eta = datetime.fromtimestamp(when, tz=UTC)
    try:
        _markers().set(_pending_key(game_id), when, ex=max(1, int(when - timezone.now().timestamp()) + 5))
    except Exception:
        logger.warning("clock task markers unavailable", exc_info=True)
    try:
        adjudicate.apply_async((game_id, version), eta=eta, expires=eta + timedelta(minutes=10), retry=False)
    except Exception:
        logger.warning("could not enqueue the clock task for game %s", game_id, exc_info=True)
        return False
    return True


@shared_task(name="games.sweep_overdue", ignore_result=True)
def sweep_overdue() -> int:
    """Settle every game whose deadline passed more than the slack ago; returns how many were applied."""
    cutoff = timezone.now() - timedelta(milliseconds=settings.CLOCK_SLACK_MS)
    applied = games_settle_due(at=cutoff, path="sweeper", limit=SWEEP_BATCH)
    if applied:
        logger.info("sweep settled %d overdue games", applied)
    for game_id in Game.objects.filter(
        status__in=GameStatus.active() | {GameStatus.PENDING}, absent_deadline__lt=timezone.now()
    ).values_list("pk", flat=True)[:SWEEP_BATCH]:
        forfeit_no_show(game_id)
    return applied


@shared_task(name="games.forfeit_no_show", acks_late=True, ignore_result=True)
def forfeit_no_show(game_id: int) -> None:
    """A player marked absent who has not come by the deadline forfeits (idempotent)."""
    from games.forfeits import game_forfeit_no_show

    game_forfeit_no_show(game_id=game_id)


def sweep_on_start(**_kwargs: Any) -> None:
    """A restarted worker settles what fell due while it was down, before waiting for beat."""
    sweep_overdue.delay()


@shared_task(name="games.computer_move", acks_late=True, ignore_result=True)
def computer_move(game_id: int, ply: int) -> str:
    """The computer's turn in a practice game (idempotent: a stale ply changes nothing)."""
    from games.services.computer import computer_turn

    return computer_turn(game_id, ply)


@shared_task(name="games.analyse_game", acks_late=True, ignore_result=True)
def analyse_game(game_id: int) -> str:
    from games.services.analysis import analysis_run

    return analysis_run(game_id)


def computer_on_start(**_kwargs: Any) -> None:
    """A restarted worker sends again the computer turns that were waiting (a stale one changes nothing)."""
    from games.services.computer import computer_games_due

    try:
        for game_id, ply, queue in computer_games_due():
            computer_move.apply_async((game_id, ply), queue=queue, retry=False)
    except Exception:
        logger.warning("could not resume the computer's turns", exc_info=True)
