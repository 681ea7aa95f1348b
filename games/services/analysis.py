"""The engine's analysis of games and positions (engine.search.analysis), kept per record.

A finished game's analysis is computed once by a Celery task on the
``computer`` queue and stored with a hash of the moves it read: asking again
returns it, and a record corrected afterwards is analysed afresh. The search
runs outside any transaction; its result is written only if the record is
still the one analysed.

The forced wins are always the built-in solver's (proofs within limits). A
registered outside engine (:mod:`games.services.engines`) may be asked as
well: its move in every position of the game, within its level-5 budget (at
most :data:`ENGINE_TURN_MS` a move), or its move in one position for a
referee. An engine that fails stops its part (the failure is counted on the
engine and told in the analysis); the solver's part stands.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import Board, EngineError, Point, find_rules, parse_moves
from engine.gomocup import EngineFailure, engine_move
from engine.search import analysis as engine_analysis
from engine.search.players import ComputerPlayer
from games.enums import EventKind, GameStatus
from games.exports import game_moves, record_digest
from games.messages import translate
from games.models import Analysis, Engine, Game
from games.selectors import game_state
from games.services.base import GameError, log_event
from games.services.computer import practice_engine
from games.services.engines import engine_failed, engine_spec
from games.services.scheduling import send_analysis

logger = logging.getLogger(__name__)
LIMITS = engine_analysis.Limits()
ENGINE_LEVEL = 5  # an outside engine analyses with its strongest level's budget ...
ENGINE_TURN_MS = 5_000  # ... but never more than this a position


def analysis_engine(engine: Engine | int | None, rules: str) -> Engine | None:
    """The registered engine an analysis asks for, if it is enabled and plays ``rules``."""
    return practice_engine(engine, rules)


def analysis_request(
    *, game: Game, engine: Engine | int | None = None, actor: Any = None, interface: str = "api"
) -> Analysis:
    """The game's analysis: the stored one if it read this record (with the same engine, if one is asked for),
    else a new one queued."""
    if game.status != GameStatus.FINISHED:
        raise GameError("not_finished", _("Only a finished game can be analysed."), 409)
    stones = game_moves(game)
    refuse_live_position(Board.replay(parse_moves(stones)), actor, passing=True)
    outside = analysis_engine(engine, game.rules)
    digest = record_digest(stones, game.rules)
    with transaction.atomic():
        analysis, created = Analysis.objects.select_for_update().get_or_create(
            game=game, defaults={"record": digest, "limits": asdict(LIMITS), "engine": outside}
        )
        same = analysis.record == digest and (outside is None or analysis.engine_id == outside.pk)
        if not created and same and analysis.status != Analysis.Status.FAILED:
            return analysis
        if not created:
            analysis.record, analysis.status, analysis.marks, analysis.error = digest, Analysis.Status.PENDING, [], ""
            analysis.finished_at = None
            analysis.limits = asdict(LIMITS)
            analysis.engine, analysis.suggestions = outside, []
            analysis.save()
        log_event(game, EventKind.ANALYSIS_REQUESTED, actor, interface)
        game_id = game.pk
        # An outside engine's analysis runs beside the outside engines' turns, never ahead of the built-in's.
        queue = "engines" if outside is not None and outside.command.split(" ", 1)[0] != "builtin" else "computer"

        send_analysis(game_id, queue)
    return analysis


def analysis_run(game_id: int) -> str:
    """Compute a queued analysis (the task's body); idempotent."""
    analysis = Analysis.objects.select_related("game").filter(game_id=game_id).first()
    if analysis is None or analysis.status == Analysis.Status.DONE:
        return "nothing"
    game = analysis.game
    stones = game_moves(game)
    digest = record_digest(stones, game.rules)
    if digest != analysis.record:
        return "stale"
    try:
        notes = engine_analysis.analyse(parse_moves(stones), find_rules(game.rules), LIMITS)
    except EngineError as exc:
        Analysis.objects.filter(pk=analysis.pk, record=digest).update(
            status=Analysis.Status.FAILED, error=str(exc)[:200], finished_at=timezone.now()
        )
        return "failed"
    marks = [note.to_dict() for note in notes if note.win is not None or note.allowed is not None]
    suggestions: list[dict[str, Any]] = []
    error = ""
    if analysis.engine is not None:
        suggestions, error = _engine_moves(analysis.engine, stones, game)
    updated = Analysis.objects.filter(pk=analysis.pk, record=digest).update(
        status=Analysis.Status.DONE, marks=marks, suggestions=suggestions, error=error, finished_at=timezone.now()
    )
    return "done" if updated else "stale"


def _engine_moves(engine: Engine, stones: str, game: Game) -> tuple[list[dict[str, Any]], str]:
    """The engine's move in the position before each stone of the game (the opening's stones too), and the
    reason it stopped early, if it failed."""
    rules = find_rules(game.rules)
    board = Board()
    suggestions: list[dict[str, Any]] = []
    try:
        spec = engine_spec(engine, ENGINE_LEVEL, most_ms=ENGINE_TURN_MS)
    except GameError as exc:
        return [], str(exc.message)[:200]
    for move in parse_moves(stones):
        if move.point is not None and rules.outcome(board) is None and board.stone_count:
            try:
                answer = engine_move(spec, board, rules)
            except EngineFailure as failure:
                engine_failed(engine, failure, f"analysis of game {game.pk}")
                text = _("%(engine)s stopped at move %(number)s: %(reason)s") % {
                    "engine": engine.name,
                    "number": board.ply + 1,
                    "reason": translate(failure),
                }
                return suggestions, text[:200]
            suggestions.append({"number": board.ply + 1, "point": str(answer.point)})
        board.push(move)
    return suggestions, ""


def _position(board: Board) -> frozenset[tuple[str, int]]:
    """A position as its stones and their colours (the order they came in does not matter)."""
    return frozenset((str(m.point), n % 2) for n, m in enumerate(board.move_stack) if m.point is not None)


def _positions(board: Board) -> set[frozenset[tuple[str, int]]]:
    """Every position a record passes through, each as :func:`_position` gives it."""
    stones: set[tuple[str, int]] = set()
    found = set()
    for n, m in enumerate(board.move_stack):
        if m.point is not None:
            stones.add((str(m.point), n % 2))
            found.add(frozenset(stones))
    return found


def refuse_live_position(board: Board, requester: Any, passing: bool = False) -> None:
    """No analysis of a position that stands now in a game the requester is playing (fair play): whatever
    order the stones are given in. ``passing``: nor of a record that passes through one (a game's analysis
    reads every position of its record: a live game's record with a stone more, imported as finished, would
    tell its player what the live position holds)."""
    player = getattr(requester, "player", None) if getattr(requester, "is_authenticated", False) else None
    if player is None or board.stone_count == 0:
        return
    wanted = _positions(board) if passing else {_position(board)}
    playing = Game.objects.filter(status__in=GameStatus.active(), ply__gt=0).filter(
        Q(player_one=player) | Q(player_two=player)
    )
    for game in playing:
        if _position(game_state(game).board) in wanted:
            raise GameError("live_position", _("This position stands in a game you are playing."), 403)


def position_analysis(
    *, moves: str, rules: str = "renju", engine: Engine | int | None = None, requester: Any = None
) -> dict[str, Any]:
    """For a referee or organizer: the forced wins of both sides in a position, and a suggested move (the
    built-in engine's at level 4, or a registered ``engine``'s within its level-5 budget); never a position
    that stands in a game the requester plays (:func:`refuse_live_position`)."""
    try:
        rule_set = find_rules(rules)
        board = Board.replay(parse_moves(moves))
    except (EngineError, ValueError) as exc:
        raise GameError("bad_position", translate(exc)) from None
    refuse_live_position(board, requester)
    if rule_set.outcome(board) is not None:
        raise GameError("game_over", _("The game is already over in this position."))
    outside = analysis_engine(engine, rules)
    best: Point | None = None
    if outside is not None and not board.is_full():
        try:
            best = engine_move(engine_spec(outside, ENGINE_LEVEL, most_ms=ENGINE_TURN_MS), board, rule_set).point
        except EngineFailure as failure:
            engine_failed(outside, failure, "position analysis")
            raise GameError(
                "engine_failed",
                _("%(engine)s gave no move: %(reason)s") % {"engine": outside.name, "reason": translate(failure)},
                502,
            ) from None
    to_move = engine_analysis.forced_win(board, rule_set, LIMITS)
    other = None
    if board.stone_count:
        passed = board.copy()
        passed.push_pass()  # the side not to move, as if it were its turn: what it threatens
        other = engine_analysis.forced_win(passed, rule_set, LIMITS)
    if outside is None and not board.is_full():
        best = ComputerPlayer(rule_set, 4, seed=0).best_move(board)
    return {
        "to_move": str(board.turn),
        "win": asdict(to_move) if to_move else None,
        "threat": asdict(other) if other else None,
        "best": str(best) if best else None,
        "engine": outside.name if outside is not None else None,
        "limits": asdict(LIMITS),
    }
