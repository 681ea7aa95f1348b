"""State changes of games: one function per transition, each in a transaction.

Every service guards its transition (the expected ply, the game's status) and
is safe to retry: a repeated submission finds the ply taken and changes
nothing. Every way a game ends goes through :func:`game_finish`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from engine import Board, Color, IllegalMoveError, InvalidMoveError, Point, find_rules, parse_moves
from engine.protocols import Action, Kind, OpeningState, Options, ProtocolError, apply, start
from engine.protocols import Player as Seat
from engine.renju import explain
from games import clock
from games.enums import (
    ClaimStatus,
    ForbiddenMode,
    GameMode,
    GameResult,
    GameStatus,
    ReportStatus,
    ResultReason,
    WrongClaimPenalty,
)
from games.messages import foul_label, translate
from games.models import ForbiddenClaim, Game, GameEvent, Move, Player, ResultReport
from games.records import (
    PlainRecord,
    RecordError,
    check_report,
    parse_actions,
    parse_plain,
    parse_rif,
    parse_times,
    replay_actions,
    replay_record,
    result_from_code,
)
from games.signals import game_finished

logger = logging.getLogger(__name__)


class GameError(Exception):
    """A refused action: a stable ``code``, a translated ``message`` and an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass
class GameState:
    """A game's position derived from its record: the opening and the board."""

    opening: OpeningState
    board: Board

    def holder(self, color: Color) -> Seat:
        return self.opening.holder(color)

    @property
    def to_act(self) -> Seat:
        """Who acts next: the opening's actor, then the holder of the colour to move."""
        return self.opening.actor if not self.opening.finished else self.holder(self.board.turn)


def _options(game: Game) -> Options:
    return Options(**game.protocol_options)


# Positions by (game, ply): a record only ever grows, so a ply names one position for good.
_POSITIONS: OrderedDict[tuple[int, int], tuple[OpeningState, Board]] = OrderedDict()
_POSITIONS_LOCK = threading.Lock()
_POSITIONS_KEPT = 4096


def _position_key(game: Game, ply: int | None = None) -> tuple[Any, ...]:
    # The creation instant guards against a primary key reused after a rolled-back insert.
    return (game.pk, game.created_at, game.ply if ply is None else ply)


def _remember(key: tuple[Any, ...], state: GameState) -> None:
    """Keep a committed position (never one seen inside a transaction that may still roll back)."""
    with _POSITIONS_LOCK:
        _POSITIONS[key] = (state.opening, state.board.copy())
        _POSITIONS.move_to_end(key)
        while len(_POSITIONS) > _POSITIONS_KEPT:
            _POSITIONS.popitem(last=False)


def _remember_on_commit(game: Game, state: GameState) -> None:
    key, snapshot = _position_key(game), GameState(state.opening, state.board.copy())
    transaction.on_commit(lambda: _remember(key, snapshot))


def game_state(game: Game) -> GameState:
    """The position after the game's ``ply`` actions: the opening, then the board moves.

    Replays the record from the database, or takes the position from a small
    per-process cache (it cannot go stale: the record is append-only).
    """
    with _POSITIONS_LOCK:
        known = _POSITIONS.get(_position_key(game))
    if known is not None:
        return GameState(known[0], known[1].copy())
    opening = start(game.protocol, _options(game))
    board_moves: list[str] = []
    for player_number, text in (
        game.moves.filter(ply__lte=game.ply).order_by("ply").values_list("player_number", "text")
    ):
        action = Action.parse(text)
        if not opening.finished:
            opening = apply(opening, Seat(player_number), action)
        else:
            board_moves.append("pass" if action.kind is Kind.PASS else str(action.points[0]))
    state = GameState(opening, Board.replay([*(str(m) for m in opening.moves), *board_moves]))
    if not transaction.get_connection().in_atomic_block:
        _remember(_position_key(game), state)
    return state


def seat_of(game: Game, player: Player) -> Seat:
    if player.pk == game.player_one_id:
        return Seat.ONE
    if player.pk == game.player_two_id:
        return Seat.TWO
    raise GameError("not_your_game", _("You are not a player in this game."), 403)


def _log(game: Game, kind: str, actor: Any = None, interface: str = "api", **data: Any) -> None:
    GameEvent.objects.create(game=game, kind=kind, actor=actor, interface=interface, data=data)


# -- the clock ------------------------------------------------------------------


def ms(moment: datetime) -> int:
    """Milliseconds since the epoch: the clock's unit."""
    return int(round(moment.timestamp() * 1000))


def from_ms(value: int) -> datetime:
    return datetime.fromtimestamp(value / 1000, tz=UTC)


def _control(game: Game) -> clock.TimeControl:
    return clock.TimeControl.from_dict(game.time_control) if game.time_control else clock.PRESETS["untimed"]


def _clock(game: Game) -> clock.ClockState:
    return clock.ClockState.from_dict(game.clock) if game.clock else clock.initial(_control(game))


def _log_clock(game: Game, events: list[clock.Event], interface: str, actor: Any = None) -> None:
    GameEvent.objects.bulk_create(
        [
            GameEvent(
                game=game, kind="clock", actor=actor, interface=interface, data={"op": e.op, "at": e.at, "args": e.args}
            )
            for e in events
        ]
    )


def _clock_apply(
    game: Game, state: clock.ClockState, events: list[clock.Event], interface: str = "system", actor: Any = None
) -> None:
    """Put a new clock state on the (locked) game and log its events; the caller saves."""
    game.clock = state.to_dict()
    game.clock_version = state.version
    dl = clock.flag_deadline(state, _control(game))
    game.deadline = None if dl is None else from_ms(dl)
    _log_clock(game, events, interface, actor)


def _clock_seat(seat: Seat) -> clock.Seat:
    return 0 if seat is Seat.ONE else 1


def _clock_turn(
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
    control = _control(game)
    state = _clock(game)
    events: list[clock.Event] = []
    if state.status == "waiting":
        state, events = clock.start(state, control, ms(at), _clock_seat(seat))
    try:
        state, more, readings = clock.play(
            state,
            control,
            ms(at),
            _clock_seat(next_actor),
            credit_ms=credit_ms,
            next_start=None if next_start is None else ms(next_start),
        )
    except clock.ClockError as exc:
        if exc.code == "time_over":
            raise GameError("time_over", _("Time ran out; the game is over."), 409) from None
        raise GameError(exc.code, _("The referee has paused the game.")) from None
    _clock_apply(game, state, events + more, interface)
    return readings


def _schedule(game: Game) -> None:
    """After commit, make sure a worker adjudicates at the deadline (the sweeper covers a failed publish)."""
    if game.deadline is None or not settings.CLOCK_ETA_TASKS:
        return
    game_id, version, deadline = game.pk, game.clock_version, game.deadline

    def publish() -> None:
        from games.tasks import enqueue

        enqueue(game_id, version, deadline)

    transaction.on_commit(publish)


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
    return _settle_locked(game, at or timezone.now(), path, expected_version)


def _settle_locked(game: Game, at: datetime, path: str, expected_version: int | None = None, hold: bool = True) -> str:
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
    grace = timedelta(milliseconds=_control(game).grace_ms)
    if game.deadline is None or game.deadline - grace >= at:  # nothing can be due yet: no work, no writes
        return "not_due"
    state, events = clock.settle(_clock(game), _control(game), ms(at))
    if not events:
        return "not_due"
    flag = next((e for e in events if e.op == "flag"), None)
    if hold and flag is not None and _request_waiting(from_ms(flag.at), at):
        return "held"
    _clock_apply(game, state, events, interface="system")
    game.save(update_fields=["clock", "clock_version", "deadline"])
    if state.status == "finished" and state.result.startswith("timeout"):
        loser = Seat.ONE if state.result == "timeout 0" else Seat.TWO
        colour = game_state(game).opening.color_of(loser)
        Game.objects.filter(pk=game.pk).update(adjudicated_by=path)
        game_finish(
            game=game,
            result=GameResult(str(colour.other)),
            reason=ResultReason.TIME,
            detail=str(colour),  # the colour that ran out of time; shown as text by games.messages.result_text
            interface="system",
        )
    else:
        _schedule(game)
    return "applied"


@transaction.atomic
def games_settle_due(*, at: datetime | None = None, path: str = "sweeper", limit: int = 500) -> int:
    """Settle every online game whose deadline has passed by ``at``, in one transaction; returns how many.

    The background adjudicators' path: a burst of deadlines (a round's clocks
    running out together) costs one pass, not one task each. Losses on time
    are written in bulk with the same columns, events and signal as
    :func:`game_finish`; a flag waits as in :func:`_settle_locked` while a
    request that arrived before it is still served; anything else that falls
    due (a draw offer lapsing) goes through :func:`_settle_locked`.
    """
    at = at or timezone.now()
    due = list(
        Game.objects.select_for_update()
        .filter(status__in=GameStatus.active(), mode=GameMode.ONLINE, deadline__lte=at)
        .order_by("deadline")[:limit]
    )
    flagged: list[tuple[Game, clock.ClockState, list[clock.Event], str, str]] = []
    waiting: float | None | bool = False  # asked once per pass, when a flag needs it
    settled = 0
    for game in due:
        state, events = clock.settle(_clock(game), _control(game), ms(at))
        flag = next((e for e in events if e.op == "flag"), None)
        if flag is None or state.status != "finished":
            settled += _settle_locked(game, at, path) == "applied"
            continue
        if waiting is False:
            waiting = import_string(settings.CLOCK_WAITING_SINCE)()
        flag_at = from_ms(flag.at)
        if waiting is not None and waiting <= flag_at.timestamp() and at - flag_at <= _hold_max():
            continue
        loser_id = game.player_one_id if state.result == "timeout 0" else game.player_two_id
        loser_colour = "black" if loser_id == game.black_id else "white"
        winner = GameResult.WHITE if loser_colour == "black" else GameResult.BLACK
        flagged.append((game, state, events, winner, loser_colour))
    if not flagged:
        return settled
    now = timezone.now()
    log: list[GameEvent] = []
    for game, state, events, winner, loser_colour in flagged:
        fields, closing = _finished_fields(state, winner, ResultReason.TIME, loser_colour, now)
        for name, value in fields.items():
            setattr(game, name, value)
        game.adjudicated_by = path
        log += [
            GameEvent(game=game, kind="clock", interface="system", data={"op": e.op, "at": e.at, "args": e.args})
            for e in [*events, *closing]
        ]
        log.append(
            GameEvent(
                game=game,
                kind="finished",
                interface="system",
                data={"result": winner, "reason": ResultReason.TIME, "detail": loser_colour},
            )
        )
    Game.objects.bulk_update([g for g, *_rest in flagged], [*fields, "adjudicated_by"])
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


def _clock_action(game_id: int, at: datetime | None, path: str) -> tuple[Game, datetime]:
    """Lock a game for a clock action after settling what is due."""
    at = at or timezone.now()
    game_settle(game_id=game_id, at=at, path=path)
    game = _lock(game_id)
    _require_online(game)
    _require_active(game)
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
        game, at = _clock_action(game_id, at, "lazy_write")
        seat = seat_of(game, player)
        try:
            state, events = clock.offer(_running_clock(game, at), _control(game), ms(at), _clock_seat(seat))
        except clock.ClockError as exc:
            raise _clock_error(exc) from None
        _clock_apply(game, state, events, interface, actor)
        game.save()
        _log(game, "draw_offer", actor, interface, seat=int(seat))
        _schedule(game)
    return game


def _running_clock(game: Game, at: datetime) -> clock.ClockState:
    """An untimed game's clock starts with its first offer or pause, so offers work without a time control."""
    state = _clock(game)
    if state.status == "waiting":
        actor = _clock_seat(game_state(game).to_act)
        state, events = clock.start(state, _control(game), ms(at), actor)
        _log_clock(game, events, "system")
    return state


def game_answer_draw(
    *, game_id: int, player: Player, accept: bool, at: datetime | None = None, actor: Any = None, interface: str = "api"
) -> Game:
    with transaction.atomic():
        game, at = _clock_action(game_id, at, "lazy_write")
        seat = seat_of(game, player)
        try:
            state, events = clock.answer(_clock(game), _control(game), ms(at), _clock_seat(seat), accept)
        except clock.ClockError as exc:
            raise _clock_error(exc) from None
        _clock_apply(game, state, events, interface, actor)
        game.save()
        _log(game, "draw_answer", actor, interface, seat=int(seat), accept=accept)
        if accept:
            return game_finish(
                game=game, result=GameResult.DRAW, reason=ResultReason.AGREEMENT, actor=actor, interface=interface
            )
        _schedule(game)
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
        game, at = _clock_action(game_id, at, "lazy_write")
        control, now = _control(game), ms(at)
        try:
            if op == "start":
                actor_seat = _clock_seat(game_state(game).to_act)
                state, events = clock.start(_clock(game), control, now, actor_seat)
            elif op == "pause":
                state, events = clock.referee_pause(_running_clock(game, at), now)
            elif op == "resume":
                state, events = clock.referee_resume(_clock(game), now)
            elif op == "add_time":
                if seat not in (1, 2):
                    raise GameError("bad_seat", _("The seat is 1 or 2."))
                state, events = clock.add_time(_clock(game), control, now, 0 if seat == 1 else 1, ms_added, target)
            else:
                raise GameError("bad_action", _("Unknown clock action."))
        except clock.ClockError as exc:
            raise _clock_error(exc) from None
        _clock_apply(game, state, events, interface, actor)
        game.save()
        _log(game, f"clock_{op}", actor, interface, seat=seat, ms=ms_added, target=target)
        _schedule(game)
    return game


def clock_view(game: Game, now: datetime | None = None) -> dict[str, Any]:
    """The clock as a client shows it, with the server's time and the deadline as ISO instants."""
    now = now or timezone.now()
    control = _control(game)
    data = clock.view(_clock(game), control, ms(now)).to_dict()
    # Seats are numbered 1 and 2 everywhere in the API (the clock module counts from 0).
    data["actor"] = data["actor"] + 1
    data["offer_by"] = None if data["offer_by"] is None else data["offer_by"] + 1
    data["server_time"] = now.isoformat()
    data["deadline"] = None if data["deadline"] is None else from_ms(data["deadline"]).isoformat()
    data["time_control"] = control.to_dict()
    return data


def _sync_colours(game: Game, state: GameState) -> None:
    black = game.player_one if state.holder(Color.BLACK) is Seat.ONE else game.player_two
    white = game.player_two if black.pk == game.player_one_id else game.player_one
    game.black, game.white = black, white


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
    **fields: Any,
) -> Game:
    """A new game; with no opening protocol it starts in normal play.

    ``time_control`` is a preset name or custom options (:mod:`games.clock`);
    the clock starts at ``start_clock_at``, or with the first action.
    """
    if player_one.pk == player_two.pk:
        raise GameError("same_player", _("A player cannot play against themselves."))
    try:
        find_rules(rules)
        start(protocol, Options(**(protocol_options or {})))
        control = clock.find_time_control(time_control)
    except (ValueError, TypeError) as exc:  # unknown rule set, protocol, option, opening or time control
        raise GameError("bad_setup", translate(str(exc))) from None
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
    _sync_colours(game, state)
    game.status = GameStatus.PLAYING if state.opening.finished else GameStatus.OPENING
    game.save()
    _log(game, "created", actor, interface, protocol=protocol, rules=rules, time_control=control.name)
    if start_clock_at is not None and game.mode != GameMode.OVER_THE_BOARD:
        _clock_apply(
            game,
            *clock.start(_clock(game), control, ms(start_clock_at), _clock_seat(state.to_act)),
            interface=interface,
        )
        game.save()
        _schedule(game)
    return game


def _lock(game_id: int) -> Game:
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise GameError("no_game", _("There is no such game."), 404)
    return game


def _record(
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
    """Store one action at ``expected_ply + 1``; a stale or repeated ply changes nothing."""
    updated = Game.objects.filter(pk=game.pk, ply=expected_ply).update(ply=F("ply") + 1)
    if updated != 1:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409)
    try:
        with transaction.atomic():
            move = Move.objects.create(
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
    except IntegrityError:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409) from None
    game.ply = expected_ply + 1
    return move


def game_act(
    *,
    game_id: int,
    player: Player,
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
    Side effects: stores a Move with its clock readings, logs an event, and
    ends the game (through :func:`game_finish`) on a five, an adjudicated
    foul, two passes, a full board or exhausted overtime.
    """
    at = at or timezone.now()
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
    player: Player,
    action: Action | str,
    expected_ply: int,
    actor: Any,
    interface: str,
    at: datetime,
    think_ms: int | None = None,
    queued_ms: int = 0,
    live: bool = False,
) -> Game | None:
    game = _lock(game_id)
    _require_online(game)
    acting = player.pk in (game.player_one_id, game.player_two_id) and _clock(game).actor == _clock_seat(
        seat_of(game, player)
    )
    credit = clock.lag_credit(_clock(game), _control(game), ms(at), think_ms) if acting else 0
    if _settle_locked(game, at - timedelta(milliseconds=credit), "lazy_write", hold=not acting) == "applied":
        game.refresh_from_db()
        if game.status not in GameStatus.active():
            return None
    _require_active(game)
    if game.ply != expected_ply:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409)
    if isinstance(action, str):
        try:
            action = Action.parse(action)
        except ProtocolError as exc:
            raise GameError("bad_action", translate(str(exc))) from None
    seat = seat_of(game, player)
    state = game_state(game)
    timing = _Timing(at, credit, queued_ms, live)
    if not state.opening.finished:
        return _opening_action(game, state, seat, action, expected_ply, actor, interface, timing)
    return _board_move(game, state, seat, action, expected_ply, actor, interface, timing)


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

    def log(self) -> dict[str, int]:
        return {k: v for k, v in (("lag_credit_ms", self.credit_ms), ("queued_ms", self.queued_ms)) if v}


def _require_online(game: Game) -> None:
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


def _require_active(game: Game) -> None:
    if game.status in GameStatus.active():
        return
    if game.result_reason == ResultReason.TIME:
        raise GameError("time_over", _("Time ran out; the game is over."), 409)
    raise GameError("game_over", _("The game is over."), 409)


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
        raise GameError("protocol", translate(str(exc))) from None
    number = len(after.moves) if len(after.moves) > len(state.opening.moves) else None
    readings = _clock_turn(game, seat, timing.at, after.actor, interface, timing.credit_ms, timing.next_start)
    _record(
        game,
        expected_ply=expected_ply,
        seat=seat,
        action=action,
        color=state.opening.color_of(seat),
        move_number=number,
        readings=readings,
    )
    state.opening = after
    _sync_colours(game, state)
    if after.finished:
        game.status = GameStatus.PLAYING
    game.save(update_fields=_TURN_FIELDS)
    _remember_on_commit(game, GameState(after, Board.replay(list(after.moves))))
    _log(game, "action", actor, interface, action=str(action), seat=int(seat), **timing.log())
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
    readings = _clock_turn(
        game, seat, timing.at, state.holder(color.other), interface, timing.credit_ms, timing.next_start
    )
    move = _record(
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
    _remember_on_commit(game, GameState(state.opening, board))
    _log(game, "move", actor, interface, action=str(action), move_number=move.move_number, foul=foul, **timing.log())
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
    game.save(update_fields=_TURN_FIELDS)
    return _after_turn(game, actor, interface)


_TURN_FIELDS = ["black", "white", "status", "clock", "clock_version", "deadline"]


def _after_turn(game: Game, actor: Any, interface: str) -> Game:
    """A turn that did not end the game on the board may end it on the clock (overtime exhausted)."""
    if clock.overtime_exhausted(_clock(game), _control(game)):
        return game_finish(
            game=game, result=GameResult.DRAW, reason=ResultReason.OVERTIME_EXHAUSTED, actor=actor, interface=interface
        )
    _schedule(game)
    return game


def _finished_fields(
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


def game_finish(
    *,
    game: Game,
    result: str,
    reason: str,
    detail: str = "",
    actor: Any = None,
    interface: str = "api",
    correction: str = "",
    confirm: str = "",
) -> Game:
    """The one way a game ends. Idempotent: a finished game is returned unchanged.

    With ``correction`` (the organizer's reason) a finished result is replaced;
    the previous one stays in the event log. ``confirm`` is passed on to the
    listeners of :data:`games.signals.game_finished`: the organizer's reason
    for a correction that a listener would otherwise refuse (a tournament's
    next stage already under way). A listener refuses by raising
    :class:`GameError`, which rolls the whole change back.
    """
    before = (game.result, game.result_reason, game.result_detail)
    games = Game.objects.filter(pk=game.pk).exclude(status=GameStatus.CANCELLED)
    if not correction:
        games = games.exclude(status=GameStatus.FINISHED)
    fields, events = _finished_fields(_clock(game), result, reason, detail, timezone.now())
    updated = games.update(**fields)
    if updated:
        _log_clock(game, events, interface)
    game.refresh_from_db()
    if updated and correction:
        _log(
            game,
            "corrected",
            actor,
            interface,
            result=result,
            reason=reason,
            detail=detail,
            previous={"result": before[0], "reason": before[1], "detail": before[2]},
            note=correction,
        )
    elif updated:
        _log(game, "finished", actor, interface, result=result, reason=reason, detail=detail)
    if updated:
        game_finished.send(sender=Game, game=game, correction=bool(correction), confirm=confirm, actor=actor)
    return game


def game_resign(
    *, game_id: int, player: Player, actor: Any = None, interface: str = "api", at: datetime | None = None
) -> Game:
    """A resignation; a loss on time that fell due earlier is settled first and stands."""
    game_settle(game_id=game_id, at=at or timezone.now(), path="lazy_write")
    return _game_resign(game_id=game_id, player=player, actor=actor, interface=interface)


@transaction.atomic
def _game_resign(*, game_id: int, player: Player, actor: Any, interface: str) -> Game:
    game = _lock(game_id)
    _require_online(game)
    _require_active(game)
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


def _judge_claim(claim: ForbiddenClaim, before: Board, point: Point, rules_name: str, moves_after: int) -> None:
    """The engine's verdict on black ``point`` in ``before``, with the timeliness rule.

    A double-three or double-four must be claimed before white's next move
    (``moves_after`` is 0: no move followed black's stone); an overline any
    time until the game ends (rules.md §3.5, D2).
    """
    rules = find_rules(rules_name)
    outcome = rules.move_outcome(before, point)
    found = explain(before, point, rules.five_extension_is_three) if rules.black_forbidden else None
    shapes = found.shapes if found is not None else ()
    claim.explanation = {
        "kind": "none",
        "shapes": [
            {"kind": s.kind, "stones": [str(p) for p in s.stones], "points": [str(p) for p in s.points]} for s in shapes
        ],
    }
    if outcome is not None and outcome.reason is not None:
        claim.verdict = outcome.reason.value
        claim.explanation["kind"] = claim.verdict
    else:  # the engine's reason for a rejection: a five, or too few fours and real threes (rules.md §3)
        claim.verdict = "none"
        fours = sum(1 for s in shapes if s.kind == "four")
        threes = sum(1 for s in shapes if s.kind == "three")
        five = bool(found and found.five) or not rules.black_forbidden
        claim.explanation.update(
            reason="five" if five and rules.black_forbidden else "no_forbidden_rule" if five else "not_forbidden",
            fours=fours,
            threes=threes,
        )
    timely = claim.verdict == "overline" or moves_after == 0
    if claim.verdict == "none":
        claim.status = ClaimStatus.REJECTED
    elif not timely:
        claim.status = ClaimStatus.LATE
    else:
        claim.status = ClaimStatus.UPHELD


@transaction.atomic
def game_claim_forbidden(
    *, game_id: int, move_number: int, claimant: Player | None = None, actor: Any = None, interface: str = "api"
) -> ForbiddenClaim:
    """White's claim that black's move ``move_number`` was forbidden (claim mode).

    A double-three or double-four must be claimed before white's next move;
    an overline any time before the game ends (rules.md §3.5, D2). A five
    made together with a foul wins and cannot be claimed. An upheld claim
    ends the game as a white win; a wrong one is logged, and with the
    ``lose_turn`` penalty white's next move is a pass.
    """
    game = _lock(game_id)
    if game.status not in GameStatus.active():
        raise GameError("game_over", _("The game is over."), 409)
    if game.forbidden_mode != ForbiddenMode.CLAIM:
        raise GameError("no_claims", _("In this game fouls are judged at once; there is nothing to claim."))
    state = game_state(game)
    if claimant is not None and state.holder(Color.WHITE) is not seat_of(game, claimant):
        raise GameError("not_white", _("Only the player with white may claim a forbidden move."), 403)
    stack = state.board.move_stack
    if not 1 <= move_number <= len(stack) or move_number % 2 == 0 or stack[move_number - 1].point is None:
        raise GameError("bad_claim", _("Move %(n)s is not a black stone.") % {"n": move_number})
    point = stack[move_number - 1].point
    assert point is not None
    before = Board.replay(stack[: move_number - 1])
    claim = ForbiddenClaim(game=game, move_number=move_number, point=str(point), claimed_by=actor)
    _judge_claim(claim, before, point, game.rules, moves_after=len(stack) - move_number)
    _settle_claim(game, claim, actor, interface)
    if (
        claim.status == ClaimStatus.REJECTED
        and game.wrong_claim_penalty == WrongClaimPenalty.LOSE_TURN
        and state.board.turn is Color.WHITE
    ):
        _record(
            game,
            expected_ply=game.ply,
            seat=state.holder(Color.WHITE),
            action=Action(Kind.PASS),
            color=Color.WHITE,
            move_number=len(stack) + 1,
        )
        game.save()
    return claim


def _settle_claim(game: Game, claim: ForbiddenClaim, actor: Any, interface: str) -> None:
    claim.save()
    _log(
        game,
        "claim",
        actor,
        interface,
        move_number=claim.move_number,
        point=claim.point,
        status=claim.status,
        verdict=claim.verdict,
    )
    if claim.status == ClaimStatus.UPHELD:
        game_finish(
            game=game,
            result=GameResult.WHITE,
            reason=ResultReason.FORBIDDEN,
            detail=claim.verdict,
            actor=actor,
            interface=interface,
        )


@transaction.atomic
def game_referee_claim(
    *, game_id: int, record: str, point: str, moves_after: int = 0, actor: Any = None, interface: str = "api"
) -> ForbiddenClaim:
    """A referee records an over-the-board claim: the record before the claimed stone, and the stone.

    ``moves_after`` counts the moves played after the claimed stone before
    the claim; a double-three or double-four claimed after white's next
    move is late. The engine's verdict and its explanation are stored; an
    upheld claim ends the game as a white win.
    """
    game = _lock(game_id)
    if game.status not in GameStatus.active():
        raise GameError("game_over", _("The game is over."), 409)
    if moves_after < 0:
        raise GameError("bad_claim", _("The number of moves after the claimed stone cannot be negative."))
    try:
        before = Board.replay(parse_moves(record))
        target = before.to_point(point)
    except (InvalidMoveError, IllegalMoveError) as exc:
        raise GameError("bad_record", translate(str(exc))) from None
    if before.turn is not Color.BLACK:
        raise GameError("bad_claim", _("Move %(n)s is not a black stone.") % {"n": before.ply + 1})
    if not before.is_empty(target):
        raise GameError("occupied", _("That point is already occupied."))
    if before.move_stack and find_rules(game.rules).outcome(before) is not None:
        raise GameError("bad_record", _("The record already ends the game."))
    claim = ForbiddenClaim(game=game, move_number=before.ply + 1, point=str(target), claimed_by=actor)
    _judge_claim(claim, before, target, game.rules, moves_after=moves_after)
    _settle_claim(game, claim, actor, interface)
    if claim.status == ClaimStatus.UPHELD:
        Game.objects.filter(pk=game.pk).update(record_text=f"{record} {target}".strip())
    return claim


# -- over-the-board results ---------------------------------------------------

DRAW_REASONS = {
    ResultReason.AGREEMENT,
    ResultReason.OVERTIME_EXHAUSTED,
    ResultReason.FULL_BOARD,
    ResultReason.TWO_PASSES,
    ResultReason.REFEREE,
}
DECISIVE_REASONS = set(ResultReason) - DRAW_REASONS | {ResultReason.REFEREE}
REPORTABLE_REASONS = [
    ResultReason.FIVE,
    ResultReason.FORBIDDEN,
    ResultReason.TIME,
    ResultReason.RESIGNATION,
    ResultReason.AGREEMENT,
    ResultReason.OVERTIME_EXHAUSTED,
    ResultReason.NO_SHOW,
    ResultReason.LIFTED_STONE,
    ResultReason.DROPPED_STONE,
    ResultReason.LEFT_GAME,
    ResultReason.REFEREE,
]


def _check_result(result: str, reason: str, record: str, game: Game) -> str:
    """Refuse an impossible (result, reason) pair or a record that contradicts it; return the record."""
    if result not in GameResult.values:
        raise GameError("bad_result", _("The result is black, white or draw."))
    if reason not in ResultReason.values:
        raise GameError("bad_result", _("Unknown reason %(reason)s.") % {"reason": reason})
    label = ResultReason(reason).label
    if result == GameResult.DRAW and reason not in DRAW_REASONS:
        raise GameError("bad_result", _("A game cannot be drawn by %(reason)s.") % {"reason": label})
    if result != GameResult.DRAW and reason not in DECISIVE_REASONS:
        raise GameError("bad_result", _("%(reason)s ends a game in a draw.") % {"reason": label})
    if reason == ResultReason.FORBIDDEN and result != GameResult.WHITE:
        raise GameError("bad_result", _("A forbidden move is a white win."))
    if not record.strip():
        return ""
    try:
        replay = check_report(record, game.rules, game.forbidden_mode, result, reason)
    except RecordError as exc:
        raise GameError("bad_record", str(exc)) from None
    return " ".join(str(m) for m in replay.board.move_stack)


def _open_report(game: Game) -> ResultReport | None:
    return game.reports.select_for_update().filter(status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED]).first()


def _otb_game(game_id: int) -> Game:
    game = _lock(game_id)
    if game.mode != GameMode.OVER_THE_BOARD:
        raise GameError("online_game", _("An online game's result comes from its moves, not from a report."))
    if game.status == GameStatus.FINISHED:
        raise GameError("game_over", _("The game is over."), 409)
    return game


@transaction.atomic
def game_report_result(
    *,
    game_id: int,
    reporter: Player,
    result: str,
    reason: str,
    record: str = "",
    actor: Any = None,
    interface: str = "api",
) -> ResultReport:
    """A player reports an over-the-board result; the opponent confirms or disputes it.

    A player may replace their own pending report; while the opponent's
    report is open the player answers it instead.
    """
    game = _otb_game(game_id)
    seat_of(game, reporter)
    record = _check_result(result, reason, record, game)
    open_report = _open_report(game)
    if open_report is not None:
        if open_report.reporter_id != reporter.pk:
            raise GameError("report_pending", _("Your opponent has reported a result: confirm or dispute it."), 409)
        if open_report.status == ReportStatus.DISPUTED:
            raise GameError("report_disputed", _("The result is disputed; the referee decides."), 409)
        open_report.status = ReportStatus.WITHDRAWN
        open_report.save(update_fields=["status"])
    report = ResultReport.objects.create(
        game=game, reporter=reporter, reported_by=actor, result=result, reason=reason, record=record
    )
    _log(game, "reported", actor, interface, report=report.pk, result=result, reason=reason, record=record)
    return report


def _answerable_report(game: Game, player: Player) -> ResultReport:
    seat_of(game, player)
    report = _open_report(game)
    if report is None or report.status != ReportStatus.PENDING:
        raise GameError("no_report", _("There is no reported result to answer."), 409)
    if report.reporter_id == player.pk:
        raise GameError("own_report", _("Your opponent must answer your report."), 403)
    return report


def _close_report(report: ResultReport, status: str, actor: Any, note: str = "") -> None:
    report.status = status
    report.answered_by = actor
    report.answered_at = timezone.now()
    report.note = note
    report.save(update_fields=["status", "answered_by", "answered_at", "note"])


@transaction.atomic
def game_confirm_result(*, game_id: int, player: Player, actor: Any = None, interface: str = "api") -> Game:
    """The opponent confirms the reported result: the game ends with it."""
    game = _otb_game(game_id)
    report = _answerable_report(game, player)
    _close_report(report, ReportStatus.CONFIRMED, actor)
    _log(game, "confirmed", actor, interface, report=report.pk)
    if report.record:
        Game.objects.filter(pk=game.pk).update(record_text=report.record)
    return game_finish(game=game, result=report.result, reason=report.reason, actor=actor, interface=interface)


@transaction.atomic
def game_dispute_result(
    *, game_id: int, player: Player, note: str = "", actor: Any = None, interface: str = "api"
) -> ResultReport:
    """The opponent disputes the reported result: the game's referees decide."""
    game = _otb_game(game_id)
    report = _answerable_report(game, player)
    report.status = ReportStatus.DISPUTED
    report.note = note[:500]
    report.save(update_fields=["status", "note"])
    _log(
        game,
        "disputed",
        actor,
        interface,
        report=report.pk,
        note=report.note,
        referees=list(game.referees.values_list("pk", flat=True)),
    )
    return report


@transaction.atomic
def game_rule(
    *,
    game_id: int,
    result: str,
    reason: str,
    note: str = "",
    record: str = "",
    actor: Any = None,
    interface: str = "api",
) -> Game:
    """A referee's ruling: settles an open report (or the game directly) and ends the game."""
    game = _lock(game_id)
    if game.status == GameStatus.FINISHED:
        raise GameError("game_over", _("The game is over; only the organizer can correct its result."), 409)
    record = _check_result(result, reason, record, game)
    report = _open_report(game)
    if report is not None:
        _close_report(report, ReportStatus.RULED, actor, note[:500])
    _log(game, "ruled", actor, interface, result=result, reason=reason, note=note, report=report and report.pk)
    if record:
        Game.objects.filter(pk=game.pk).update(record_text=record)
    return game_finish(game=game, result=result, reason=reason, detail=note[:200], actor=actor, interface=interface)


@transaction.atomic
def game_override(
    *, game_id: int, result: str, reason: str, note: str, actor: Any = None, interface: str = "api", confirm: str = ""
) -> Game:
    """The organizer sets the result, finished or not, with a reason; the old one stays in the log.

    ``confirm``: see :func:`game_finish`.
    """
    game = _lock(game_id)
    if game.status == GameStatus.CANCELLED:
        raise GameError("game_cancelled", _("The game was cancelled; it has no result to correct."), 409)
    if not note.strip():
        raise GameError("reason_required", _("Say why the result is overridden."))
    _check_result(result, reason, "", game)
    report = _open_report(game)
    if report is not None:
        _close_report(report, ReportStatus.OVERRIDDEN, actor, note[:500])
    return game_finish(
        game=game,
        result=result,
        reason=reason,
        detail=note[:200],
        actor=actor,
        interface=interface,
        correction=note[:500],
        confirm=confirm,
    )


def game_pass(
    *,
    game_id: int,
    player: Player,
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


# -- records ------------------------------------------------------------------


def _player_named(label: str) -> Player:
    """``Name (Unit)`` or ``Name``: the existing player, or a new one."""
    label = label.strip()
    name, unit = label, ""
    if label.endswith(")") and " (" in label:
        name, unit = label[:-1].split(" (", 1)
    if not name:
        raise GameError("bad_record", _("The record names no black or no white player."))
    player = Player.objects.filter(name=name, unit=unit).order_by("pk").first()
    return player or Player.objects.create(name=name, unit=unit)


def _read_record(text: str) -> PlainRecord:
    """One game from the plain format or a ``.rif`` database."""
    if not text.lstrip().startswith("<"):
        return parse_plain(text)
    records = parse_rif(text)
    if len(records) != 1:
        raise RecordError(_("The .rif file holds %(n)s games; import one game at a time.") % {"n": len(records)})
    return records[0]


@transaction.atomic
def game_import(*, text: str, actor: Any = None, interface: str = "api") -> Game:
    """A finished over-the-board game from the plain format or ``.rif``; the engine checks every move.

    A record with the opening protocol's actions (swaps, declarations, offers) is
    replayed through the protocol and keeps every action, who took it and its time.
    """
    try:
        parsed = _read_record(text)
        header = parsed.header
        result = result_from_code(header.get("Result", ""))
        rules = header.get("Rule", "renju")
        find_rules(rules)
        protocol = header.get("Protocol", "") or "none"
        options_data = json.loads(header.get("Options", "") or "{}")
        options = Options(**options_data)
        start(protocol, options)
        replay = replay_actions(protocol, options, parse_actions(parsed.moves)) if "{" in parsed.moves else None
        stones = replay.stones if replay else parsed.moves
        reason = header.get("Reason", "") or (_infer_reason(stones, rules, result) if result else "")
        times = parse_times(header.get("Times", ""), len(replay.actions)) if replay else []
        control = header.get("TimeControl", "") or None
        time_control = json.loads(control) if control and control.startswith("{") else control
    except (RecordError, ValueError, TypeError) as exc:  # a bad header value, option, protocol or action
        raise GameError("bad_record", translate(str(exc))) from None
    forbidden_mode = header.get("Forbidden", ForbiddenMode.CLAIM)
    if forbidden_mode not in ForbiddenMode.values:
        raise GameError("bad_record", _("Unknown forbidden-move handling %(mode)s.") % {"mode": forbidden_mode})
    black = _player_named(header.get("Black", ""))
    white = _player_named(header.get("White", ""))
    one, two = black, white
    if replay is not None and replay.opening.holder(Color.BLACK) is Seat.TWO:  # the players swapped colours
        one, two = white, black
    if one.pk == two.pk:
        raise GameError("same_player", _("A player cannot play against themselves."))
    game = game_create(
        player_one=one,
        player_two=two,
        rules=rules,
        protocol=protocol,
        protocol_options=options_data,
        mode=GameMode.OVER_THE_BOARD,
        forbidden_mode=forbidden_mode,
        actor=actor,
        interface=interface,
        time_control=time_control,
        event=header.get("Event", "")[:200],
        round=header.get("Round", "")[:40],
    )
    record = _check_result(result, reason, stones, game) if result else _replayed(stones, rules)
    if replay is not None:
        Move.objects.bulk_create(
            Move(
                game=game,
                ply=ply,
                kind=Action.parse(step.text).kind.value,
                text=step.text,
                player_number=int(step.seat),
                color=str(step.color) if step.color else "",
                move_number=step.move_number,
                clock_ms={} if spent is None else {"think_ms": spent},
            )
            for ply, (step, spent) in enumerate(zip(replay.actions, times, strict=True), start=1)
        )
        game.ply = len(replay.actions)
        _sync_colours(game, GameState(replay.opening, Board.replay(record)))
        game.status = GameStatus.PLAYING if replay.opening.finished else GameStatus.OPENING
    game.record_text = record
    game.save()
    _log(game, "imported", actor, interface, header=header)
    if result:
        game = game_finish(game=game, result=result, reason=reason, actor=actor, interface=interface)
    game.refresh_from_db()
    return game


def _infer_reason(moves: str, rules: str, result: str) -> str:
    """A record without a Reason line: what its last move did, else the referee's word."""
    replay = replay_record(moves, rules)
    if replay.end is not None:
        outcome = replay.end[1]
        return ResultReason.FIVE if outcome.termination.value == "five" else ResultReason.FULL_BOARD
    last = len(replay.board.move_stack)
    if result == GameResult.WHITE and replay.fouls and replay.fouls[-1].move_number == last:
        return ResultReason.FORBIDDEN
    return ResultReason.REFEREE


def _replayed(moves: str, rules: str) -> str:
    try:
        return " ".join(str(m) for m in replay_record(moves, rules).board.move_stack)
    except RecordError as exc:
        raise GameError("bad_record", str(exc)) from None
