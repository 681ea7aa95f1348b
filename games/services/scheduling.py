"""What the games app asks its workers to do later, each sent after the commit that makes it due: a clock's
adjudication at its deadline, the computer's turn, an analysis, a no-show's forfeit.

The tasks themselves (:mod:`games.tasks`) call the services, so the services do not import them: a task is
sent by its name through the Celery app, where ``games/tasks.py`` registers it (``GamesConfig.ready`` loads
it in every process). Sending never fails the request: a failed publish is logged, and the sweeps (the
beat's, and a restarted worker's) settle or send again what was missed.

The clock's deadlines are gathered in slices of :data:`SLICE_MS`: one task per slice in which any game's
deadline falls, due at the slice's end plus the slack, settles every game then due (one pass over the
deadline's index). A marker in Redis per slice (``clock-slice:<instant>``) says its task is sent, so a move
that moves a deadline into a slice already covered sends nothing, and a round whose clocks started together
costs one task, not one per game. (A task per game, following its deadline, cost a message every ~30 s
for each game and a burst of 1,000 as a round's first turns ran out together: issue 43.)"""

from __future__ import annotations

import contextlib
import logging
import math
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
ADJUDICATE_DUE = "games.adjudicate_due"
SWEEP_OVERDUE = "games.sweep_overdue"
FORFEIT_NO_SHOW = "games.forfeit_no_show"
COMPUTER_MOVE = "games.computer_move"
ANALYSE_GAME = "games.analyse_game"
ANY_VERSION = -1  # a task that follows a game's deadline, whatever moves were made since it was sent
SLICE_MS = 250  # deadlines this close share one task (a flag waits at most this much longer for it)


def task(name: str) -> Any:
    """The registered Celery task called ``name``."""
    return current_app.tasks[name]


# -- the clock's adjudication ---------------------------------------------------------------------------

_redis: Any = None


def markers() -> Any:
    """Redis for the clock's markers (when it cannot be reached, every move sends a task)."""
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


def slice_key(when: float) -> str:
    return f"clock-slice:{round(when * 1000)}"  # the task that settles what is due by this instant is sent


def slice_end(deadline: datetime) -> float:
    """The instant (a timestamp) a deadline's task runs: the end of its slice, plus the slack."""
    ms = (deadline + timedelta(milliseconds=settings.CLOCK_SLACK_MS)).timestamp() * 1000
    return math.ceil(round(ms) / SLICE_MS) * SLICE_MS / 1000  # whole milliseconds: 0.1 + 0.2 is not 0.3


def enqueue(deadline: datetime) -> bool:
    """Make sure a worker settles the games due just after ``deadline``; True when a task was sent.

    Sends the task of the deadline's slice unless it is sent already (its marker in Redis). Without Redis
    every call sends one. A failed publish loses nothing: the sweeper and the lazy checks settle the game.
    A slice this process has found marked is remembered here (:data:`known_slices`), so the moves that share
    it ask Redis once, not once each: 14 moves a slice in a round of 1,000 games, and the one round trip a
    move made was a tenth of the socket server's time (issue 43).
    """
    if not settings.CLOCK_ETA_TASKS:
        return False
    when = slice_end(deadline)
    if known_slices.known(when):
        return False
    try:
        ttl_ms = max(1000, int((when - timezone.now().timestamp()) * 1000) + 60_000)
        if not markers().set(slice_key(when), 1, nx=True, px=ttl_ms):
            known_slices.add(when)
            return False
    except Exception:
        logger.warning("clock task markers unavailable; sending anyway", exc_info=True)
        return publish_due(when)
    known_slices.add(when)
    return publish_due(when)


class KnownSlices:
    """The slices whose markers this process has set or found set, until their end has passed."""

    def __init__(self) -> None:
        self.ends: set[float] = set()

    def known(self, when: float) -> bool:
        return when in self.ends

    def add(self, when: float) -> None:
        if len(self.ends) >= 4096:  # a round's 30 s of slices are 300: drop those past
            now = timezone.now().timestamp()
            self.ends = {end for end in self.ends if end > now}
        self.ends.add(when)


known_slices = KnownSlices()


def publish_due(when: float) -> bool:
    """Send the settling of every game due at ``when`` (a timestamp)."""
    eta = datetime.fromtimestamp(when, tz=UTC)
    try:
        task(ADJUDICATE_DUE).apply_async((when,), eta=eta, expires=eta + timedelta(minutes=10), retry=False)
    except Exception:
        logger.warning("could not enqueue the clock task for %s", eta.isoformat(), exc_info=True)
        return False
    return True


def publish(game_id: int, version: int, when: float) -> bool:
    """Send the adjudication of ``game_id`` alone for the instant ``when`` (a timestamp)."""
    eta = datetime.fromtimestamp(when, tz=UTC)
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
    deadline = game.deadline
    transaction.on_commit(lambda: enqueue(deadline))


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
