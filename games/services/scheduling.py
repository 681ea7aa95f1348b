"""What the games app asks its workers to do later, each sent after the commit that makes it due: a clock's
adjudication at its deadline, the computer's turn, an analysis, a no-show's forfeit.

The tasks themselves (:mod:`games.tasks`) call the services, so the services do not import them: a task is
sent by its name through the Celery app, where ``games/tasks.py`` registers it (``GamesConfig.ready`` loads
it in every process). Sending never fails the request: a failed publish is logged, and the sweeps (the
beat's, and a restarted worker's) settle or send again what was missed.

Two markers in Redis per game (``clock-due:<game>``, its current deadline, and ``clock-task:<game>``, when
the task now waiting is due) keep one adjudication pending per game rather than one per move: a move that
pushes the deadline later sends nothing, and the waiting task sends itself on to the new deadline."""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.enums import GameStatus
from games.models import Game
from games.selectors import game_state
from games.services.computer import computer_queue, computer_seat

logger = logging.getLogger(__name__)

ADJUDICATE = "games.adjudicate"
SWEEP_OVERDUE = "games.sweep_overdue"
FORFEIT_NO_SHOW = "games.forfeit_no_show"
COMPUTER_MOVE = "games.computer_move"
ANALYSE_GAME = "games.analyse_game"
ANY_VERSION = -1  # a task that follows a game's deadline, whatever moves were made since it was sent


def task(name: str) -> Any:
    """The registered Celery task called ``name``."""
    return current_app.tasks[name]


# -- the clock's adjudication ---------------------------------------------------------------------------

_redis: Any = None


def markers() -> Any:
    """Redis for the per-game markers (None when it cannot be reached: then every move sends a task)."""
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5)
    return _redis


HELD_RETRY_KEY = "clock-task:held-retry"


def claim_held_retry(after_s: float) -> bool:
    """May this task send the next look at held flags? One per ``after_s`` for every game: that look is a pass
    over every game due, so a round of held flags costs one pass per ``after_s``, not one per game (True when
    the markers cannot be read: then every task looks again, as before)."""
    found = markers()
    if found is None:
        return True
    try:
        return bool(found.set(HELD_RETRY_KEY, 1, nx=True, px=max(1, int(after_s * 1000))))
    except Exception:
        logger.warning("clock task markers unavailable", exc_info=True)
        return True


def pending_key(game_id: int) -> str:
    return f"clock-task:{game_id}"  # the instant the task now waiting for this game is due


def due_key(game_id: int) -> str:
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
        pipe = markers().pipeline(transaction=False)  # one round trip for both markers
        _done, waiting = pipe.set(due_key(game_id), when, ex=ttl).get(pending_key(game_id)).execute()
        if waiting is not None and float(waiting) <= when:
            return False
    except Exception:
        logger.warning("clock task markers unavailable; sending anyway", exc_info=True)
    return publish(game_id, version, when)


def publish(game_id: int, version: int, when: float) -> bool:
    """Send the adjudication of ``game_id`` for the instant ``when`` (a timestamp), and mark it pending."""
    eta = datetime.fromtimestamp(when, tz=UTC)
    try:
        markers().set(pending_key(game_id), when, ex=max(1, int(when - timezone.now().timestamp()) + 5))
    except Exception:
        logger.warning("clock task markers unavailable", exc_info=True)
    try:
        task(ADJUDICATE).apply_async((game_id, version), eta=eta, expires=eta + timedelta(minutes=10), retry=False)
    except Exception:
        logger.warning("could not enqueue the clock task for game %s", game_id, exc_info=True)
        return False
    return True


def schedule(game: Game) -> None:
    """After commit, make sure a worker adjudicates at the deadline (the sweeper covers a failed publish)."""
    if game.deadline is None or not settings.CLOCK_ETA_TASKS:
        return
    game_id, version, deadline = game.pk, game.clock_version, game.deadline
    transaction.on_commit(lambda: enqueue(game_id, version, deadline))


def schedule_no_show(game: Game) -> None:
    """After commit, the forfeit of a player marked absent at the deadline (the sweep covers a failure)."""
    if not settings.CLOCK_ETA_TASKS or game.absent_deadline is None:
        return
    game_id, eta = game.pk, game.absent_deadline

    def send() -> None:
        with contextlib.suppress(Exception):  # a failed publish: the sweep settles it
            task(FORFEIT_NO_SHOW).apply_async((game_id,), eta=eta, retry=False)

    transaction.on_commit(send)


# -- the computer ---------------------------------------------------------------------------------------


def call_computer(game: Game) -> None:
    """After commit, send the computer's turn to its queue if the computer is to act in ``game``."""
    if not game.practice or game.status not in GameStatus.active():
        return
    seat = computer_seat(game)
    if seat is None or int(game_state(game).to_act) != seat:
        return
    send_computer_turn(game.pk, game.ply, computer_queue(game), after_commit=True)


def send_computer_turn(game_id: int, ply: int, queue: str, after_commit: bool = False) -> None:
    """The computer's turn at ``ply`` to its queue (the broker down: the sweep sends it again)."""

    def send() -> None:
        try:
            task(COMPUTER_MOVE).apply_async((game_id, ply), queue=queue, retry=False)
        except Exception:
            logger.warning("could not send the computer's turn for game %s", game_id, exc_info=True)

    if after_commit:
        transaction.on_commit(send)
    else:
        send()


def send_analysis(game_id: int, queue: str) -> None:
    """After commit, the analysis of ``game_id`` to its queue."""

    def send() -> None:
        try:
            task(ANALYSE_GAME).apply_async((game_id,), queue=queue, retry=False)
        except Exception:
            logger.warning("could not queue the analysis of game %s", game_id, exc_info=True)

    transaction.on_commit(send)
