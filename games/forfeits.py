"""Games that end without being played out: forfeits, no-shows and cancellations.

- :func:`game_forfeit`: a player loses a game they will not play (a withdrawal);
  the opponent wins with reason ``forfeit``.
- :func:`game_mark_absent` / :func:`game_mark_present`: a referee or the organizer
  marks a player absent at a called board; unless they appear, the game is
  forfeited (reason ``no_show``) when the wait runs out, by
  :func:`game_forfeit_no_show` (a Celery task at the deadline and the sweep).
- :func:`game_cancel`: a game that no longer belongs to anything (a match a
  correction decided early, a playoff no longer needed); it has no result.

Each ending goes through :func:`games.services.game_finish`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.enums import EventKind, GameResult, GameStatus, Interface, ResultReason
from games.models import Game, Player
from games.services import GameError, game_finish, game_state, lock_game, log_event, seat_of
from games.services.scheduling import schedule_no_show

OPEN = (GameStatus.PENDING, GameStatus.OPENING, GameStatus.PLAYING)


def _seated(game: Game, player: Player) -> None:
    """Refuse a player who does not play this game (said to the referee or organizer who named them)."""
    if player.pk not in (game.player_one_id, game.player_two_id):
        raise GameError("not_in_game", _("%(name)s does not play this game.") % {"name": player.name}, 400)


def _loser_result(game: Game, loser: Player) -> GameResult:
    """The result when ``loser`` loses: by their colour, or by their seat before colours are settled."""
    _seated(game, loser)
    seat = seat_of(game, loser)
    colour = game_state(game).opening.color_of(seat)
    return GameResult(str(colour.other))


@transaction.atomic
def game_forfeit(
    *, game_id: int, loser: Player, reason: str = ResultReason.FORFEIT, note: str = "", actor: Any = None
) -> Game:
    """``loser`` forfeits an unfinished game; a finished game is returned unchanged."""
    game = lock_game(game_id)
    if game.status not in OPEN:
        return game
    return game_finish(
        game=game,
        result=_loser_result(game, loser),
        reason=reason,
        detail=note[:200],
        actor=actor,
        interface=Interface.SYSTEM,
    )


@transaction.atomic
def game_cancel(*, game_id: int, note: str, actor: Any = None) -> Game:
    """Take an unfinished game off the record: no result, its clock stopped; idempotent."""
    game = lock_game(game_id)
    if game.status not in OPEN:
        return game
    Game.objects.filter(pk=game.pk).update(
        status=GameStatus.CANCELLED, deadline=None, absent_player=None, absent_deadline=None
    )
    log_event(game, EventKind.CANCELLED, actor, "system", note=note[:500])
    game.refresh_from_db()
    return game


@transaction.atomic
def game_mark_absent(
    *, game_id: int, player: Player, wait: timedelta, at: datetime | None = None, actor: Any = None
) -> Game:
    """``player`` is not at the board: they forfeit unless marked present within ``wait``."""
    at = at or timezone.now()
    game = lock_game(game_id)
    if game.status not in OPEN:
        raise GameError("game_over", _("The game is over."), 409)
    _seated(game, player)
    if game.absent_player_id is not None and game.absent_player_id != player.pk:
        raise GameError("both_absent", _("The opponent is already marked absent; the referee decides the game."), 409)
    if game.absent_player_id == player.pk:
        return game
    deadline = at + wait
    Game.objects.filter(pk=game.pk).update(absent_player=player, absent_deadline=deadline)
    log_event(game, EventKind.ABSENT, actor, "api", player=player.pk, deadline=deadline.isoformat())
    game.refresh_from_db()
    schedule_no_show(game)
    return game


@transaction.atomic
def game_mark_present(*, game_id: int, actor: Any = None) -> Game:
    """The absent player has arrived: no forfeit."""
    game = lock_game(game_id)
    if game.absent_player_id is None:
        return game
    Game.objects.filter(pk=game.pk).update(absent_player=None, absent_deadline=None)
    log_event(game, EventKind.PRESENT, actor, "api", player=game.absent_player_id)
    game.refresh_from_db()
    return game


@transaction.atomic
def game_forfeit_no_show(*, game_id: int, at: datetime | None = None) -> Game | None:
    """Forfeit the game of a player still absent at the deadline; anything else changes nothing."""
    at = at or timezone.now()
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None or game.status not in OPEN or game.absent_player_id is None:
        return game
    if game.absent_deadline is None or game.absent_deadline > at:
        return game
    absent = Player.objects.get(pk=game.absent_player_id)
    return game_finish(
        game=game,
        result=_loser_result(game, absent),
        reason=ResultReason.NO_SHOW,
        detail=absent.name,  # shown as text by games.messages.result_text
        interface=Interface.SYSTEM,
    )
