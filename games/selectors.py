"""Reads of games: the position a record leads to (cached per process), the clock as clients see it."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from engine import Board, BoardSnapshot, Color, find_rules
from engine.protocols import Action, Kind, OpeningState, Options, apply, opening_name, start
from engine.protocols import Player as Seat
from games import clock
from games.enums import GameMode, GameStatus
from games.models import Game, Move, Player


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


def protocol_options(game: Game) -> Options:
    return Options(**game.protocol_options)


# Positions by (game, ply): a record only ever grows, so a ply names one position for good. Kept as
# snapshots (immutable tuples), which the garbage collector does not walk: thousands of boards' lists made
# each full collection of a web process tens of milliseconds longer, every request in it waiting.
_POSITIONS: OrderedDict[tuple[int, int], tuple[OpeningState, BoardSnapshot]] = OrderedDict()
_POSITIONS_LOCK = threading.Lock()
_POSITIONS_KEPT = 4096


def _position_key(game: Game, ply: int | None = None) -> tuple[Any, ...]:
    # The creation instant guards against a primary key reused after a rolled-back insert.
    return (game.pk, game.created_at, game.ply if ply is None else ply)


def _remember(key: tuple[Any, ...], opening: OpeningState, board: BoardSnapshot) -> None:
    """Keep a committed position (never one seen inside a transaction that may still roll back)."""
    with _POSITIONS_LOCK:
        _POSITIONS[key] = (opening, board)
        _POSITIONS.move_to_end(key)
        while len(_POSITIONS) > _POSITIONS_KEPT:
            _POSITIONS.popitem(last=False)


def remember_on_commit(game: Game, state: GameState) -> None:
    key, opening, board = _position_key(game), state.opening, state.board.snapshot()
    transaction.on_commit(lambda: _remember(key, opening, board))


def game_state(game: Game) -> GameState:
    """The position after the game's ``ply`` actions: the opening, then the board moves.

    Replays the record from the database, or takes the position from a small
    per-process cache (it cannot go stale: the record is append-only).
    """
    with _POSITIONS_LOCK:
        known = _POSITIONS.get(_position_key(game))
    if known is not None:
        return GameState(known[0], Board.from_snapshot(known[1]))
    opening = start(game.protocol, protocol_options(game))
    board_moves: list[str] = []
    for player_number, text in _record(game):
        action = Action.parse(text)
        if not opening.finished:
            opening = apply(opening, Seat(player_number), action)
        else:
            board_moves.append("pass" if action.kind is Kind.PASS else str(action.points[0]))
    state = GameState(opening, Board.replay([*(str(m) for m in opening.moves), *board_moves]))
    if not transaction.get_connection().in_atomic_block:
        _remember(_position_key(game), state.opening, state.board.snapshot())
    return state


def _record(game: Game) -> list[tuple[int, str]]:
    """The game's actions up to its ply: from the moves already fetched with the game, if they were."""
    fetched = getattr(game, "_prefetched_objects_cache", {}).get("moves")
    if fetched is not None:
        return [(m.player_number, m.text) for m in sorted(fetched, key=lambda m: m.ply) if m.ply <= game.ply]
    return list(game.moves.filter(ply__lte=game.ply).order_by("ply").values_list("player_number", "text"))


def ms(moment: datetime) -> int:
    """Milliseconds since the epoch: the clock's unit."""
    return int(round(moment.timestamp() * 1000))


def from_ms(value: int) -> datetime:
    return datetime.fromtimestamp(value / 1000, tz=UTC)


def control_of(game: Game) -> clock.TimeControl:
    if not game.time_control:
        return clock.PRESETS["untimed"]
    try:
        return _control(tuple(sorted(game.time_control.items())))
    except TypeError:  # a value that is not hashable: read as it is (from_dict refuses what it does not know)
        return clock.TimeControl.from_dict(game.time_control)


@functools.lru_cache(maxsize=256)
def _control(items: tuple[tuple[str, Any], ...]) -> clock.TimeControl:
    """A stored time control read once per process (a move read it six times; TimeControl is frozen)."""
    return clock.TimeControl.from_dict(dict(items))


def clock_of(game: Game) -> clock.ClockState:
    return clock.ClockState.from_dict(game.clock) if game.clock else clock.initial(control_of(game))


def clock_view(game: Game, now: datetime | None = None) -> dict[str, Any]:
    """The clock as a client shows it, with the server's time and the deadline as ISO instants."""
    now = now or timezone.now()
    control = control_of(game)
    data = clock.view(clock_of(game), control, ms(now)).to_dict()
    # Seats are numbered 1 and 2 everywhere in the API (the clock module counts from 0).
    data["actor"] = data["actor"] + 1
    data["offer_by"] = None if data["offer_by"] is None else data["offer_by"] + 1
    data["server_time"] = now.isoformat()
    data["deadline"] = None if data["deadline"] is None else from_ms(data["deadline"]).isoformat()
    data["time_control"] = control.to_dict()
    return data


def position_view(game: Game, state: GameState | None = None) -> dict[str, Any]:
    """The position as a client shows it: stones, whose turn and what is expected, the opening's offers and
    verdicts, black's forbidden points now (``state``: the game's, when the caller has it)."""
    state = state or game_state(game)
    opening = state.opening
    over = game.status == GameStatus.FINISHED
    board = state.board
    expects = "over" if over else opening.expects
    stones = [str(m) for m in board.move_stack]
    if not stones and game.mode == GameMode.OVER_THE_BOARD and game.record_text:
        stones = game.record_text.split()  # an over-the-board game's record, as settled
    return {
        "size": board.size,
        "stones": stones,
        "to_move": str(board.turn if opening.finished else opening.next_color),
        "actor": None if over else int(state.to_act),
        "expects": expects,
        "legal_kinds": [] if over else [k.value for k in opening.legal_kinds()],
        "opening": opening_name(opening) or "",
        "offers": [str(p) for p in opening.offers] if expects == "choose" else [],
        "offer_count": opening.offer_count if expects == "offer" else None,
        "declare_verdicts": _declare_verdicts(opening) if expects == "declare" else {},
        "forbidden": _forbidden(game, board) if not over else {},
        "last_black_move": _last_black_move(board),
    }


def instant(value: datetime | None) -> str | None:
    """A stored instant as the API writes it (DRF's ISO 8601: the site's time zone, ``Z`` for UTC)."""
    if value is None:
        return None
    text = timezone.localtime(value).isoformat() if timezone.is_aware(value) else value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def move_view(move: Move) -> dict[str, Any]:
    """A move as the API shows it (``MoveSerializer(move).data``, built directly: each pushed move,
    games.live.move_delta; games/tests/test_representations.py keeps them equal)."""
    return {
        "ply": move.ply,
        "kind": move.kind,
        "text": move.text,
        "player_number": move.player_number,
        "color": move.color,
        "move_number": move.move_number,
        "foul": move.foul,
        "created_at": instant(move.created_at),
        "clock_ms": move.clock_ms,
    }


def clocks_due(at: datetime) -> QuerySet[Game]:
    """The online games whose deadline (when anyone may call the flag) has passed by ``at``: the settling
    pass's candidates, and what a slice's task looks at again when some are held."""
    return Game.objects.filter(status__in=GameStatus.active(), mode=GameMode.ONLINE, deadline__lte=at)


def online_games_running() -> int:
    """The online games in progress on this server, every tournament's and practice game together.

    Counted on the partial index ``game_in_progress`` (only the online games in progress are in it). The terms
    are written as literals, as the index's condition is: SQLite uses a partial index only when it can see the
    query's terms imply its condition, which it cannot for bound parameters, and an index the other queries
    could use would take the clock sweep's queries off their own (``game_deadline``, ``game_absent_deadline``)."""
    statuses = ", ".join(f"'{status}'" for status in sorted(GameStatus.active()))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM {Game._meta.db_table} WHERE mode = '{GameMode.ONLINE}' AND status IN ({statuses})"
        )
        return int(cursor.fetchone()[0])


def online_room() -> int | None:
    """How many more online games this server may start now (``ONLINE_CAPACITY``); None: no limit."""
    capacity = settings.ONLINE_CAPACITY
    return None if capacity <= 0 else max(0, capacity - online_games_running())


def overdue_no_shows(now: datetime, limit: int) -> QuerySet[Game, int]:
    """The games whose absent player's deadline has passed by ``now`` (the sweep forfeits them): found by
    the ``game_absent_deadline`` index, however many games the database holds."""
    return Game.objects.filter(
        status__in=GameStatus.active() | {GameStatus.PENDING}, absent_deadline__lt=now
    ).values_list("pk", flat=True)[:limit]


def player_games(visible: QuerySet[Game], player: Player, limit: int = 100) -> QuerySet[Game]:
    """A player's games among ``visible`` ones, newest first."""
    return (
        visible.filter(Q(player_one=player) | Q(player_two=player))
        .select_related("player_one", "player_two")
        .order_by("-id")[:limit]
    )


def _declare_verdicts(opening: OpeningState) -> dict[str, str]:
    from engine.openings import identify

    stones = [m.point for m in opening.moves[:3] if m.point is not None]
    found = identify(stones, include_52=True) if len(stones) == 3 else None
    if found is None:
        return {}
    step = opening.current
    high = step.high or opening.options.max_n  # 0 means "up to the options' maximum"
    return {str(n): found.opening.yamaguchi_verdict(n).value for n in range(step.low, high + 1)}


def _forbidden(game: Game, board: Board) -> dict[str, str]:
    rules = find_rules(game.rules)
    if not rules.black_forbidden or board.turn is not Color.BLACK:
        return {}
    return {str(p): str(kind) for p, kind in rules.forbidden_points(board).items()}


def _last_black_move(board: Board) -> int | None:
    for number in range(len(board.move_stack), 0, -1):
        if number % 2 == 1 and board.move_stack[number - 1].point is not None:
            return number
    return None


def awaiting_move(player: Player) -> list[Game]:
    """The player's online games in play where it is this player's turn (the console lists them first)."""
    games = (
        Game.objects.filter(Q(player_one=player) | Q(player_two=player), status__in=GameStatus.active())
        .filter(mode=GameMode.ONLINE)
        .select_related("player_one", "player_two", "black", "white")
        .order_by("deadline", "pk")
    )
    out = []
    for game in games:
        seat = 1 if game.player_one_id == player.pk else 2
        if int(game_state(game).to_act) == seat:
            out.append(game)
    return out
