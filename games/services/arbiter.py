"""Calling an arbiter: a player at a board asks for a referee (a dispute at the table, a claim, a clock
that misbehaves). The call is logged in the game's events and announced to the referees' console and the
control room; in an online game both clocks stop (a referee's pause) until a referee answers, which
resumes them. One open call per game: calling again while one is open changes nothing.

Calls have rules, as a clock stop must (FIDE Laws 6.12b: a player may stop the clock to summon the arbiter;
an unjustified stop may be penalised): each player calls at most ``ARBITER_CALLS_PER_GAME`` times a game; a
call on the caller's own turn is charged to the caller's clock when the referee answers, unless the referee
rules it justified; a practice game against the computer has no arbiter to call."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.protocols import Player as Seat
from games import clock
from games.access import may_rule
from games.enums import EventKind, GameMode, GameStatus
from games.models import ArbiterCall, Game, Player
from games.selectors import clock_of, ms
from games.services.base import GameError, clock_apply, clock_seat, lock_game, log_event, seat_of
from games.services.scheduling import schedule
from games.services.timing import game_settle
from games.signals import arbiter_call_changed


def game_call_arbiter(
    *,
    game_id: int,
    player: Player,
    note: str = "",
    at: datetime | None = None,
    actor: Any = None,
    interface: str = "web",
) -> ArbiterCall:
    at = at or timezone.now()
    game_settle(game_id=game_id, at=at, path="lazy_write")
    with transaction.atomic():
        game = lock_game(game_id)
        seat = seat_of(game, player)  # only the game's own players call for its arbiter
        if game.status in (GameStatus.FINISHED, GameStatus.CANCELLED):
            raise GameError("game_over", _("The game is over; ask the organizer if something is wrong."), 409)
        if game.practice:
            raise GameError("no_arbiter", _("A practice game has no arbiter: resign or start a new game."), 409)
        existing = ArbiterCall.objects.filter(game=game, answered_at__isnull=True).first()
        if existing is not None:
            return existing
        allowed = settings.ARBITER_CALLS_PER_GAME
        if ArbiterCall.objects.filter(game=game, caller=player).count() >= allowed:
            raise GameError(
                "too_many_calls",
                _("You have called the arbiter %(n)s times in this game, the most allowed; raise your hand.")
                % {"n": allowed},
                409,
            )
        own_turn = _callers_turn(game, seat)
        paused = _pause(game, at, interface, actor)
        call = ArbiterCall.objects.create(
            game=game,
            caller=player,
            note=note.strip()[:200],
            board=game.board_number,
            paused_clock=paused,
            on_callers_turn=own_turn and paused,
        )
        game.arbiter_called = True
        log_event(game, EventKind.ARBITER_CALL, actor, interface, call=call.pk, note=call.note, board=game.board_number)
        arbiter_call_changed.send(sender=ArbiterCall, game=game, call=call)
        game.save()
        schedule(game)
    return call


def _callers_turn(game: Game, seat: Seat) -> bool:
    """Is the caller's own clock the one running (an online game's clock, on the caller's side)?"""
    if game.mode == GameMode.OVER_THE_BOARD or game.status not in GameStatus.active():
        return False
    state = clock_of(game)
    return state.status == "running" and state.actor == clock_seat(seat)


def _pause(game: Game, at: datetime, interface: str, actor: Any) -> bool:
    """An online game's running clock stops as a referee's pause would stop it."""
    if game.mode == GameMode.OVER_THE_BOARD or game.status not in GameStatus.active():
        return False
    state = clock_of(game)
    if state.status != "running" or state.pause is not None:
        return False
    state, events = clock.referee_pause(state, ms(at))
    clock_apply(game, state, events, interface, actor)
    return True


def game_answer_arbiter(
    *,
    call_id: int,
    actor: Any,
    answer: str = "",
    justified: bool = False,
    at: datetime | None = None,
    interface: str = "web",
) -> ArbiterCall:
    """A referee (or organizer) has come: the call is closed and the clocks it stopped run again. A call made
    on the caller's own turn is charged to the caller's clock (the pause counts as their thinking time) unless
    the referee rules it ``justified``."""
    at = at or timezone.now()
    with transaction.atomic():
        call = ArbiterCall.objects.select_related("game").filter(pk=call_id).first()
        if call is None:
            raise GameError("no_call", _("There is no such arbiter call."), 404)
        game = lock_game(call.game_id)
        if not may_rule(actor, game):
            raise GameError("not_referee", _("Only the game's referees and the organizer answer its calls."), 403)
        call = ArbiterCall.objects.select_for_update().get(pk=call_id)
        if call.answered_at is not None:
            return call
        call.answered_at, call.answered_by, call.answer = at, actor, answer.strip()[:200]
        call.justified = bool(justified)
        call.save(update_fields=["answered_at", "answered_by", "answer", "justified"])
        game.arbiter_called = False
        state = clock_of(game)
        resumed = False
        charged = call.on_callers_turn and not call.justified
        if call.paused_clock and state.pause == "referee" and game.status in GameStatus.active():
            state, events = clock.referee_resume(state, ms(at), charge=charged)
            clock_apply(game, state, events, interface, actor)
            resumed = True
        log_event(
            game,
            EventKind.ARBITER_ANSWERED,
            actor,
            interface,
            call=call.pk,
            answer=call.answer,
            resumed=resumed,
            justified=call.justified,
            charged=charged and resumed,
        )
        arbiter_call_changed.send(sender=ArbiterCall, game=game, call=call)
        game.save()
        schedule(game)
    return call


def open_calls_for(games: Any) -> list[ArbiterCall]:
    """The open calls among ``games`` (a queryset), oldest first."""
    return list(
        ArbiterCall.objects.filter(game__in=games, answered_at__isnull=True)
        .select_related("game", "caller")
        .order_by("created_at")
    )
