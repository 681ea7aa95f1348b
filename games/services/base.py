"""What every games service shares: the one error type, locking, the event log, the clock glue and the
columns a game ends with (the one way a game ends is :mod:`games.services.finish`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import IntegrityError
from django.utils.translation import gettext as _

from engine import Color
from engine.protocols import Action
from engine.protocols import Player as Seat
from games import clock, live
from games.enums import EventKind, GameMode, GameStatus, ResultReason
from games.models import Game, GameEvent, Move, Player
from games.prepared import Prepared, PreparedInsert
from games.selectors import GameState, control_of, from_ms, ms, online_room

# a move's rows, written without building their SQL each time (games.prepared)
_MOVES: PreparedInsert[Move] = PreparedInsert(Move)
_EVENTS: PreparedInsert[GameEvent] = PreparedInsert(GameEvent)


class GameError(Exception):
    """A refused action: a stable ``code``, a translated ``message`` and an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def seat_of(game: Game, player: Player) -> Seat:
    if player.pk == game.player_one_id:
        return Seat.ONE
    if player.pk == game.player_two_id:
        return Seat.TWO
    raise GameError("not_your_game", _("You are not a player in this game."), 403)


def log_event(
    game: Game,
    kind: EventKind,
    actor: Any = None,
    interface: str = "api",
    *,
    after: Sequence[GameEvent] = (),
    **data: Any,
) -> None:
    """Log a change of the game, after the events ``after`` (the clock's, held back to be written with it:
    one insert); its watchers are told once the transaction commits (games.live)."""
    _EVENTS.insert([*after, GameEvent(game=game, kind=kind, actor=actor, interface=interface, data=data)])
    live.game_changed(game)


def clock_events(game: Game, events: list[clock.Event], interface: str, actor: Any = None) -> list[GameEvent]:
    return [
        GameEvent(
            game=game,
            kind=EventKind.CLOCK,
            actor=actor,
            interface=interface,
            data={"op": e.op, "at": e.at, "args": e.args},
        )
        for e in events
    ]


def log_clock(game: Game, events: list[clock.Event], interface: str, actor: Any = None) -> None:
    if events:
        live.game_changed(game)
    GameEvent.objects.bulk_create(clock_events(game, events, interface, actor))


def clock_apply(
    game: Game,
    state: clock.ClockState,
    events: list[clock.Event],
    interface: str = "system",
    actor: Any = None,
    held: list[GameEvent] | None = None,
) -> None:
    """Put a new clock state on the (locked) game and log its events (or add them to ``held``, for the caller
    to log with its own: :func:`log_event`); the caller saves."""
    game.clock = state.to_dict()
    game.clock_version = state.version
    dl = clock.flag_deadline(state, control_of(game))
    game.deadline = None if dl is None else from_ms(dl)
    if held is None:
        log_clock(game, events, interface, actor)
    else:
        held += clock_events(game, events, interface, actor)


def clock_seat(seat: Seat) -> clock.Seat:
    return 0 if seat is Seat.ONE else 1


def sync_colours(game: Game, state: GameState) -> None:
    black = game.player_one if state.holder(Color.BLACK) is Seat.ONE else game.player_two
    white = game.player_two if black.pk == game.player_one_id else game.player_one
    game.black, game.white = black, white


_LOCK: Prepared[Game] = Prepared(lambda pk: Game.objects.select_for_update().filter(pk=pk), for_update=True)


def lock_game(game_id: int) -> Game:
    """The game's row, locked until the transaction ends (on SQLite the transaction itself is the lock: it
    begins IMMEDIATE, config.env)."""
    game = _LOCK.first(int(game_id))
    if game is None:
        raise GameError("no_game", _("There is no such game."), 404)
    return game


def record_action(
    game: Game,
    *,
    expected_ply: int,
    seat: Seat,
    action: Action,
    color: Color | None,
    move_number: int | None,
    foul: str = "",
    readings: dict[str, Any] | None = None,
) -> Move:
    """Store one action at ``expected_ply + 1`` of a game the caller has locked (:func:`lock_game`) and
    saves with its new ``ply``; a stale or repeated ply changes nothing. The lock orders the actions, and
    the unique (game, ply) of the moves is the last word."""
    if game.ply != expected_ply:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409)
    move = Move(
        game=game,
        ply=expected_ply + 1,
        kind=action.kind.value,
        text=str(action),
        player_number=int(seat),
        color=str(color) if color else "",
        move_number=move_number,
        foul=foul,
        clock_ms=readings or {},
    )
    try:
        _MOVES.insert([move])
    except IntegrityError:  # the transaction is spoilt: the error ends it, and it rolls back
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409) from None
    game.ply = expected_ply + 1
    return move


def require_online(game: Game) -> None:
    """Over the board, the stones and the clock are on the table: only reports, rulings and overrides apply."""
    if game.mode == GameMode.OVER_THE_BOARD:
        raise GameError(
            "over_the_board",
            _(
                "This game is played over the board: moves, passes, draw offers and the clock are not taken online; "
                "report its result instead."
            ),
            409,
        )


def require_room() -> None:
    """A new online game outside a tournament's call (practice, the API) is refused while the server runs as
    many online games as it has room for (``ONLINE_CAPACITY``): the games already running keep their pace."""
    if online_room() == 0:
        raise GameError(
            "server_full",
            _("The server is running as many online games as it can; start this game when some have ended."),
            503,
        )


def require_active(game: Game) -> None:
    if game.status in GameStatus.active():
        return
    if game.result_reason == ResultReason.TIME:
        raise GameError("time_over", _("Time ran out; the game is over."), 409)
    raise GameError("game_over", _("The game is over."), 409)


def finished_fields(
    state: clock.ClockState, result: str, reason: str, detail: str, now: datetime
) -> tuple[dict[str, Any], list[clock.Event]]:
    """The columns a game ends with, and the clock's closing events."""
    stopped, events = clock.finish(state, ms(now), f"{result} {reason}")
    fields = {
        "status": GameStatus.FINISHED,
        "result": result,
        "result_reason": reason,
        "result_detail": detail,
        "finished_at": now,
        "clock": stopped.to_dict(),
        "deadline": None,
        "clock_version": stopped.version,
        "absent_player": None,
        "absent_deadline": None,
    }
    return fields, events
