"""Forbidden-move (禁手) claims, judged by the rules engine with the timeliness rule."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from engine import Board, Color, IllegalMoveError, InvalidMoveError, Point, find_rules, parse_moves
from engine.protocols import Action, Kind
from engine.renju import explain
from games.enums import ClaimStatus, EventKind, ForbiddenMode, GameResult, GameStatus, ResultReason, WrongClaimPenalty
from games.messages import translate
from games.models import ForbiddenClaim, Game, Player
from games.selectors import game_state
from games.services.base import GameError, lock_game, log_event, record_action, seat_of
from games.services.finish import game_finish


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
    game = lock_game(game_id)
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
        record_action(
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
    log_event(
        game,
        EventKind.CLAIM,
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
    game = lock_game(game_id)
    if game.status not in GameStatus.active():
        raise GameError("game_over", _("The game is over."), 409)
    if moves_after < 0:
        raise GameError("bad_claim", _("The number of moves after the claimed stone cannot be negative."))
    try:
        before = Board.replay(parse_moves(record))
        target = before.to_point(point)
    except (InvalidMoveError, IllegalMoveError) as exc:
        raise GameError("bad_record", translate(exc)) from None
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
