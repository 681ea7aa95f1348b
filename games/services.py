"""State changes of games: one function per transition, each in a transaction.

Every service guards its transition (the expected ply, the game's status) and
is safe to retry: a repeated submission finds the ply taken and changes
nothing. Every way a game ends goes through :func:`game_finish`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import Board, Color, find_rules
from engine.protocols import Action, Kind, OpeningState, Options, ProtocolError, apply, start
from engine.protocols import Player as Seat
from engine.renju import explain
from games.enums import ClaimStatus, ForbiddenMode, GameResult, GameStatus, ResultReason, WrongClaimPenalty
from games.models import ForbiddenClaim, Game, GameEvent, Move, Player


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
    moves: list[Move]

    def holder(self, color: Color) -> Seat:
        return self.opening.holder(color)


def _options(game: Game) -> Options:
    return Options(**game.protocol_options)


def game_state(game: Game) -> GameState:
    """Replay the record: opening actions through the protocol, then board moves."""
    opening = start(game.protocol, _options(game))
    moves = list(game.moves.order_by("ply"))
    board_moves: list[str] = []
    for move in moves:
        action = Action.parse(move.text)
        if not opening.finished:
            opening = apply(opening, Seat(move.player_number), action)
        else:
            board_moves.append("pass" if action.kind is Kind.PASS else str(action.points[0]))
    board = Board.replay([*(str(m) for m in opening.moves), *board_moves])
    return GameState(opening, board, moves)


def seat_of(game: Game, player: Player) -> Seat:
    if player.pk == game.player_one_id:
        return Seat.ONE
    if player.pk == game.player_two_id:
        return Seat.TWO
    raise GameError("not_your_game", _("You are not a player in this game."), 403)


def _log(game: Game, kind: str, actor: Any = None, interface: str = "api", **data: Any) -> None:
    GameEvent.objects.create(game=game, kind=kind, actor=actor, interface=interface, data=data)


def _sync_colours(game: Game, state: GameState) -> None:
    black = game.player_one if state.holder(Color.BLACK) is Seat.ONE else game.player_two
    white = game.player_two if black.pk == game.player_one_id else game.player_one
    game.black, game.white = black, white


@transaction.atomic
def game_create(*, player_one: Player, player_two: Player, rules: str = "renju", protocol: str = "none",
                protocol_options: dict[str, Any] | None = None, forbidden_mode: str = ForbiddenMode.AUTO,
                **fields: Any) -> Game:
    """A new game; with no opening protocol it starts in normal play."""
    if player_one.pk == player_two.pk:
        raise GameError("same_player", _("A player cannot play against themselves."))
    try:
        find_rules(rules)
        start(protocol, Options(**(protocol_options or {})))
    except (ValueError, TypeError) as exc:  # unknown rule set, protocol or option
        raise GameError("bad_setup", str(exc)) from None
    game = Game.objects.create(player_one=player_one, player_two=player_two, rules=rules, protocol=protocol,
                               protocol_options=protocol_options or {}, forbidden_mode=forbidden_mode, **fields)
    state = game_state(game)
    _sync_colours(game, state)
    game.status = GameStatus.PLAYING if state.opening.finished else GameStatus.OPENING
    game.save()
    _log(game, "created", protocol=protocol, rules=rules)
    return game


def _lock(game_id: int) -> Game:
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise GameError("no_game", _("There is no such game."), 404)
    return game


def _record(game: Game, *, expected_ply: int, seat: Seat, action: Action, color: Color | None,
            move_number: int | None, foul: str = "") -> Move:
    """Store one action at ``expected_ply + 1``; a stale or repeated ply changes nothing."""
    updated = Game.objects.filter(pk=game.pk, ply=expected_ply).update(ply=F("ply") + 1)
    if updated != 1:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409)
    try:
        with transaction.atomic():
            move = Move.objects.create(game=game, ply=expected_ply + 1, kind=action.kind.value, text=str(action),
                                       player_number=int(seat), color=str(color) if color else "",
                                       move_number=move_number, foul=foul)
    except IntegrityError:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409) from None
    game.ply = expected_ply + 1
    return move


@transaction.atomic
def game_act(*, game_id: int, player: Player, action: Action | str, expected_ply: int,
             actor: Any = None, interface: str = "api") -> Game:
    """A player's action: an opening step or, after the opening, a stone or a pass.

    Side effects: stores a Move, logs an event, and ends the game (through
    :func:`game_finish`) on a five, an adjudicated foul, two passes or a full board.
    """
    game = _lock(game_id)
    if game.status not in GameStatus.active():
        raise GameError("game_over", _("The game is over."), 409)
    if game.ply != expected_ply:
        raise GameError("stale_ply", _("The game has moved on; reload and try again."), 409)
    if isinstance(action, str):
        try:
            action = Action.parse(action)
        except ProtocolError as exc:
            raise GameError("bad_action", str(exc)) from None
    seat = seat_of(game, player)
    state = game_state(game)
    if not state.opening.finished:
        return _opening_action(game, state, seat, action, expected_ply, actor, interface)
    return _board_move(game, state, seat, action, expected_ply, actor, interface)


def _opening_action(game: Game, state: GameState, seat: Seat, action: Action, expected_ply: int,
                    actor: Any, interface: str) -> Game:
    try:
        after = apply(state.opening, seat, action)
    except ProtocolError as exc:
        raise GameError("protocol", str(exc)) from None
    number = len(after.moves) if len(after.moves) > len(state.opening.moves) else None
    _record(game, expected_ply=expected_ply, seat=seat, action=action,
            color=state.opening.color_of(seat), move_number=number)
    state.opening = after
    _sync_colours(game, state)
    if after.finished:
        game.status = GameStatus.PLAYING
    game.save()
    _log(game, "action", actor, interface, action=str(action), seat=int(seat))
    return game


def _board_move(game: Game, state: GameState, seat: Seat, action: Action, expected_ply: int,
                actor: Any, interface: str) -> Game:
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
                raise GameError("forbidden", _("Black may not play there: %(kind)s.") % {"kind": foul})
    move = _record(game, expected_ply=expected_ply, seat=seat, action=action, color=color,
                   move_number=board.ply + 1, foul=foul)
    board.push("pass" if action.kind is Kind.PASS else action.points[0])
    _log(game, "move", actor, interface, action=str(action), move_number=move.move_number, foul=foul)
    result = rules.outcome(board)
    if result is not None and result.termination.value == "forbidden":
        if game.forbidden_mode == ForbiddenMode.AUTO:
            return game_finish(game=game, result=GameResult.WHITE, reason=ResultReason.FORBIDDEN,
                               detail=foul, actor=actor)
        result = None  # claim mode: the foul stands unless white claims it
    if result is not None:
        if result.winner is not None:
            return game_finish(game=game, result=GameResult(str(result.winner)), reason=ResultReason.FIVE,
                               actor=actor)
        reason = ResultReason.FULL_BOARD if result.termination.value == "full-board" else ResultReason.TWO_PASSES
        return game_finish(game=game, result=GameResult.DRAW, reason=reason, actor=actor)
    game.save()
    return game


def game_finish(*, game: Game, result: str, reason: str, detail: str = "", actor: Any = None,
                interface: str = "api") -> Game:
    """The one way a game ends. Idempotent: a finished game is returned unchanged."""
    updated = Game.objects.filter(pk=game.pk).exclude(status=GameStatus.FINISHED).update(
        status=GameStatus.FINISHED, result=result, result_reason=reason, result_detail=detail,
        finished_at=timezone.now(),
    )
    game.refresh_from_db()
    if updated:
        _log(game, "finished", actor, interface, result=result, reason=reason, detail=detail)
    return game


@transaction.atomic
def game_resign(*, game_id: int, player: Player, actor: Any = None, interface: str = "api") -> Game:
    game = _lock(game_id)
    if game.status not in GameStatus.active():
        raise GameError("game_over", _("The game is over."), 409)
    seat = seat_of(game, player)
    state = game_state(game)
    loser = state.opening.color_of(seat)
    return game_finish(game=game, result=GameResult(str(loser.other)), reason=ResultReason.RESIGNATION,
                       actor=actor, interface=interface)


@transaction.atomic
def game_claim_forbidden(*, game_id: int, move_number: int, claimant: Player | None = None,
                         actor: Any = None, interface: str = "api") -> ForbiddenClaim:
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
    rules = find_rules(game.rules)
    outcome = rules.move_outcome(before, point)
    claim = ForbiddenClaim(game=game, move_number=move_number, point=str(point), claimed_by=actor)
    if outcome is not None and outcome.reason is not None:
        claim.verdict = outcome.reason.value
        shapes = explain(before, point, rules.five_extension_is_three).shapes
        claim.explanation = {"kind": claim.verdict, "shapes": [
            {"kind": s.kind, "stones": [str(p) for p in s.stones], "points": [str(p) for p in s.points]}
            for s in shapes]}
    later_white_moves = len(stack) - move_number
    timely = claim.verdict == "overline" or later_white_moves == 0
    if not claim.verdict:
        claim.status = ClaimStatus.REJECTED
    elif not timely:
        claim.status = ClaimStatus.LATE
    else:
        claim.status = ClaimStatus.UPHELD
    claim.save()
    _log(game, "claim", actor, interface, move_number=move_number, point=str(point), status=claim.status,
         verdict=claim.verdict)
    if claim.status == ClaimStatus.UPHELD:
        game_finish(game=game, result=GameResult.WHITE, reason=ResultReason.FORBIDDEN, detail=claim.verdict,
                    actor=actor, interface=interface)
    elif claim.status == ClaimStatus.REJECTED and game.wrong_claim_penalty == WrongClaimPenalty.LOSE_TURN \
            and state.board.turn is Color.WHITE:
        _record(game, expected_ply=game.ply, seat=state.holder(Color.WHITE), action=Action(Kind.PASS),
                color=Color.WHITE, move_number=len(stack) + 1)
        game.save()
    return claim
