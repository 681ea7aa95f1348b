"""The clock: settling what is due (flags and lapsed offers), one game or a burst, the flag hold, draw
offers and the referee's clock actions."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from engine.protocols import Player as Seat
from games import clock, live
from games.enums import GameMode, GameResult, GameStatus, Interface, ResultReason
from games.models import Game, GameEvent, Player
from games.selectors import clock_of, control_of, from_ms, game_state, ms
from games.services.base import (
    GameError,
    clock_apply,
    clock_seat,
    finished_fields,
    game_finish,
    lock_game,
    log_clock,
    log_event,
    require_active,
    require_online,
    schedule,
    seat_of,
)
from games.signals import game_finished


def clock_turn(
    game: Game,
    seat: Seat,
    at: datetime,
    next_actor: Seat,
    interface: str,
    credit_ms: int = 0,
    next_start: datetime | None = None,
) -> dict[str, Any]:
    """Time the turn that ``seat`` ends at ``at`` (less ``credit_ms`` of network lag); the next turn starts at
    ``next_start`` (when the move is applied and can be seen), or at ``at``. The clock starts with the first
    turn if it was waiting."""
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
    clock_apply(game, state, events + more, interface)
    return readings


@transaction.atomic
def game_settle(
    *, game_id: int, at: datetime | None = None, path: str = "lazy_read", expected_version: int | None = None
) -> str:
    """Apply what the clock has made due by ``at``: offer lapses, then a loss on time.

    The one routine behind the Celery task, the sweeper and the checks on
    every read and write; idempotent. Returns ``applied``, ``not_due``,
    ``stale`` (the task is about an older version) or ``finished``.
    """
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        return "finished"
    return settle_locked(game, at or timezone.now(), path, expected_version)


def settle_locked(game: Game, at: datetime, path: str, expected_version: int | None = None, hold: bool = True) -> str:
    """:func:`game_settle` on a game already locked by the caller's transaction.

    With ``hold``, a flag waits (``held``) while the server is still serving a
    request that reached it before the deadline: that may be the move that
    beats the flag. Only the acting player's own move settles without it.
    """
    if game.status not in GameStatus.active():
        return "finished"
    if game.mode == GameMode.OVER_THE_BOARD:  # the clock on the table counts; the server never flags
        return "not_due"
    if expected_version is not None and game.clock_version != expected_version:
        return "stale"
    grace = timedelta(milliseconds=control_of(game).grace_ms)
    if game.deadline is None or game.deadline - grace >= at:  # nothing can be due yet: no work, no writes
        return "not_due"
    state, events = clock.settle(clock_of(game), control_of(game), ms(at))
    if not events:
        return "not_due"
    flag = next((e for e in events if e.op == "flag"), None)
    if hold and flag is not None and _request_waiting(from_ms(flag.at), at):
        return "held"
    clock_apply(game, state, events, interface=Interface.SYSTEM)
    game.save(update_fields=["clock", "clock_version", "deadline"])
    if state.status == "finished" and state.lost_on_time is not None:
        loser = Seat.ONE if state.lost_on_time == 0 else Seat.TWO
        colour = game_state(game).opening.color_of(loser)
        Game.objects.filter(pk=game.pk).update(adjudicated_by=path)
        game_finish(
            game=game,
            result=GameResult(str(colour.other)),
            reason=ResultReason.TIME,
            detail=str(colour),  # the colour that ran out of time; shown as text by games.messages.result_text
            interface=Interface.SYSTEM,
        )
    else:
        schedule(game)
    return "applied"


@transaction.atomic
def games_settle_due(*, at: datetime | None = None, path: str = "sweeper", limit: int = 500) -> int:
    """Settle every online game whose deadline has passed by ``at``, in one transaction; returns how many.

    The background adjudicators' path: a burst of deadlines (a round's clocks
    running out together) costs one pass, not one task each. Losses on time
    are written in bulk with the same columns, events and signal as
    :func:`game_finish`; a flag waits as in :func:`settle_locked` while a
    request that arrived before it is still served; anything else that falls
    due (a draw offer lapsing) goes through :func:`settle_locked`.
    """
    at = at or timezone.now()
    due = list(
        Game.objects.select_for_update()
        .filter(status__in=GameStatus.active(), mode=GameMode.ONLINE, deadline__lte=at)
        .order_by("deadline")[:limit]
    )
    flagged: list[tuple[Game, clock.ClockState, list[clock.Event], GameResult, str]] = []
    waiting: float | None | bool = False  # asked once per pass, when a flag needs it
    settled = 0
    for game in due:
        state, events = clock.settle(clock_of(game), control_of(game), ms(at))
        flag = next((e for e in events if e.op == "flag"), None)
        if flag is None or state.status != "finished":
            settled += settle_locked(game, at, path) == "applied"
            continue
        if waiting is False:
            waiting = import_string(settings.CLOCK_WAITING_SINCE)()
        flag_at = from_ms(flag.at)
        if waiting is not None and waiting <= flag_at.timestamp() and at - flag_at <= _hold_max():
            continue
        loser_id = game.player_one_id if state.lost_on_time == 0 else game.player_two_id
        loser_colour = "black" if loser_id == game.black_id else "white"
        winner = GameResult.WHITE if loser_colour == "black" else GameResult.BLACK
        flagged.append((game, state, events, winner, loser_colour))
    if not flagged:
        return settled
    now = timezone.now()
    log: list[GameEvent] = []
    for game, state, events, winner, loser_colour in flagged:
        fields, closing = finished_fields(state, winner, ResultReason.TIME, loser_colour, now)
        for name, value in fields.items():
            setattr(game, name, value)
        game.adjudicated_by = path
        log += [
            GameEvent(
                game=game, kind="clock", interface=Interface.SYSTEM, data={"op": e.op, "at": e.at, "args": e.args}
            )
            for e in [*events, *closing]
        ]
        log.append(
            GameEvent(
                game=game,
                kind="finished",
                interface=Interface.SYSTEM,
                data={"result": winner, "reason": ResultReason.TIME, "detail": loser_colour},
            )
        )
    Game.objects.bulk_update([g for g, *_rest in flagged], [*fields, "adjudicated_by"])
    for game, *_rest in flagged:
        live.game_changed(game)
    GameEvent.objects.bulk_create(log)
    for game, *_rest in flagged:
        game_finished.send(sender=Game, game=game, correction=False, confirm="", actor=None)
    return settled + len(flagged)


def _hold_max() -> timedelta:
    return timedelta(milliseconds=settings.CLOCK_HOLD_MAX_MS)


def _request_waiting(flag_at: datetime, now: datetime) -> bool:
    """Is a request that reached the server by ``flag_at`` still being served (and not for too long)?"""
    if now - flag_at > _hold_max():
        return False
    since = import_string(settings.CLOCK_WAITING_SINCE)()
    return since is not None and since <= flag_at.timestamp()


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
        log_event(game, "draw_offer", actor, interface, seat=int(seat))
        schedule(game)
        from games.services.computer import call_computer

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
        log_event(game, "draw_answer", actor, interface, seat=int(seat), accept=accept)
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
        log_event(game, f"clock_{op}", actor, interface, seat=seat, ms=ms_added, target=target)
        schedule(game)
    return game
