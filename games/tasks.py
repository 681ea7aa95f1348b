"""Celery tasks that adjudicate clocks: a task for each slice of deadlines, and a sweep every second.

Both call :func:`games.services.game_settle`, which is idempotent: a stale,
early or repeated task changes nothing to the game (clocks.md §6.6-6.7).
The services send these tasks by name (:mod:`games.services.scheduling`, which keeps
one task pending per 250-ms slice of deadlines with a marker in Redis); the tasks
call the services.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from games.enums import GameStatus, Settled
from games.forfeits import game_forfeit_no_show
from games.models import Game
from games.selectors import clocks_due, overdue_no_shows
from games.services import games_settle_due, scheduling
from games.services.analysis import analysis_run
from games.services.computer import computer_games_due
from games.services.practice import computer_turn
from games.services.scheduling import ANY_VERSION

logger = logging.getLogger(__name__)
SWEEP_BATCH = 500
HOLD_RETRY_S = 0.2


@shared_task(name="games.adjudicate_due", acks_late=True, ignore_result=True)
def adjudicate_due(when: float) -> int:
    """Settle every game due by now: the task of the slice of deadlines that ends at ``when`` (a timestamp,
    :func:`games.services.scheduling.enqueue`); returns how many were settled.

    Run before the slice's end, it settles what is due and is sent again for the end, when the rest of the
    slice falls due. A flag that waits for a request still being served (games.flaghold), or a burst larger
    than one pass takes, is looked at again shortly, by one task for every game then due.
    """
    now = timezone.now()
    settled = games_settle_due(at=now, path="eta")
    if now.timestamp() < when - 0.02:
        scheduling.publish_due(when)
    else:
        _look_again_if_due(now)
    return settled


def _look_again_if_due(now: datetime) -> bool:
    """Games still due after a pass (held, or more than one pass takes): one more look shortly, for all."""
    if clocks_due(now).exists() and scheduling.claim_held_retry(HOLD_RETRY_S):
        return scheduling.publish_due(timezone.now().timestamp() + HOLD_RETRY_S)
    return False


@shared_task(name="games.adjudicate", acks_late=True, ignore_result=True)
def adjudicate(game_id: int, version: int) -> Settled:
    """Settle ``game_id`` if its clock is still at ``version`` (or at any version: ``ANY_VERSION``): one game's
    task, as sent before deadlines were gathered in slices (a message still queued from then), and by hand.

    A stale or early task changes nothing; a game whose deadline has moved later is left to its slice's task.
    """
    now = timezone.now()
    settled = games_settle_due(at=now, path="eta")  # this game and every other one due: one pass for a burst
    game = Game.objects.filter(pk=game_id, status__in=GameStatus.active()).only("deadline", "clock_version").first()
    if game is None or game.deadline is None:
        return Settled.APPLIED if settled else Settled.FINISHED
    if game.deadline <= now:  # held: a request that arrived in time is still being served; look again shortly
        if scheduling.claim_held_retry(HOLD_RETRY_S):  # one look covers every held game (a pass over all due)
            scheduling.publish(game_id, ANY_VERSION, timezone.now().timestamp() + HOLD_RETRY_S)
        return Settled.HELD
    scheduling.enqueue(game.deadline)  # not due yet (moves were made): its slice's task settles it
    return Settled.STALE if version not in (ANY_VERSION, game.clock_version) else Settled.NOT_DUE


@shared_task(name="games.sweep_overdue", ignore_result=True)
def sweep_overdue() -> int:
    """Settle every game whose deadline passed more than the slack ago; returns how many were applied."""
    cutoff = timezone.now() - timedelta(milliseconds=settings.CLOCK_SLACK_MS)
    applied = games_settle_due(at=cutoff, path="sweeper", limit=SWEEP_BATCH)
    if applied:
        logger.info("sweep settled %d overdue games", applied)
    for game_id in overdue_no_shows(timezone.now(), SWEEP_BATCH):
        forfeit_no_show(game_id)
    return applied


@shared_task(name="games.forfeit_no_show", acks_late=True, ignore_result=True)
def forfeit_no_show(game_id: int) -> None:
    """A player marked absent who has not come by the deadline forfeits (idempotent)."""
    game_forfeit_no_show(game_id=game_id)


def sweep_on_start(**_kwargs: Any) -> None:
    """A restarted worker settles what fell due while it was down, before waiting for beat."""
    sweep_overdue.delay()


@shared_task(name="games.computer_move", acks_late=True, ignore_result=True)
def computer_move(game_id: int, ply: int) -> str:
    """The computer's turn in a practice game (idempotent: a stale ply changes nothing)."""
    return computer_turn(game_id, ply)


@shared_task(name="games.analyse_game", acks_late=True, ignore_result=True)
def analyse_game(game_id: int) -> str:
    return analysis_run(game_id)


def computer_on_start(**_kwargs: Any) -> None:
    """A restarted worker sends again the computer turns that were waiting (a stale one changes nothing)."""
    try:
        for game_id, ply, queue in computer_games_due():
            scheduling.send_computer_turn(game_id, ply, queue)
    except Exception:
        logger.warning("could not resume the computer's turns", exc_info=True)
