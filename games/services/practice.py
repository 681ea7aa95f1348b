"""Practice games against the computer, and the computer's turns.

The computer (:mod:`games.services.computer`) acts through :func:`games.services.play.game_act` like any
player: the same locking, clock and record. Its turns are Celery tasks on their own ``computer`` queue (a
process pool apart from the clock workers, since a search holds a CPU); the task is sent when a turn passes
to the computer, after the commit (:func:`games.services.scheduling.call_computer`). A practice game is unrated and
never belongs to a tournament.

A computer player may stand for a registered outside engine (``Player.engine``, see
:mod:`games.services.engines`): its stones then come from that engine through the Gomocup protocol,
within its level's budget and a fifth of the clock, and an engine that overruns, crashes or answers an
illegal or forbidden move forfeits the game. The opening protocol's choices stay with the built-in engine.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import Color, EngineError, find_rules
from engine.gomocup import EngineFailure, engine_move
from engine.protocols import Action, Kind
from engine.search.players import ComputerPlayer
from games.enums import GameStatus, ResultReason
from games.models import Engine, Game, Player
from games.selectors import clock_of, game_state
from games.services.base import GameError, clock_seat, require_room
from games.services.computer import PRACTICE_RULES, computer_player, computer_seat, practice_engine, think_budget
from games.services.engines import engine_failed, engine_spec
from games.services.finish import game_finish
from games.services.play import game_act, game_create
from games.services.timing import game_answer_draw

logger = logging.getLogger(__name__)


def practice_start(
    *,
    player: Player,
    level: int,
    rules: str = "renju",
    protocol: str = "none",
    time_control: str | dict[str, Any] = "quick",
    seat: int = 1,
    engine: Engine | int | None = None,
    actor: Any = None,
    interface: str = "web",
) -> Game:
    """A practice game for ``player`` against the computer (the built-in engine, or a registered ``engine``);
    ``seat`` 1 moves first (Black without a protocol)."""
    if player.computer_level is not None:
        raise GameError("bad_player", _("The computer cannot start a practice game."))
    if rules not in PRACTICE_RULES:
        raise GameError("bad_setup", _("Choose renju, free-style or standard rules."))
    if seat not in (1, 2):
        raise GameError("bad_seat", _("The seat is 1 or 2."))
    require_room()
    with transaction.atomic():
        computer = computer_player(level, practice_engine(engine, rules))
        one, two = (player, computer) if seat == 1 else (computer, player)
        game = game_create(
            player_one=one,
            player_two=two,
            rules=rules,
            protocol=protocol,
            time_control=time_control,
            actor=actor,
            interface=interface,
            start_clock_at=timezone.now(),
            practice=True,
            is_public=False,
            event=_("Practice"),
        )  # game_create sends the computer's first turn if it begins
    return game


def computer_turn(game_id: int, ply: int) -> str:
    """The computer's action at ``ply`` of ``game_id``, through the players' own service.

    Idempotent: a task for a ply already played, a finished game or a turn
    that is not the computer's changes nothing.
    """
    game = Game.objects.select_related("player_one__engine", "player_two__engine").filter(pk=game_id).first()
    if game is None or game.status not in GameStatus.active() or game.ply != ply:
        return "stale"
    seat = computer_seat(game)
    state = game_state(game)
    if seat is None or int(state.to_act) != seat:
        return "not_its_turn"
    computer = game.player_one if seat == 1 else game.player_two
    level = computer.computer_level or 1
    ticking = clock_of(game)
    if ticking.pause == "offer" and ticking.offer_by is not None and ticking.offer_by != clock_seat(state.to_act):
        # The opponent offered a draw: the computer plays on, unless the board is all but full.
        board = state.board
        accept = board.stone_count >= board.size * board.size - 10
        game_answer_draw(game_id=game_id, player=computer, accept=accept, interface="computer")
        if accept:
            return "draw_accepted"
    rules = find_rules(game.rules)
    started = time.monotonic()
    if computer.engine is not None and state.opening.finished:
        return _engine_turn(game, computer, ply)
    player = ComputerPlayer(rules, level, seed=game.pk * 1000 + ply, seconds=think_budget(game, level))
    opening = state.opening
    try:
        action = player.decide(opening) if not opening.finished else Action.place(player.best_move(state.board))
    except EngineError as exc:
        if exc.code != "no_legal_move":
            raise
        action = Action(Kind.PASS)  # every empty point is forbidden to Black
    try:
        game_act(game_id=game_id, player=computer, action=action, expected_ply=ply, interface="computer")
    except GameError as exc:  # the game moved on (resigned, flagged) while the computer thought
        return exc.code
    logger.info("computer level %s played %s in game %s (%.2f s)", level, action, game_id, time.monotonic() - started)
    return str(action)


def _engine_turn(game: Game, computer: Player, ply: int) -> str:
    """A registered engine's stone at ``ply``; an engine that fails forfeits the game (and is counted)."""
    engine = computer.engine
    assert engine is not None and computer.computer_level is not None
    level = computer.computer_level
    state = game_state(game)
    try:
        spec = engine_spec(engine, level)
        spec = engine_spec(engine, level, most_ms=int(think_budget(game, level, spec.turn_ms / 1000) * 1000))
        move = engine_move(spec, state.board, find_rules(game.rules))
    except (EngineFailure, GameError) as exc:
        failure = exc if isinstance(exc, EngineFailure) else EngineFailure("crash", exc.message)
        engine_failed(engine, failure, f"game {game.pk}")
        game.refresh_from_db()
        if game.status not in GameStatus.active() or game.ply != ply:
            return "stale"  # the game ended or moved on meanwhile (a resignation, a flag): the failure changes nothing
        loser = state.board.turn  # the engine's colour: it is to move
        game_finish(
            game=game,
            result="white" if loser is Color.BLACK else "black",
            reason=ResultReason.FORFEIT,
            detail=failure.code,
            interface="computer",
        )
        return failure.code
    action = Action.place(move.point)
    try:
        game_act(game_id=game.pk, player=computer, action=action, expected_ply=ply, interface="computer")
    except GameError as exc:
        return exc.code
    logger.info(
        "engine %s level %s played %s in game %s (%.2f s)", engine.name, level, move.point, game.pk, move.seconds
    )
    return str(action)
