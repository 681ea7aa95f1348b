"""The clock: settling what is due (flags and lapsed offers), one game or a burst, the flag hold, draw
offers and the referee's clock actions."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.protocols import Player as Seat
from games import clock, flaghold
from games.enums import EventKind, GameMode, GameResult, GameStatus, Interface, ResultReason, Settled
from games.models import FollowUp, Game, GameEvent, Player
from games.selectors import clock_of, clocks_due, control_of, from_ms, game_state, ms
from games.services import freeze
from games.services.base import (
    GameError,
    clock_apply,
    clock_seat,
    lock_game,
    log_clock,
    log_event,
    require_active,
    require_online,
    seat_of,
)
from games.services.finish import Ending, finish_games, game_finish, record_endings, retry_follow_ups, run_follow_ups
from games.services.scheduling import call_computer, schedule

SETTLE_CHUNK = 25  # games a transaction in a burst: each holds SQLite's one write lock for about 0.1 s


def clock_turn(
    game: Game,
    seat: Seat,
    at: datetime,
    next_actor: Seat,
    interface: str,
    credit_ms: int = 0,
    next_start: datetime | None = None,
    held: list[GameEvent] | None = None,
) -> dict[str, Any]:
    """Time the turn that ``seat`` ends at ``at`` (less ``credit_ms`` of network lag); the next turn starts at
    ``next_start`` (when the move is applied and can be seen), or at ``at``. The clock starts with the first
    turn if it was waiting. ``held``: the clock's events are added to it, for the caller to log with the turn."""
    control = control_of(game)
    state = clock_of(game)
    events: list[clock.Event] = []
    if state.status == "waiting":
        state, events = clock.start(state, control, ms(at), clock_seat(seat))
    try:
        state, more, readings = clock.play(
            state,
            control,
            ms(at),
            clock_seat(next_actor),
            credit_ms=credit_ms,
            next_start=None if next_start is None else ms(next_start),
        )
    except clock.ClockError as exc:
        if exc.code == "time_over":
            raise GameError("time_over", _("Time ran out; the game is over."), 409) from None
        raise GameError(exc.code, _("The referee has paused the game.")) from None
    clock_apply(game, state, events + more, interface, held=held)
    return readings


@transaction.atomic
def game_settle(
    *, game_id: int, at: datetime | None = None, path: str = "lazy_read", expected_version: int | None = None
) -> Settled:
    """Apply what the clock has made due by ``at``: offer lapses, then a loss on time.

    The one routine behind the Celery task, the sweeper and the checks on
    every read and write; idempotent. Returns what it did (:class:`Settled`):
    ``applied``, ``not_due``, ``stale`` (the task is about an older version),
    ``held`` (see :mod:`games.flaghold`) or ``finished``.
    """
    at = at or timezone.now()
    freeze.guard(path)  # a stop of the whole server is credited before anything is flagged
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        return Settled.FINISHED
    return settle_locked(game, at, path, expected_version)


def settle_locked(
    game: Game, at: datetime, path: str, expected_version: int | None = None, hold: bool = True
) -> Settled:
    """:func:`game_settle` on a game already locked by the caller's transaction.

    With ``hold``, a flag waits while the server is still serving a request
    that reached it before the flag fell (:mod:`games.flaghold`). Only the
    acting player's own move settles without it.
    """
    if game.status not in GameStatus.active():
        return Settled.FINISHED
    if game.mode == GameMode.OVER_THE_BOARD:  # the clock on the table counts; the server never flags
        return Settled.NOT_DUE
    if expected_version is not None and game.clock_version != expected_version:
        return Settled.STALE
    grace = timedelta(milliseconds=control_of(game).grace_ms)
    if game.deadline is None or game.deadline - grace >= at:  # nothing can be due yet: no work, no writes
        return Settled.NOT_DUE
    state, events = clock.settle(clock_of(game), control_of(game), ms(at))
    if not events:
        return Settled.NOT_DUE
    flag = next((e for e in events if e.op == "flag"), None)
    if hold and flag is not None and flaghold.FlagHold().holds(from_ms(flag.at), at):
        return Settled.HELD
    ending = _loss_on_time(game, state, events, path)
    if ending is not None:
        finish_games([ending], interface=Interface.SYSTEM)
    else:
        clock_apply(game, state, events, interface=Interface.SYSTEM)
        game.save(update_fields=["clock", "clock_version", "deadline"])
        schedule(game)
    return Settled.APPLIED


def _loss_on_time(game: Game, state: clock.ClockState, events: list[clock.Event], path: str) -> Ending | None:
    """The game's end when the settled clock has flagged a player, else None."""
    if state.status != "finished" or state.lost_on_time is None:
        return None
    loser = Seat.ONE if state.lost_on_time == 0 else Seat.TWO
    colour = game_state(game).opening.color_of(loser)
    return Ending(
        game,
        GameResult(str(colour.other)),
        ResultReason.TIME,
        detail=str(colour),  # the colour that ran out of time; shown as text by games.messages.result_text
        settled=(state, events),
        adjudicated_by=path,
    )


def games_settle_due(*, at: datetime | None = None, path: str = "sweeper", limit: int = 500) -> int:
    """Settle every online game whose deadline has passed by ``at``; returns how many.

    The background adjudicators' path: a burst of deadlines (a round's clocks
    running out together) costs one pass, not one task each: the losses on
    time end together through :func:`~games.services.finish.record_endings`; a
    flag waits as in :func:`settle_locked` (the requests in flight are asked
    once per pass); anything else that falls due (a draw offer lapsing) goes
    through :func:`settle_locked`. Then the sweeper tries again the follow-ups that failed.

    What is due is read first, without a transaction: on SQLite every transaction takes the one write lock,
    and a pass that finds nothing to write — nothing due, or only flags held for a move in flight, which the
    deadline task looks at again every 0.2 s — must not take it from the moves it is waiting for. For the
    same reason a burst is written ``SETTLE_CHUNK`` games a transaction, and what follows the ended games in
    a tournament runs after all of them are written, outside those transactions: a round's hundreds of flags
    once held the lock 0.6–1.8 s a pass, and every move of the other games waited behind it (issue 43).
    """
    at = at or timezone.now()
    freeze.guard(path)
    hold = flaghold.FlagHold()
    to_settle = [game.pk for game in clocks_due(at).order_by("deadline")[:limit] if _to_write(game, at, hold)]
    settled, follow_ups = 0, []
    try:
        for start in range(0, len(to_settle), SETTLE_CHUNK):
            count, written = _settle_due(to_settle[start : start + SETTLE_CHUNK], at, path, hold)
            settled += count
            follow_ups += written
    finally:  # a later chunk that fails leaves the results written before it committed: they are followed
        run_follow_ups(follow_ups)
    if path == "sweeper":  # once a second is enough for what failed (not each slice's task, 10 a second)
        retry_follow_ups()
    return settled


def _to_write(game: Game, at: datetime, hold: flaghold.FlagHold) -> bool:
    """Has the (unlocked) game something to write at ``at``: a lapse, or a flag that does not wait?"""
    _state, events = clock.settle(clock_of(game), control_of(game), ms(at))
    flag = next((e for e in events if e.op == "flag"), None)
    return bool(events) and (flag is None or not hold.holds(from_ms(flag.at), at))


@transaction.atomic
def _settle_due(game_ids: list[int], at: datetime, path: str, hold: flaghold.FlagHold) -> tuple[int, list[FollowUp]]:
    """Settle ``game_ids`` under their locks, read again (a move may have come since the first read); returns
    how many, and the follow-ups of the losses on time, for the caller to run once this has committed."""
    due = list(
        Game.objects.select_for_update()
        .filter(pk__in=game_ids, status__in=GameStatus.active(), deadline__lte=at)
        .order_by("deadline")
    )
    endings: list[Ending] = []
    settled = 0
    for game in due:
        state, events = clock.settle(clock_of(game), control_of(game), ms(at))
        flag = next((e for e in events if e.op == "flag"), None)
        ending = _loss_on_time(game, state, events, path)
        if flag is None or ending is None:
            settled += settle_locked(game, at, path) == Settled.APPLIED
        elif not hold.holds(from_ms(flag.at), at):
            endings.append(ending)
    follow_ups = record_endings(endings, interface=Interface.SYSTEM) if endings else []
    return settled + len(endings), follow_ups


def clock_action_lock(game_id: int, at: datetime | None, path: str) -> tuple[Game, datetime]:
    """Lock a game for a clock action after settling what is due."""
    at = at or timezone.now()
    game_settle(game_id=game_id, at=at, path=path)
    game = lock_game(game_id)
    require_online(game)
    require_active(game)
    return game, at


def _clock_error(exc: clock.ClockError) -> GameError:
    messages = {
        "offer_pending": _("A draw offer is already pending."),
        "paused": _("The referee has paused the game."),
        "offer_on_turn": _("Offer a draw together with your move, not on your turn."),
        "no_offers_left": _("You have no draw offers left."),
        "no_offer": _("There is no draw offer to answer."),
        "own_offer": _("Your opponent answers your offer."),
        "clock_stopped": _("The clock is not running."),
        "cannot_pause": _("Only a running, unpaused game can be paused."),
        "not_paused": _("The game is not paused by a referee."),
        "bad_time": _("Add a positive amount of time to main time or to the turn."),
        "clock_started": _("The clock is already running."),
    }
    status = 409 if exc.code in ("offer_pending", "clock_stopped", "clock_started") else 400
    return GameError(exc.code, messages.get(exc.code, str(exc)), status)


def game_offer_draw(
    *, game_id: int, player: Player, at: datetime | None = None, actor: Any = None, interface: str = "api"
) -> Game:
    """The player who has just moved offers a draw; all clocks stop until it is answered."""
    with transaction.atomic():
        game, at = clock_action_lock(game_id, at, "lazy_write")
        seat = seat_of(game, player)
        try:
            state, events = clock.offer(_running_clock(game, at), control_of(game), ms(at), clock_seat(seat))
        except clock.ClockError as exc:
            raise _clock_error(exc) from None
        clock_apply(game, state, events, interface, actor)
        game.save()
        log_event(game, EventKind.DRAW_OFFER, actor, interface, seat=int(seat))
        schedule(game)
        call_computer(game)  # a computer opponent answers the offer
    return game


def _running_clock(game: Game, at: datetime) -> clock.ClockState:
    """An untimed game's clock starts with its first offer or pause, so offers work without a time control."""
    state = clock_of(game)
    if state.status == "waiting":
        actor = clock_seat(game_state(game).to_act)
        state, events = clock.start(state, control_of(game), ms(at), actor)
        log_clock(game, events, "system")
    return state


def game_answer_draw(
    *, game_id: int, player: Player, accept: bool, at: datetime | None = None, actor: Any = None, interface: str = "api"
) -> Game:
    with transaction.atomic():
        game, at = clock_action_lock(game_id, at, "lazy_write")
        seat = seat_of(game, player)
        try:
            state, events = clock.answer(clock_of(game), control_of(game), ms(at), clock_seat(seat), accept)
        except clock.ClockError as exc:
            raise _clock_error(exc) from None
        clock_apply(game, state, events, interface, actor)
        game.save()
        log_event(game, EventKind.DRAW_ANSWER, actor, interface, seat=int(seat), accept=accept)
        if accept:
            return game_finish(
                game=game, result=GameResult.DRAW, reason=ResultReason.AGREEMENT, actor=actor, interface=interface
            )
        schedule(game)
    return game


def game_clock_action(
    *,
    game_id: int,
    op: str,
    seat: int | None = None,
    ms_added: int = 0,
    target: str = "main",
    at: datetime | None = None,
    actor: Any = None,
    interface: str = "api",
) -> Game:
    """Referee actions on the clock: ``start``, ``pause``, ``resume``, ``add_time`` (logged)."""
    with transaction.atomic():
        game, at = clock_action_lock(game_id, at, "lazy_write")
        control, now = control_of(game), ms(at)
        try:
            if op == "start":
                actor_seat = clock_seat(game_state(game).to_act)
                state, events = clock.start(clock_of(game), control, now, actor_seat)
            elif op == "pause":
                state, events = clock.referee_pause(_running_clock(game, at), now)
            elif op == "resume":
                state, events = clock.referee_resume(clock_of(game), now)
            elif op == "add_time":
                if seat not in (1, 2):
                    raise GameError("bad_seat", _("The seat is 1 or 2."))
                state, events = clock.add_time(clock_of(game), control, now, 0 if seat == 1 else 1, ms_added, target)
            else:
                raise GameError("bad_action", _("Unknown clock action."))
        except clock.ClockError as exc:
            raise _clock_error(exc) from None
        clock_apply(game, state, events, interface, actor)
        game.save()
        log_event(game, EventKind(f"clock_{op}"), actor, interface, seat=seat, ms=ms_added, target=target)
        schedule(game)
    return game
