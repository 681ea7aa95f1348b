"""Celery tasks that adjudicate clocks: one per deadline, and a sweep every second.

Both call :func:`games.services.game_settle`, which is idempotent: a stale,
early or repeated task changes nothing (clocks.md §6.6-6.7).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.utils import timezone

from games.enums import GameStatus
from games.models import Game
from games.services import game_settle

logger = logging.getLogger(__name__)
SWEEP_BATCH = 500


@shared_task(name="games.adjudicate", acks_late=True, ignore_result=True)
def adjudicate(game_id: int, version: int) -> str:
    """Settle ``game_id`` if its clock is still at ``version``; an early task re-enqueues itself."""
    outcome = game_settle(game_id=game_id, path="eta", expected_version=version)
    if outcome == "not_due":
        game = Game.objects.filter(pk=game_id, clock_version=version).only("deadline").first()
        if game is not None and game.deadline is not None:
            enqueue(game_id, version, game.deadline)
    return outcome


def enqueue(game_id: int, version: int, deadline: datetime) -> bool:
    """Ask a worker to settle the game just after ``deadline``; False when the broker cannot be reached.

    A failed publish loses nothing: the sweeper and the lazy checks settle the game.
    """
    if not settings.CLOCK_ETA_TASKS:
        return False
    eta = deadline + timedelta(milliseconds=settings.CLOCK_SLACK_MS)
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
    overdue = list(Game.objects.filter(status__in=GameStatus.active(), deadline__lt=cutoff)
                   .order_by("deadline").values_list("pk", flat=True)[:SWEEP_BATCH])
    applied = 0
    for game_id in overdue:
        if game_settle(game_id=game_id, path="sweeper") == "applied":
            applied += 1
    if applied:
        logger.info("sweep settled %d overdue games", applied)
    return applied


@worker_ready.connect
def _sweep_on_start(**_kwargs: Any) -> None:
    """A restarted worker settles what fell due while it was down, before waiting for beat."""
    sweep_overdue.delay()
