"""Corrections asked before the write.

An organizer's correction of a game's result can change who qualified from a finished stage whose next stage
is already under way. The tournament answers that question before the games app writes anything:

- :func:`question`: what the correction would need confirmed (a :class:`TournamentError`
  ``next_stage_started`` naming who would lose and take a place), or None. The outcomes are derived once
  with the corrected result inside a savepoint that is always rolled back, so the answer is the one the
  real write will meet, for every format (a best-of match decided early, a Swiss order, a team table).
- :func:`guard`: registered with the games app (:func:`games.services.finish.ask_before_correcting`): every
  correction, whatever surface it comes from (the games API, the admin, an appeal), is refused while a
  question stands that the organizer has not confirmed.
- :func:`correct_result`: the control room's and the tournament API's correction: asks, refuses without a
  confirmation, records the confirmation (:class:`~tournament.models.Consent`) and only then calls the
  games app; what follows the game (:func:`tournament.services.outcomes.after_game`) uses it up.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.enums import GameStatus
from games.models import Game
from games.services import game_override
from games.services.base import lock_game
from tournament.errors import TournamentError
from tournament.models import Consent, Match, MatchGame, Stage
from tournament.services.common import audit
from tournament.services.outcomes import match_sync

STARTED = (Stage.Status.RUNNING, Stage.Status.FINISHED)


class _DryRun(Exception):
    """Raised to roll back the savepoint of a what-if."""


def question(game: Game, result: str, reason: str, confirm: str = "") -> TournamentError | None:
    """What correcting ``game`` to ``result`` would need the organizer to confirm, or None. With ``confirm``
    (the organizer's reason) the confirmed correction is tried: a refusal even then (two stages on) is raised."""
    link = MatchGame.objects.filter(game=game).select_related("match__group__stage").first()
    if link is None:
        return None
    stage = link.match.group.stage
    following = Stage.objects.filter(tournament_id=stage.tournament_id, order=stage.order + 1).first()
    if stage.status != Stage.Status.FINISHED or following is None or following.status not in STARTED:
        return None  # nothing started depends on this stage's order: the outcomes simply follow
    try:
        with transaction.atomic():
            Game.objects.filter(pk=game.pk).update(result=result, result_reason=reason, status=GameStatus.FINISHED)
            match_sync(match_id=link.match_id, confirm=confirm)
            raise _DryRun
    except _DryRun:
        return None
    except TournamentError as refused:
        if refused.code != "next_stage_started":
            raise
        return refused


def guard(game: Game, result: str, reason: str) -> None:
    """The games app's question before a correction: refused while one stands that nobody confirmed."""
    consent = Consent.objects.filter(game=game).first()
    asked = question(game, result, reason, confirm=consent.reason if consent is not None else "")
    if asked is not None:
        raise asked


@transaction.atomic
def correct_result(
    *,
    game_id: int,
    result: str,
    reason: str,
    note: str,
    confirm: bool = False,
    actor: Any = None,
    interface: str = "api",
) -> Game:
    """The organizer's correction of a tournament game. When the tournament asks for a confirmation (its next
    stage has started), it is refused unless ``confirm``; confirmed, ``note`` is the recorded reason."""
    game = lock_game(game_id)
    asked = question(game, result, reason)
    if asked is not None:
        if not confirm or not note.strip():
            raise asked
        question(game, result, reason, confirm=note)  # refused even when confirmed: raised
        tournament = Match.objects.select_related("tournament").get(match_games__game=game).tournament
        Consent.objects.update_or_create(
            game=game, defaults={"tournament": tournament, "reason": note[:500], "actor": _user(actor)}
        )
        audit(tournament, "correction_consent", actor, game=game.pk, reason=note[:500])
    return game_override(game_id=game.pk, result=result, reason=reason, note=note, actor=actor, interface=interface)


def _user(actor: Any) -> Any:
    return actor if getattr(actor, "pk", None) else None
