"""Who keeps a player: the identity model of a server several organizers share (docs/security.md, "Players
belong where they were entered").

A :class:`~games.models.Player` is a person, and one person may play in many tournaments. Who may enter that
person in a tournament, and who may change their name, unit or rating, follows from where they came from:

- **the register** (``Player.owner`` empty): players a site organizer entered, RenjuNet imports, the demo.
  Site organizers keep them.
- **an organizer's own players** (``Player.owner`` set): entered new by a tournament organizer (group
  ``host``) or registered themselves in that organizer's tournament. The organizer who entered them keeps
  them and may enter them again in their later events; nobody else may.
- **a player with an account of their own** (a password): they keep themselves. They register for a
  tournament themselves, or accept an organizer's invitation.

A site organizer keeps everyone (a club's own server). Nobody else ever attaches a player another organizer
keeps: an organizer who types a name and unit that another's player has gets a new player of their own.

An edit changes what every tournament of the player shows, so it is allowed only when every one of those
tournaments is run by the editor (:func:`may_edit`): editing an entry in one tournament never changes what
another organizer's tournament shows. A private link signs in only for the tournaments its own organizers
run (``games.access.link_scope``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games.access import is_link_account, is_organizer
from games.models import Player
from games.services.players import check_name
from tournament.errors import TournamentError
from tournament.models import Entry, Tournament
from tournament.roles import PLAYER


def link_only(user: User) -> bool:
    """An account a private link may sign in: one that only a link ever opened (no password, no staff or
    superuser flag, no group but players', no permission of its own). Any other account is a person's
    real login, and a slip or a registration form must never hand it out."""
    if user.is_staff or user.is_superuser or user.has_usable_password():
        return False
    if user.user_permissions.exists():
        return False
    return not user.groups.exclude(name=PLAYER).exists()


def has_own_account(player: Player) -> bool:
    """The player signs in with an account of their own (a password; not a private link's): they keep
    themselves."""
    return player.user is not None and not is_link_account(player.user)


def _system(actor: Any) -> bool:
    """The server itself (a command, the demo, a migration, a self-registration): no person to check."""
    return actor is None


def keeps(actor: Any, player: Player) -> bool:
    """May ``actor`` enter ``player`` in a tournament it runs (its own player, the player's own account, or a
    site organizer)?"""
    if _system(actor):
        return True
    if not getattr(actor, "is_authenticated", False):
        return False
    if is_organizer(actor) or player.user_id == actor.pk:
        return True
    if has_own_account(player):
        return False
    return bool(player.owner_id == actor.pk)


def may_edit(actor: Any, player: Player) -> bool:
    """May ``actor`` change ``player``'s name, unit or rating? Only if that shows in no tournament ``actor``
    does not run (:func:`editable_players`, the one rule, for one player)."""
    return player.pk in editable_players(actor, [player.pk])


def editable_players(actor: Any, player_ids: list[int]) -> set[int]:
    """Which of ``player_ids`` ``actor`` may edit, in three queries whatever their number: a site organizer (or
    the server itself) any; anyone else its own account's player, and a player that is not the register's, has
    no account of their own and plays only in tournaments ``actor`` runs (a co-organizer of the one tournament
    included) — or, entered nowhere yet, one ``actor`` keeps."""
    if _system(actor) or is_organizer(actor):
        return set(player_ids)
    if not getattr(actor, "is_authenticated", False):
        return set()
    players = Player.objects.filter(pk__in=player_ids).select_related("user")
    entries = Entry.objects.filter(player_id__in=player_ids)
    entered = set(entries.values_list("player_id", flat=True))
    elsewhere = set(entries.exclude(tournament__organizers=actor).values_list("player_id", flat=True))
    out = set()
    for player in players:
        if player.user_id == actor.pk:
            out.add(player.pk)
        elif has_own_account(player) or player.owner_id is None or player.pk in elsewhere:
            continue
        elif player.pk in entered or player.owner_id == actor.pk:
            out.add(player.pk)
    return out


def keeper_for_new(actor: Any, tournament: Tournament | None) -> User | None:
    """Who keeps a player made now: the organizer who entered them; a self-registration's tournament's first
    organizer; the register (``None``) for a site organizer or a tournament no one is listed on."""
    if isinstance(actor, User):
        return None if is_organizer(actor) else actor
    if tournament is None:
        return None
    first = tournament.organizers.through.objects.filter(tournament=tournament).order_by("pk").first()
    if first is None or is_organizer(first.user):
        return None
    return first.user


def refuse_entering(player: Player) -> TournamentError:
    """The refusal for entering someone another organizer keeps (the same words whoever keeps them)."""
    return TournamentError(
        "not_your_player",
        _(
            "%(name)s is kept by another organizer's events or by their own account: enter a new player, invite "
            "them (they accept with their own account) or ask a site organizer."
        )
        % {"name": player.name},
        403,
    )


def check_may_enter(actor: Any, player: Player) -> None:
    if not keeps(actor, player):
        raise refuse_entering(player)


def check_may_edit(actor: Any, player: Player) -> None:
    if not may_edit(actor, player):
        raise TournamentError(
            "not_your_player",
            _(
                "%(name)s also plays in events you do not run, or keeps their own account: only a site "
                "organizer (or the player) may change their name, unit or rating."
            )
            % {"name": player.name},
            403,
        )


@transaction.atomic
def player_for_entry(
    *, actor: Any, tournament: Tournament | None, name: str, unit: str = "", rating: int | None = None
) -> Player:
    """The player ``actor`` means by a name and unit: the earliest such player it keeps, else a new one of its
    own. A given ``rating`` fills in one that player lacks, never replaces one. Never someone another
    organizer keeps: a name and a unit are public, so they prove nothing."""
    name, unit = check_name(name, unit)
    same = Player.objects.select_for_update().filter(name=name, unit=unit, computer_level__isnull=True)
    for player in same.select_related("user").order_by("pk"):
        if keeps(actor, player):
            if player.rating is None and rating is not None and may_edit(actor, player):
                player.rating = rating
                player.save(update_fields=["rating"])
            return player
    return Player.objects.create(name=name, unit=unit, rating=rating, owner=keeper_for_new(actor, tournament))
