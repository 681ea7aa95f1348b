"""Invitations: how an organizer asks someone it does not keep to play (tournament.identity). The organizer
names the player (by their public player number); the player, signed in with an account of their own,
accepts or declines on their console or through the API. Only an accepted invitation enters them.

An invitation is made whoever the player is, so the answer never tells an organizer whether a player has an
account: one nobody can accept simply stays open. A player the organizer keeps already is entered at once."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Player
from tournament.errors import TournamentError
from tournament.identity import has_own_account, keeps
from tournament.models import Entry, Invitation, Tournament
from tournament.services import audit, register


@transaction.atomic
def invite(*, tournament: Tournament, player: Player, actor: Any) -> Invitation | Entry:
    """Ask ``player`` to play in ``tournament``; a player ``actor`` keeps is entered at once (the entry is
    returned). Asking again leaves the open invitation as it is, and renews a declined one."""
    if player.computer_level is not None:
        raise TournamentError("computer", _("The computer opponent plays practice games only."))
    if keeps(actor, player):
        return register(tournament=tournament, player=player, actor=actor)
    if Entry.objects.filter(tournament=tournament, player=player).exists():
        raise TournamentError("already_entered", _("%(name)s is already entered.") % {"name": player.name}, 409)
    invitation, made = Invitation.objects.select_for_update().get_or_create(
        tournament=tournament, player=player, defaults={"invited_by": actor}
    )
    if not made and invitation.accepted is False:
        invitation.accepted, invitation.answered_at, invitation.invited_by = None, None, actor
        invitation.save(update_fields=["accepted", "answered_at", "invited_by"])
    audit(tournament, "invite", actor, player=player.pk, invitation=invitation.pk)
    return invitation


def open_invitations(user: Any) -> list[Invitation]:
    """The invitations waiting for ``user``'s answer (only an account of one's own answers)."""
    if not getattr(user, "is_authenticated", False):
        return []
    found = Invitation.objects.filter(player__user=user, accepted__isnull=True).select_related("tournament", "player")
    return [i for i in found if has_own_account(i.player)]


@transaction.atomic
def invitation_answer(*, invitation_id: int, user: Any, accept: bool) -> Invitation:
    """The invited player's answer; accepting enters them (refused once the draw is made)."""
    invitation = (
        Invitation.objects.select_for_update().select_related("player__user", "tournament").filter(pk=invitation_id)
    ).first()
    mine = invitation is not None and invitation.player.user_id == getattr(user, "pk", None)
    if invitation is None or not mine or not has_own_account(invitation.player):
        raise TournamentError("no_invitation", _("There is no such invitation for you."), 404)
    if invitation.accepted is not None:
        return invitation
    if accept:
        register(tournament=invitation.tournament, player=invitation.player, actor=user)
    invitation.accepted, invitation.answered_at = accept, timezone.now()
    invitation.save(update_fields=["accepted", "answered_at"])
    audit(invitation.tournament, "invitation_answer", user, invitation=invitation.pk, accepted=accept)
    return invitation
