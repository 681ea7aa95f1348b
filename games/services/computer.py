"""The computer as a player: one :class:`~games.models.Player` per level (``computer_level``), of the
built-in engine or of a registered outside engine; which seat it holds, which queue its turns go to, how
long it may think. Its games and its turns are played in :mod:`games.services.practice`, above the
players' own services; the turns are sent by :mod:`games.services.scheduling`."""

from __future__ import annotations

import logging

from django.utils import timezone
from django.utils.translation import gettext as _

from engine.search.players import LEVELS
from games import clock
from games.enums import GameStatus
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


def computer_games_due(limit: int = 200) -> list[tuple[int, int, str]]:
    """(game, ply, queue) of the active practice games where the computer is to act (for the sweep)."""
    due = []
    games = Game.objects.filter(practice=True, status__in=GameStatus.active()).select_related(
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
