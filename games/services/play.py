"""Playing online: creating a game, opening steps, stones and passes timed by the clock, resignation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import Board, find_rules
from engine.protocols import Action, Kind, Options, ProtocolError, apply, start
from engine.protocols import Player as Seat
from games import clock
from games.enums import EventKind, ForbiddenMode, GameMode, GameResult, GameStatus, ResultReason, Settled
from games.live import game_moved
from games.messages import foul_label, translate
from games.models import Game, GameEvent, Move, Player
from games.prepared import PreparedUpdate
from games.selectors import GameState, clock_of, control_of, game_state, ms, remember_on_commit
from games.services import freeze
from games.services.base import (
    GameError,
    clock_apply,
    clock_seat,
    lock_game,
    log_event,
    record_action,
    require_active,
    require_online,
    seat_of,
    sync_colours,
)
from games.services.finish import game_finish
from games.services.scheduling import call_computer, schedule
from games.services.timing import clock_turn, game_settle, settle_locked

START_CHUNK = 50  # clocks started a transaction (see clocks_start)


@transaction.atomic
def game_create(
    *,
    player_one: Player,
    player_two: Player,
    rules: str = "renju",
    protocol: str = "none",
    protocol_options: dict[str, Any] | None = None,
    forbidden_mode: str = ForbiddenMode.AUTO,
    actor: Any = None,
    interface: str = "api",
    time_control: str | dict[str, Any] | None = None,
    start_clock_at: datetime | None = None,
    start_clock_on_commit: bool = False,
    **fields: Any,
) -> Game:
    """A new game; with no opening protocol it starts in normal play.

    ``time_control`` is a preset name or custom options (:mod:`games.clock`);
    the clock starts at ``start_clock_at``, or with the first action, or, with ``start_clock_on_commit``,
    when the transaction that creates the game commits and the players can see it (:func:`clocks_start`:
    every game of a round called in one transaction starts at the same instant, however long the call took).
    """
    if player_one.pk == player_two.pk:
        raise GameError("same_player", _("A player cannot play against themselves."))
    try:
        find_rules(rules)
        start(protocol, Options(**(protocol_options or {})))
        control = clock.find_time_control(time_control)
    except (ValueError, TypeError) as exc:  # unknown rule set, protocol, option, opening or time control
        raise GameError("bad_setup", translate(exc)) from None
    game = Game.objects.create(
        player_one=player_one,
        player_two=player_two,
        rules=rules,
        protocol=protocol,
        protocol_options=protocol_options or {},
        forbidden_mode=forbidden_mode,
        time_control=control.to_dict(),
        clock=clock.initial(control).to_dict(),
        **fields,
    )
    state = game_state(game)
    sync_colours(game, state)
    game.status = GameStatus.PLAYING if state.opening.finished else GameStatus.OPENING
    game.save()
    log_event(game, EventKind.CREATED, actor, interface, protocol=protocol, rules=rules, time_control=control.name)
    if start_clock_at is not None and game.mode != GameMode.OVER_THE_BOARD:
        clock_apply(
            game,
            *clock.start(clock_of(game), control, ms(start_clock_at), clock_seat(state.to_act)),
            interface=interface,
        )
        game.save()
        schedule(game)
    elif start_clock_on_commit and game.mode != GameMode.OVER_THE_BOARD and control.timed:
        _start_on_commit(game.pk)
    call_computer(game)
    return game


def _start_on_commit(game_id: int) -> None:
    """Collect the games created in this transaction; one call starts their clocks once it commits."""
    conn = transaction.get_connection()
    if not conn.in_atomic_block:
        clocks_start(game_ids=[game_id])
        return
    pending: list[int] | None = getattr(conn, "clocks_to_start", None)
    if pending is None or not any(entry[1] is _start_pending for entry in conn.run_on_commit):
        conn.clocks_to_start = pending = []  # our own attribute on the connection
        transaction.on_commit(_start_pending)
    pending.append(game_id)


def _start_pending() -> None:
    conn = transaction.get_connection()
    ids: list[int] = getattr(conn, "clocks_to_start", None) or []
    conn.clocks_to_start = []
    if ids:
        clocks_start(game_ids=ids)


def clocks_start(*, game_ids: list[int], at: datetime | None = None) -> int:
    """Start the waiting clocks of ``game_ids``; returns how many started. A game whose clock already runs
    (its first move came first) or that has ended is left as it is.

    ``START_CHUNK`` games a transaction, each at its own now (or all at ``at``): a round's 1,000 clocks in one
    transaction held SQLite's one write lock 2.7 s, and the first moves of the games already called waited
    behind it (issue 43); a clock starts as its game can be seen."""
    started = 0
    for first in range(0, len(game_ids), START_CHUNK):
        started += _clocks_start(game_ids[first : first + START_CHUNK], at or timezone.now())
    return started


@transaction.atomic
def _clocks_start(game_ids: list[int], at: datetime) -> int:
    started: list[Game] = []
    for game in Game.objects.select_for_update().filter(pk__in=game_ids, status__in=GameStatus.active()).order_by("pk"):
        state = clock_of(game)
        if state.status != "waiting" or game.mode == GameMode.OVER_THE_BOARD:
            continue
        clock_apply(game, *clock.start(state, control_of(game), ms(at), clock_seat(game_state(game).to_act)))
        started.append(game)
    Game.objects.bulk_update(started, ["clock", "clock_version", "deadline"], batch_size=500)
    for game in started:
        schedule(game)
    return len(started)


def game_act(
    *,
    game_id: int,
    player: Player | Callable[[Game], Player],
    action: Action | str,
    expected_ply: int,
    actor: Any = None,
    interface: str = "api",
    at: datetime | None = None,
    think_ms: int | None = None,
    queued_ms: int = 0,
    live: bool = False,
) -> Game:
    """A player's action: an opening step or, after the opening, a stone or a pass.

    The turn is timed at ``at``: when the request reached the machine, so the
    ``queued_ms`` it then waited inside the server is never charged (it is
    logged). With ``live`` (``at`` is this request's own arrival stamp), the
    opponent's turn starts when the move is applied, so the queue is charged
    to nobody. ``think_ms``, the client's own measure of the player's thinking,
    lets the clock credit network lag within the player's quota
    (:func:`games.clock.lag_credit`). A timeout that is due by then is settled
    (and committed) first, so a late move is refused with ``time_over`` and
    the game records the loss on time.
    ``player`` may be a function of the locked game that names the player acting
    (or refuses): the API's checks, made on the one read of the game.
    Side effects: stores a Move with its clock readings, logs an event, and
    ends the game (through :func:`game_finish`) on a five, an adjudicated
    foul, two passes, a full board or exhausted overtime.
    """
    at = at or timezone.now()
    freeze.guard("lazy_write")  # a stop of the whole server is credited before this turn is charged
    game = _game_act(
        game_id=game_id,
        player=player,
        action=action,
        expected_ply=expected_ply,
        actor=actor,
        interface=interface,
        at=at,
        think_ms=think_ms,
        queued_ms=queued_ms,
        live=live,
    )
    if game is None:  # the clock ran out before the action arrived; the loss on time is committed
        raise GameError("time_over", _("Time ran out; the game is over."), 409)
    return game


@transaction.atomic
def _game_act(
    *,
    game_id: int,
    player: Player | Callable[[Game], Player],
    action: Action | str,
    expected_ply: int,
    actor: Any,
    interface: str,
    at: datetime,
    think_ms: int | None = None,
    queued_ms: int = 0,
    live: bool = False,
) -> Game | None:
    game = lock_game(game_id)
    if not isinstance(player, Player):
        player = player(game)
    require_online(game)
    if _repeated(game, player, action, expected_ply):
        return game  # a client's retry of a move already stored (its answer was lost): nothing changes
    acting = player.pk in (game.player_one_id, game.player_two_id) and clock_of(game).actor == clock_seat(
        seat_of(game, player)
    )
    credit = clock.lag_credit(clock_of(game), control_of(game), ms(at), think_ms) if acting else 0
    if settle_locked(game, at - timedelta(milliseconds=credit), "lazy_write", hold=not acting) == Settled.APPLIED:
        game.refresh_from_db()
        if game.status not in GameStatus.active():
            return None
    require_active(game)
    if game.ply != expected_ply:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409)
    if isinstance(action, str):
        try:
            action = Action.parse(action)
        except ProtocolError as exc:
            raise GameError("bad_action", translate(exc)) from None
    seat = seat_of(game, player)
    state = game_state(game)
    timing = _Timing(at, credit, queued_ms, live)
    if not state.opening.finished:
        return _opening_action(game, state, seat, action, expected_ply, actor, interface, timing)
    return _board_move(game, state, seat, action, expected_ply, actor, interface, timing)


def _repeated(game: Game, player: Player, action: Action | str, expected_ply: int) -> bool:
    """The same player's same action for the ply it already took: a repeat, answered as the stored move was.
    A different action, or another player's, for a ply that has moved on stays a stale ply."""
    if game.ply != expected_ply + 1 or player.pk not in (game.player_one_id, game.player_two_id):
        return False
    last = Move.objects.filter(game=game, ply=expected_ply + 1).only("text", "player_number").first()
    if last is None or last.player_number != int(seat_of(game, player)):
        return False
    try:
        return Action.parse(last.text) == (Action.parse(action) if isinstance(action, str) else action)
    except ProtocolError:
        return False


@dataclass
class _Timing:
    """When a turn ended for the clock: the arrival, the lag credit, and the server's queueing (logged)."""

    at: datetime
    credit_ms: int = 0
    queued_ms: int = 0
    live: bool = False  # ``at`` is this request's arrival: the opponent's turn starts when the move is applied

    @property
    def next_start(self) -> datetime | None:
        return max(self.at, timezone.now()) if self.live else None

    def log(self) -> dict[str, Any]:
        return {k: v for k, v in (("lag_credit_ms", self.credit_ms), ("queued_ms", self.queued_ms)) if v}


def _opening_action(
    game: Game,
    state: GameState,
    seat: Seat,
    action: Action,
    expected_ply: int,
    actor: Any,
    interface: str,
    timing: _Timing,
) -> Game:
    try:
        after = apply(state.opening, seat, action)
    except ProtocolError as exc:
        raise GameError("protocol", translate(exc)) from None
    number = len(after.moves) if len(after.moves) > len(state.opening.moves) else None
    readings = clock_turn(game, seat, timing.at, after.actor, interface, timing.credit_ms, timing.next_start)
    record_action(
        game,
        expected_ply=expected_ply,
        seat=seat,
        action=action,
        color=state.opening.color_of(seat),
        move_number=number,
        readings=readings,
    )
    state.opening = after
    sync_colours(game, state)
    if after.finished:
        game.status = GameStatus.PLAYING
    _TURN.update(game)
    remember_on_commit(game, GameState(after, Board.replay(list(after.moves))))
    log_event(game, EventKind.ACTION, actor, interface, action=str(action), seat=int(seat), **timing.log())
    return _after_turn(game, actor, interface)


def _board_move(
    game: Game,
    state: GameState,
    seat: Seat,
    action: Action,
    expected_ply: int,
    actor: Any,
    interface: str,
    timing: _Timing,
) -> Game:
    board = state.board
    color = board.turn
    if state.holder(color) is not seat:
        raise GameError("not_your_turn", _("It is not your turn."), 409)
    if action.kind not in (Kind.PLACE, Kind.PASS):
        raise GameError("bad_action", _("Place a stone or pass."))
    rules = find_rules(game.rules)
    foul = ""
    if action.kind is Kind.PLACE:
        point = action.points[0]
        if not point.on_board(board.size) or not board.is_empty(point):
            raise GameError("occupied", _("That point is already occupied."))
        outcome = rules.move_outcome(board, point)
        if outcome is not None and outcome.reason is not None:
            foul = outcome.reason.value
            if game.forbidden_mode == ForbiddenMode.BLOCK:
                raise GameError("forbidden", _("Black may not play there: %(kind)s.") % {"kind": foul_label(foul)})
    held: list[GameEvent] = []  # the clock's events, written with the move's
    readings = clock_turn(
        game, seat, timing.at, state.holder(color.other), interface, timing.credit_ms, timing.next_start, held
    )
    move = record_action(
        game,
        expected_ply=expected_ply,
        seat=seat,
        action=action,
        color=color,
        move_number=board.ply + 1,
        foul=foul,
        readings=readings,
    )
    board.push("pass" if action.kind is Kind.PASS else action.points[0])
    after = GameState(state.opening, board)
    remember_on_commit(game, after)
    log_event(
        game,
        EventKind.MOVE,
        actor,
        interface,
        after=held,
        action=str(action),
        move_number=move.move_number,
        foul=foul,
        **timing.log(),
    )
    _TURN.update(game)
    result = rules.outcome(board)
    if result is not None and result.termination.value == "forbidden":
        if game.forbidden_mode == ForbiddenMode.AUTO:
            return game_finish(
                game=game, result=GameResult.WHITE, reason=ResultReason.FORBIDDEN, detail=foul, actor=actor
            )
        result = None  # claim mode: the foul stands unless white claims it
    if result is not None:
        if result.winner is not None:
            return game_finish(game=game, result=GameResult(str(result.winner)), reason=ResultReason.FIVE, actor=actor)
        reason = ResultReason.FULL_BOARD if result.termination.value == "full-board" else ResultReason.TWO_PASSES
        return game_finish(game=game, result=GameResult.DRAW, reason=reason, actor=actor)
    game = _after_turn(game, actor, interface)
    if game.status == GameStatus.PLAYING and not game.arbiter_called:
        game_moved(game, move, after)  # the game's watchers are sent the move, not the game read again
    return game


_TURN_FIELDS = ["ply", "black", "white", "status", "clock", "clock_version", "deadline"]
_TURN: PreparedUpdate[Game] = PreparedUpdate(Game, _TURN_FIELDS)  # a turn's columns, its SQL built once


def _after_turn(game: Game, actor: Any, interface: str) -> Game:
    """A turn that did not end the game on the board may end it on the clock (overtime exhausted)."""
    if clock.overtime_exhausted(clock_of(game), control_of(game)):
        return game_finish(
            game=game, result=GameResult.DRAW, reason=ResultReason.OVERTIME_EXHAUSTED, actor=actor, interface=interface
        )
    schedule(game)
    call_computer(game)
    return game


def game_resign(
    *, game_id: int, player: Player, actor: Any = None, interface: str = "api", at: datetime | None = None
) -> Game:
    """A resignation; a loss on time that fell due earlier is settled first and stands."""
    game_settle(game_id=game_id, at=at or timezone.now(), path="lazy_write")
    return _game_resign(game_id=game_id, player=player, actor=actor, interface=interface)


@transaction.atomic
def _game_resign(*, game_id: int, player: Player, actor: Any, interface: str) -> Game:
    game = lock_game(game_id)
    require_online(game)
    require_active(game)
    seat = seat_of(game, player)
    state = game_state(game)
    loser = state.opening.color_of(seat)
    return game_finish(
        game=game,
        result=GameResult(str(loser.other)),
        reason=ResultReason.RESIGNATION,
        actor=actor,
        interface=interface,
    )


def game_pass(
    *,
    game_id: int,
    player: Player | Callable[[Game], Player],
    expected_ply: int,
    actor: Any = None,
    interface: str = "api",
    at: datetime | None = None,
    think_ms: int | None = None,
    queued_ms: int = 0,
    live: bool = False,
) -> Game:
    return game_act(
        game_id=game_id,
        player=player,
        action=Action(Kind.PASS),
        expected_ply=expected_ply,
        actor=actor,
        interface=interface,
        at=at,
        think_ms=think_ms,
        queued_ms=queued_ms,
        live=live,
    )
