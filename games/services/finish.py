"""The one way games end (lichess's Finisher): :func:`finish_games` for every cause — a five, a forbidden
move, a resignation, a draw, a confirmed report, a ruling, an override, a forfeit, a loss on time one game at
a time or a whole burst from the sweeper.

In one transaction it writes each game's result and closing clock, logs the events, and records a
:class:`~games.models.FollowUp` — the outbox of what the apps above (a tournament) still have to do. Then,
as a separate step, the follow-ups run: each in its own savepoint, through the followers the apps above
registered in their ``AppConfig.ready`` (:func:`follow_finished_games`; the games app knows nothing of
them). A follow-up that fails cannot undo the result: it is rolled back alone, logged, kept with its error
and tried again by the sweeper (:func:`retry_follow_ups`). Followers only follow: they cannot refuse.

An organizer's correction of a finished result is asked about before anything is written: the apps above
register guards (:func:`ask_before_correcting`) that may refuse it (a :class:`GameError`, e.g. a
tournament's next stage already under way, until the organizer confirms there). The games app knows
nothing of why.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import clock, live
from games.enums import EventKind, GameStatus, Interface
from games.models import FollowUp, Game, GameEvent
from games.prepared import PreparedUpdate
from games.selectors import clock_of
from games.services.base import finished_fields

logger = logging.getLogger(__name__)

# (game, correction, actor): what an app above does once a game has ended
Follower = Callable[[Game, bool, Any], None]
FOLLOWERS: list[Follower] = []
# (game, result, reason): raises a GameError to refuse a correction before it is written
Guard = Callable[[Game, str, str], None]
GUARDS: list[Guard] = []
RETRY_LIMIT = 20
IN_FLIGHT = timedelta(seconds=30)  # a follow-up not yet run this long after its game's end was dropped


def follow_finished_games(follower: Follower) -> None:
    """Register what an app above does after a game ends (called from its ``AppConfig.ready``)."""
    if follower not in FOLLOWERS:
        FOLLOWERS.append(follower)


def ask_before_correcting(guard: Guard) -> None:
    """Register a question an app above asks before a result is corrected (from its ``AppConfig.ready``)."""
    if guard not in GUARDS:
        GUARDS.append(guard)


def check_correction(game: Game, result: str, reason: str) -> None:
    """Ask the apps above whether ``game`` may take the corrected result; a refusal is raised, nothing written."""
    for guard in GUARDS:
        guard(game, result, reason)


@dataclass(frozen=True)
class Ending:
    """How one game ends. ``settled``: the clock as the sweeper settled it, with the events that led there
    (a flag), not yet logged; by default the game's own clock."""

    game: Game
    result: str
    reason: str
    detail: str = ""
    settled: tuple[clock.ClockState, list[clock.Event]] | None = None
    adjudicated_by: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def game_finish(
    *,
    game: Game,
    result: str,
    reason: str,
    detail: str = "",
    actor: Any = None,
    interface: str = "api",
    correction: str = "",
    adjudicated_by: str = "",
) -> Game:
    """One game ended (see :func:`finish_games`). Idempotent: a finished game is returned unchanged.

    With ``correction`` (the organizer's reason) a finished result is replaced; the previous one stays in
    the event log. The caller has asked :func:`check_correction` first.
    """
    ending = Ending(game, result, reason, detail, adjudicated_by=adjudicated_by)
    return finish_games([ending], actor=actor, interface=interface, correction=correction)[0]


def finish_games(
    endings: Sequence[Ending],
    *,
    actor: Any = None,
    interface: str = "api",
    correction: str = "",
) -> list[Game]:
    """End the games: write the results, then run what follows them. Returns the games as they now are."""
    run_follow_ups(record_endings(endings, actor=actor, interface=interface, correction=correction))
    return [e.game for e in endings]


def record_endings(
    endings: Sequence[Ending], *, actor: Any = None, interface: str = "api", correction: str = ""
) -> list[FollowUp]:
    """The first step of :func:`finish_games`: the results, their events and their outbox rows, in one
    transaction; returns the follow-ups for :func:`run_follow_ups`. A caller that writes a burst in
    transactions of its own (the sweeper: SQLite has one write lock, and the moves wait behind it) runs
    them once its writes have committed, outside its locks."""
    with transaction.atomic():
        ended = _write(endings, actor, interface, correction)
        return FollowUp.objects.bulk_create(
            [FollowUp(game=g, correction=bool(correction), actor=_user(actor)) for g in ended]
        )


def run_follow_ups(follow_ups: Sequence[FollowUp]) -> int:
    """Run what follows each ended game (the results are written; what follows cannot undo them)."""
    return sum(run_follow_up(follow_up) for follow_up in follow_ups)


def _user(actor: Any) -> Any:
    return actor if getattr(actor, "pk", None) else None


_FINISHED: dict[tuple[str, ...], PreparedUpdate[Game]] = {}


def _finished_update(names: tuple[str, ...]) -> PreparedUpdate[Game]:
    """The update of an ended game's columns, its SQL built once. For a burst, one short statement a game:
    Django's ``bulk_update`` builds a ``CASE`` per column over every row, which cost 150 ms of a 50-game pass's
    360 (issue 43: a slice of deadlines settles its games together)."""
    found = _FINISHED.get(names)
    if found is None:
        found = _FINISHED[names] = PreparedUpdate(Game, list(names))
    return found


def _write(endings: Sequence[Ending], actor: Any, interface: str, correction: str) -> list[Game]:
    """The games' own rows: one conditional update for a single game (no lock needed), one prepared update a
    game for a burst the caller has locked (the sweeper, a slice's task)."""
    now = timezone.now()
    ended: list[Game] = []
    log: list[GameEvent] = []
    rows: list[tuple[Game, tuple[str, ...]]] = []
    for ending in endings:
        game = ending.game
        state, events = ending.settled or (clock_of(game), [])
        before = {"result": game.result, "reason": game.result_reason, "detail": game.result_detail}
        fields, closing = finished_fields(state, ending.result, ending.reason, ending.detail, now)
        if ending.adjudicated_by:
            fields["adjudicated_by"] = ending.adjudicated_by
        if len(endings) == 1:
            open_games = Game.objects.filter(pk=game.pk).exclude(status=GameStatus.CANCELLED)
            if not correction:
                open_games = open_games.exclude(status=GameStatus.FINISHED)
            updated = open_games.update(**fields)
            game.refresh_from_db()
            if not updated:
                continue
        else:
            if game.status == GameStatus.CANCELLED or (game.status == GameStatus.FINISHED and not correction):
                continue
            for name, value in fields.items():
                setattr(game, name, value)
            rows.append((game, tuple(fields)))
        system = Interface.SYSTEM if ending.settled else interface
        log += [
            GameEvent(game=game, kind=EventKind.CLOCK, interface=system, data={"op": e.op, "at": e.at, "args": e.args})
            for e in [*events, *closing]
        ]
        data = {"result": ending.result, "reason": ending.reason, "detail": ending.detail, **ending.extra}
        if correction:
            log.append(
                GameEvent(
                    game=game,
                    kind=EventKind.CORRECTED,
                    actor=_user(actor),
                    interface=interface,
                    data={**data, "previous": before, "note": correction},
                )
            )
        else:
            log.append(GameEvent(game=game, kind=EventKind.FINISHED, actor=_user(actor), interface=system, data=data))
        ended.append(game)
    for game, names in rows:
        _finished_update(names).update(game)
    GameEvent.objects.bulk_create(log)
    for game in ended:
        live.game_changed(game)
    return ended


def run_follow_up(follow_up: FollowUp) -> bool:
    """Run what follows one ended game, in a savepoint of its own; True when done. A failure is rolled back
    alone and kept on the row for :func:`retry_follow_ups`."""
    game = follow_up.game  # the ended game as just written, or read now (a retry)
    try:
        with transaction.atomic():
            for follower in FOLLOWERS:
                follower(game, follow_up.correction, follow_up.actor)
    except Exception:
        return _failed(follow_up)
    FollowUp.objects.filter(pk=follow_up.pk).update(done_at=timezone.now(), attempts=follow_up.attempts + 1)
    return True


def _failed(follow_up: FollowUp) -> bool:
    logger.exception("what follows game %s failed; the result stands and it is tried again", follow_up.game_id)
    FollowUp.objects.filter(pk=follow_up.pk).update(
        attempts=follow_up.attempts + 1, error=traceback.format_exc(limit=5)[-2000:]
    )
    return False


def retry_follow_ups(limit: int = 100, at: datetime | None = None) -> int:
    """Try again the follow-ups that failed (the sweeper's pass), and those never run ``IN_FLIGHT`` after their
    game ended (their process stopped between the result and them); returns how many are now done. A fresh
    one is left to the process that wrote it, which runs it once its own writes have committed."""
    stale = (at or timezone.now()) - IN_FLIGHT
    pending = list(
        FollowUp.objects.filter(done_at=None, attempts__lt=RETRY_LIMIT)
        .filter(Q(attempts__gt=0) | Q(created_at__lt=stale))
        .select_related("actor")
        .order_by("pk")[:limit]
    )
    return sum(run_follow_up(f) for f in pending)
