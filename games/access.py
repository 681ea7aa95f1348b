"""Who may do what to a game: players in their own games, referees in the
games they are assigned to, organizers in the tournaments they run (site
organizers everywhere), everyone else reads public games only.

Two organizer roles (docs/security.md): the *site organizer* (the ``organizer``
group, or a superuser) runs every tournament, as a club's own server wants;
a *tournament organizer* runs only the tournaments whose ``organizers`` list
holds them (the creator and those they add), as a server several clubs share
wants. The per-object question is the ``tournament.organize`` rule (django-rules)."""

from __future__ import annotations

from typing import Any

import rules
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from games.models import Game, Player
from games.services import GameError


def account(user: Any) -> User:
    """The signed-in account behind a request (views behind ``login_required`` or DRF's IsAuthenticated)."""
    if not isinstance(user, User):
        raise PermissionDenied
    return user


def is_organizer(user: Any) -> bool:
    """A site organizer: runs every tournament on this server."""
    return bool(user.is_authenticated and (user.is_superuser or user.has_perm("games.override_result")))


def _site_organizer(user: Any, tournament: Any) -> bool:
    return is_organizer(user)


def _listed_organizer(user: Any, tournament: Any) -> bool:
    if tournament is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return bool(tournament.organizers.filter(pk=user.pk).exists())


rules.add_perm("tournament.organize", rules.Predicate(_site_organizer) | rules.Predicate(_listed_organizer))


def may_organize(user: Any, tournament: Any) -> bool:
    """Does ``user`` run ``tournament`` (a site organizer, or one of its listed organizers)?"""
    return bool(getattr(user, "is_authenticated", False) and user.has_perm("tournament.organize", tournament))


def organizes_any(user: Any) -> bool:
    """A site organizer, one who may create tournaments, or the organizer of at least one."""
    if not getattr(user, "is_authenticated", False):
        return False
    if is_organizer(user) or user.has_perm("tournament.add_tournament"):
        return True
    return bool(user.organized_tournaments.exists())


def drafts_hidden(queryset: Any, user: Any, to_tournament: str = "") -> Any:
    """``queryset`` without what belongs to draft tournaments, but for their organizers (``to_tournament``
    is the lookup from the queryset's model to its tournament, e.g. ``"tournament__"``; empty: tournaments)."""
    if is_organizer(user):
        return queryset
    draft = Q(**{f"{to_tournament}status": "draft"})
    if getattr(user, "is_authenticated", False):
        return queryset.filter(~draft | Q(**{f"{to_tournament}organizers": user})).distinct()
    return queryset.exclude(draft)


def organizer_or_404(request: Any, tournament: Any = None) -> User:
    """The organizer behind a page request (of ``tournament`` when given, else of at least one tournament);
    anyone else finds no such page (the control room's pages)."""
    user = account(request.user)
    allowed = may_organize(user, tournament) if tournament is not None else organizes_any(user)
    if not allowed:
        raise Http404
    return user


def _game_tournament_organizer(user: Any, game: Game) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return Game.objects.filter(pk=game.pk, match_game__match__tournament__organizers=user).exists()


def organizes_game(user: Any, game: Game) -> bool:
    """A site organizer, or an organizer of the tournament the game belongs to."""
    return is_organizer(user) or _game_tournament_organizer(user, game)


def is_referee_of(user: Any, game: Game) -> bool:
    return bool(user.is_authenticated and game.referees.filter(pk=user.pk).exists())


def player_of(user: Any) -> Player | None:
    """The user's player, if any (read with the user when the token authentication has: one query less)."""
    if not user.is_authenticated:
        return None
    try:
        return user.player  # type: ignore[no-any-return]
    except Player.DoesNotExist:
        return None


def visible_games(user: Any) -> QuerySet[Game]:
    games = Game.objects.all()
    if is_organizer(user):
        return games
    visible = Q(is_public=True)
    if user.is_authenticated:
        visible |= Q(referees=user) | Q(player_one__user=user) | Q(player_two__user=user)
        visible |= Q(match_game__match__tournament__organizers=user)
    return games.filter(visible).distinct()


def concerns(user: Any, game: Game) -> bool:
    """The game's own people: its players, its referees, and organizers (who see its referees and its log)."""
    if not user.is_authenticated:
        return False
    if may_rule(user, game):
        return True
    player = player_of(user)
    return player is not None and player.pk in (game.player_one_id, game.player_two_id)


def can_see(user: Any, game: Game) -> bool:
    """The object-level twin of :func:`visible_games`: public, or yours as player, referee or organizer."""
    if game.is_public:
        return True
    if not user.is_authenticated:
        return False
    player = player_of(user)
    if player is not None and player.pk in (game.player_one_id, game.player_two_id):
        return True
    return may_rule(user, game)


def acting_player(user: Any, game: Game, seat: int | None = None) -> Player:
    """The player a request acts for: the user's own seat; organizers may name a seat."""
    if seat is not None and organizes_game(user, game):
        if seat not in (1, 2):
            raise GameError("bad_seat", _("The seat is 1 or 2."))
        return game.player_one if seat == 1 else game.player_two
    player = player_of(user)
    if player is None or player.pk not in (game.player_one_id, game.player_two_id):
        raise GameError("not_your_game", _("You are not a player in this game."), 403)
    return player


def may_rule(user: Any, game: Game) -> bool:
    """May ``user`` rule on ``game``: one of its referees, or an organizer of it."""
    return organizes_game(user, game) or is_referee_of(user, game)


def require_referee(user: Any, game: Game) -> None:
    if not may_rule(user, game):
        raise GameError("not_referee", _("Only the game's referees and the organizer may do this."), 403)


def require_organizer(user: Any, tournament: Any = None) -> None:
    """Refuse anyone but a site organizer, or (given ``tournament``) anyone who does not run it."""
    allowed = may_organize(user, tournament) if tournament is not None else is_organizer(user)
    if not allowed:
        raise GameError("not_organizer", _("Only the organizer may do this."), 403)


def require_game_organizer(user: Any, game: Game) -> None:
    if not organizes_game(user, game):
        raise GameError("not_organizer", _("Only the organizer may do this."), 403)
