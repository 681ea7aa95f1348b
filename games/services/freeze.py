"""A server that stood still charges nobody for it (clocks.md §6.11; issue 43).

When the whole server stops — a host pausing the virtual machine for a snapshot, a migration, every process
stopped at once — no move can arrive and no clock can be read, but the wall clock runs on: on resuming, the
first reads would flag every player whose turn covered the stop. So every long-running process (the web
workers, the live-push server, the Celery worker and beat) writes a heartbeat, the instant it last ran
(:func:`tick`, about once a second, ``config.heartbeat``). A stop of the whole server is a gap in it.

The rule for what runs first after a resume: before anything flags or charges a clock — a move, a read that
settles, the worker's sweep or deadline task, a heartbeat — :func:`guard` reads the heartbeat. If it is older
than ``CLOCK_FREEZE_MS``, the span from it to now is a freeze: it is recorded once (a :class:`ServerFreeze`
row, unique by its start, so two processes that find it together credit it once) and credited to every
running clock in the same transaction (:func:`games.clock.freeze`: the side to act's turn, or a pending
draw offer's reply time, skips it), and only then is the heartbeat moved on. A flag that had fallen before the
stop still falls.

Which store holds the heartbeat is the site's to say (:func:`use_heartbeat`, ``config.apps``: Redis, shared
by every process). Without one nothing is detected (tests, a single command).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Protocol

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import clock
from games.enums import GameMode, GameStatus, Interface
from games.models import Game, ServerFreeze
from games.selectors import clock_of, control_of, from_ms, ms
from games.services.base import clock_apply
from games.services.scheduling import schedule

logger = logging.getLogger(__name__)


class Heartbeat(Protocol):
    def read(self) -> int | None:
        """The last instant any process ran (ms since the epoch), or None if none has written it."""

    def write(self, at_ms: int) -> None: ...


_store: list[Heartbeat | None] = [None]
_fresh_at: list[float] = [float("-inf")]  # when this process last found the heartbeat fresh (monotonic s)


def use_heartbeat(store: Heartbeat | None) -> Heartbeat | None:
    """Set where the heartbeat is kept; returns the previous store."""
    previous, _store[0] = _store[0], store
    _fresh_at[0] = float("-inf")
    return previous


def guard(path: str = "lazy_read") -> int:
    """Credit a stop of the whole server found since the heartbeat, before a clock is read or charged.

    Returns how many clocks were credited (0: no stop). Cheap when nothing stopped: the heartbeat is read at
    most once per ``CLOCK_FREEZE_RECHECK_MS`` in a process (a stop long enough to count cannot begin and end
    within that time while the process itself ran)."""
    store = _store[0]
    if store is None or settings.CLOCK_FREEZE_MS <= 0:
        return 0
    checked = time.monotonic()
    if (checked - _fresh_at[0]) * 1000 < settings.CLOCK_FREEZE_RECHECK_MS:
        return 0
    now = ms(timezone.now())
    try:
        last = store.read()
    except Exception as exc:  # the heartbeat cannot be read: nothing is known to have stopped
        logger.warning("clock heartbeat unreadable: %s", exc)
        return 0
    if last is None or now - last <= settings.CLOCK_FREEZE_MS:
        _fresh_at[0] = checked
        return 0
    credited = credit(last, now, path)
    transaction.on_commit(lambda: _moved_on(store, now, checked))
    return credited


def _moved_on(store: Heartbeat, now: int, checked: float) -> None:
    try:
        store.write(now)
    except Exception as exc:
        logger.warning("clock heartbeat not written: %s", exc)
        return
    _fresh_at[0] = checked


def tick(path: str = "heartbeat") -> int:
    """A process is running: credit a stop it finds, then write the heartbeat. Returns the clocks credited."""
    store = _store[0]
    if store is None:
        return 0
    _fresh_at[0] = float("-inf")  # always read: the heartbeat is what finds a stop when nothing else runs
    credited = guard(path)
    store.write(ms(timezone.now()))
    return credited


@transaction.atomic
def credit(since_ms: int, until_ms: int, path: str) -> int:
    """Record the stop from ``since_ms`` to ``until_ms`` and credit it to every running online clock, once.

    Returns how many clocks it changed; 0 when another process recorded this stop first."""
    try:
        with transaction.atomic():
            freeze = ServerFreeze.objects.create(since_ms=since_ms, until_ms=until_ms, detected_by=path[:20])
    except IntegrityError:
        return 0
    changed: list[Game] = []
    for game in (
        Game.objects.select_for_update()
        .filter(status__in=GameStatus.active(), mode=GameMode.ONLINE, deadline__isnull=False)
        .order_by("pk")
    ):
        state, events = clock.freeze(clock_of(game), control_of(game), since_ms, until_ms)
        if events:
            clock_apply(game, state, events, Interface.SYSTEM)
            changed.append(game)
    Game.objects.bulk_update(changed, ["clock", "clock_version", "deadline"], batch_size=500)
    for game in changed:
        schedule(game)
    # A player marked absent could not come to a server that stood still: the forfeit waits as long.
    since = from_ms(since_ms)
    for game in Game.objects.select_for_update().filter(status__in=GameStatus.active(), absent_deadline__gt=since):
        assert game.absent_deadline is not None
        game.absent_deadline += timedelta(milliseconds=until_ms - since_ms)
        game.save(update_fields=["absent_deadline"])
    freeze.clocks = len(changed)
    freeze.save(update_fields=["clocks"])
    logger.warning("the server stood still %.1f s: %d clocks credited", (until_ms - since_ms) / 1000, len(changed))
    return len(changed)
