"""Practice games against the computer, and the computer's turns.

The computer is a :class:`~games.models.Player` per level (``computer_level``)
and acts through :func:`games.services.play.game_act` like any player: the
same locking, clock and record. Its turns are Celery tasks on their own
``computer`` queue (a process pool apart from the clock workers, since a search
holds a CPU); the task is sent when a turn passes to the computer, after the
commit. A practice game is unrated and never belongs to a tournament.

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
from engine.search.players import LEVELS, ComputerPlayer
from games import clock
from games.enums import ResultReason
from games.models import Engine, Game, Player
from games.selectors import clock_of, control_of, game_state, ms
from games.services.base import GameError, clock_seat

logger = logging.getLogger(__name__)

# The most a level thinks per move when the clock allows it (seconds); the clock may allow less.
THINK_S = {1: 0.5, 2: 0.5, 3: 1.5, 4: 3.0, 5: 6.0}
PRACTICE_RULES = ("renju", "freestyle", "standard")


def computer_player(level: int, engine: Engine | None = None) -> Player:
    """The Player that is the computer at ``level``, of the built-in engine or of ``engine`` (created once)."""
    if level not in LEVELS:
        raise GameError("bad_level", _("The computer's level is 1 to 5."))
    name = f"Computer {level} ({LEVELS[level].name})" if engine is None else f"{engine.name} {level}"
    player, _created = Player.objects.get_or_create(computer_level=level, engine=engine, defaults={"name": name})
    return player


def practice_engine(engine: Engine | int | None, rules: str) -> Engine | None:
    """The registered engine a practice game asks for, if it is enabled and plays ``rules``."""
    if engine is None:
        return None
    found = Engine.objects.filter(pk=getattr(engine, "pk", engine), enabled=True).first()
    if found is None:
        raise GameError("unknown_engine", _("There is no such engine, or it is switched off."))
    if rules not in found.rules:
        raise GameError(
            "engine_rules", _("%(engine)s does not play %(rules)s.") % {"engine": found.name, "rules": rules}
        )
    return found


def computer_seat(game: Game) -> int | None:
    """1 or 2 if a computer holds that seat of ``game``, else None."""
    for seat, player in ((1, game.player_one), (2, game.player_two)):
        if player.computer_level is not None:
            return seat
    return None


def computer_queue(game: Game) -> str:
    """The queue of the computer's turns in ``game``: outside engines (programs in ENGINES_DIR) have their own
    queue and worker, so a bad one can hold up only other outside engines' turns, never the built-in's."""
    for player in (game.player_one, game.player_two):
        if player.computer_level is not None:
            engine = player.engine
            if engine is not None and engine.command.split(" ", 1)[0] != "builtin":
                return "engines"
    return "computer"


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
    from games.services.play import game_create

    if player.computer_level is not None:
        raise GameError("bad_player", _("The computer cannot start a practice game."))
    if rules not in PRACTICE_RULES:
        raise GameError("bad_setup", _("Choose renju, free-style or standard rules."))
    if seat not in (1, 2):
        raise GameError("bad_seat", _("The seat is 1 or 2."))
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


def call_computer(game: Game) -> None:
    """After commit, send the computer's turn to its queue if the computer is to act in ``game``."""
    if not game.practice or game.status not in ("opening", "playing"):
        return
    seat = computer_seat(game)
    if seat is None:
        return
    if int(game_state(game).to_act) != seat:
        return
    game_id, ply, queue = game.pk, game.ply, computer_queue(game)

    def send() -> None:
        from games.tasks import computer_move

        try:
            computer_move.apply_async((game_id, ply), queue=queue, retry=False)
        except Exception:  # the broker is down; the sweep (games.computer_sweep) sends it again
            logger.warning("could not send the computer's turn for game %s", game_id, exc_info=True)

    transaction.on_commit(send)


def computer_games_due(limit: int = 200) -> list[tuple[int, int, str]]:
    """(game, ply, queue) of the active practice games where the computer is to act (for the sweep)."""
    due = []
    games = Game.objects.filter(practice=True, status__in=("opening", "playing")).select_related(
        "player_one__engine", "player_two__engine"
    )
    for game in games.order_by("pk")[:limit]:
        seat = computer_seat(game)
        if seat is not None and int(game_state(game).to_act) == seat:
            due.append((game.pk, game.ply, computer_queue(game)))
    return due


def think_budget(game: Game, level: int, most: float | None = None) -> float:
    """Seconds the computer may think now: its level's limit (or ``most``), within a fifth of its turn and
    main time."""
    budget = THINK_S[level] if most is None else most
    state = clock_of(game)
    control = control_of(game)
    if control.timed:
        view = clock.view(state, control, ms(timezone.now()))
        seat = clock_seat(game_state(game).to_act)
        left = [v for v in (view.turn_left, view.main_left[seat]) if v is not None]
        if left:
            budget = min(budget, max(0.05, min(left) / 1000 / 5))
    return budget


def computer_turn(game_id: int, ply: int) -> str:
    """The computer's action at ``ply`` of ``game_id``, through the players' own service.

    Idempotent: a task for a ply already played, a finished game or a turn
    that is not the computer's changes nothing.
    """
    from games.services.play import game_act

    game = Game.objects.select_related("player_one__engine", "player_two__engine").filter(pk=game_id).first()
    if game is None or game.status not in ("opening", "playing") or game.ply != ply:
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
        from games.services.timing import game_answer_draw

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
    from games.services.engines import engine_failed, engine_spec
    from games.services.finish import game_finish
    from games.services.play import game_act

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
        if game.status not in ("opening", "playing") or game.ply != ply:
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
