"""Appeals against a referee's ruling (decided finally by a committee of three) and 擂台赛 bouts."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Game, GameEvent, Player
from games.services import game_override
from tournament.models import Appeal, ArenaBout, Match, Tournament
from tournament.services import TournamentError, audit


@transaction.atomic
def appeal_file(*, game: Game, appellant: Player, reason: str, actor: Any = None) -> Any:
    """A player appeals a referee's ruling on their game; the committee of three decides."""
    if appellant.pk not in (game.player_one_id, game.player_two_id):
        raise TournamentError("not_your_game", _("You are not a player in this game."), 403)
    if not GameEvent.objects.filter(game=game, kind=GameEvent.Kind.RULED).exists():
        raise TournamentError("no_ruling", _("Only a referee's ruling can be appealed."), 409)
    if not reason.strip():
        raise TournamentError("reason_required", _("Say why you appeal."))
    if Appeal.objects.filter(game=game).exclude(status=Appeal.Status.OPEN).exists():
        raise TournamentError("appeal_decided", _("The committee has decided; its decision is final."), 409)
    appeal, _created = Appeal.objects.get_or_create(
        game=game, status=Appeal.Status.OPEN, defaults={"appellant": appellant, "reason": reason[:500]}
    )
    match = Match.objects.filter(match_games__game=game).first()
    if match is not None:
        audit(match.tournament, "appeal", actor, game=game.pk, appeal=appeal.pk)
    return appeal


@transaction.atomic
def appeal_decide(
    *,
    appeal: Any,
    committee: list[Any],
    upheld: bool,
    decision: str,
    result: str = "",
    reason: str = "",
    actor: Any = None,
) -> Any:
    """The committee of three decides, finally; an upheld appeal replaces the result (logged on the game)."""
    appeal = Appeal.objects.select_for_update().get(pk=appeal.pk)
    if appeal.status != Appeal.Status.OPEN:
        raise TournamentError("appeal_decided", _("The committee has decided; its decision is final."), 409)
    if len({member.pk for member in committee}) != 3:
        raise TournamentError("committee_of_three", _("An appeal is decided by a committee of three."))
    if not decision.strip():
        raise TournamentError("reason_required", _("Write the committee's decision."))
    if upheld:
        game_override(
            game_id=appeal.game_id,
            result=result,
            reason=reason or "referee",
            note=f"appeal {appeal.pk}: {decision}"[:500],
            actor=actor,
        )
    appeal.status = Appeal.Status.UPHELD if upheld else Appeal.Status.DISMISSED
    appeal.decision = decision[:500]
    appeal.decided_at = timezone.now()
    appeal.save(update_fields=["status", "decision", "decided_at"])
    appeal.committee.set(committee)
    return appeal


@transaction.atomic
def arena_bout(
    *, tournament: Tournament, challenger: Player, winner: Player, holder: Player | None = None, actor: Any = None
) -> Any:
    """擂台赛: a challenger plays the table holder (the last winner, or ``holder`` for the first bout)."""
    last = ArenaBout.objects.filter(tournament=tournament).order_by("-id").first()
    current = last.winner if last is not None else holder
    if current is None:
        raise TournamentError("no_holder", _("Name the first table holder."))
    if challenger.pk == current.pk:
        raise TournamentError("same_player", _("The holder cannot challenge themselves."))
    if winner.pk not in (challenger.pk, current.pk):
        raise TournamentError("bad_winner", _("The winner is the holder or the challenger."))
    entered = set(tournament.entries.filter(player__in=[challenger, current]).values_list("player_id", flat=True))
    if entered != {challenger.pk, current.pk}:  # a bout is between this tournament's own entrants
        raise TournamentError("not_entered", _("Both players of a bout must be entered in this tournament."))
    bout = ArenaBout.objects.create(tournament=tournament, holder=current, challenger=challenger, winner=winner)
    audit(tournament, "arena_bout", actor, bout=bout.pk)
    return bout
