"""A tournament's own staff: its organizers (the creator and those they add) and its referees, added and
removed by an organizer of the tournament from the control room or the API, each change audited.

Only real accounts are staff: a private link's account (a player's, with no password) is refused, and so
is an inactive one — with the same words as an account that does not exist, so that the form tells nobody
which usernames are taken. A referee added here referees this tournament only (its games and its console);
nothing here ever grants a group, staff or superuser flags."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from tournament.models import Tournament
from tournament.services import TournamentError, audit

ROLES = ("organizer", "referee")


def _account(username: str) -> User:
    if not username.strip():
        raise TournamentError("no_account", _("Give the account's username."))
    user = User.objects.filter(username=username.strip(), is_active=True).first()
    if user is None or not user.has_usable_password():
        raise TournamentError(
            "no_account",
            _("No account %(name)s can be added: staff sign in with an active account and a password of their own.")
            % {"name": username.strip()},
            404,
        )
    return user


def _role(role: str) -> str:
    if role not in ROLES:
        raise TournamentError("bad_role", _("Unknown role %(name)s.") % {"name": role})
    return role


@transaction.atomic
def staff_add(*, tournament: Tournament, username: str, role: str, actor: Any = None) -> User:
    role = _role(role)
    user = _account(username)
    if role == "organizer":
        tournament.organizers.add(user)
    else:
        tournament.referees.add(user)
    audit(tournament, "staff_add", actor, user=user.pk, role=role)
    return user


@transaction.atomic
def staff_remove(*, tournament: Tournament, user_id: int, role: str, actor: Any = None) -> None:
    members = tournament.organizers if _role(role) == "organizer" else tournament.referees
    user = members.filter(pk=user_id).first()
    if user is None:
        raise TournamentError("no_account", _("That account is not on this tournament's staff."), 404)
    if role == "organizer" and members.count() == 1 and getattr(actor, "pk", None) == user.pk:
        raise TournamentError("last_organizer", _("A tournament keeps at least one organizer."), 409)
    members.remove(user)
    audit(tournament, "staff_remove", actor, user=user.pk, role=role)
