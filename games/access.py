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
from django.apps import apps
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q, QuerySet
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


def referees_any(user: Any) -> bool:
    """Does ``user`` referee anything: a tournament's or a game's referee list, or the site-wide ``referee``
    group a site organizer gives (a club's own server)? Referee rights are per tournament: adding a referee to
    one tournament gives no group (tournament.staff)."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.groups.filter(name="referee").exists() or Game.referees.through.objects.filter(user=user).exists():
        return True
    return bool(apps.get_model("tournament", "Tournament").objects.filter(referees=user).exists())


def player_of(user: Any) -> Player | None:
    """The user's player, if any (read with the user when the token authentication has: one query less)."""
    if not user.is_authenticated:
        return None
    try:
        return user.player  # type: ignore[no-any-return]
    except Player.DoesNotExist:
        return None


# A session opened by a private link carries the tournament of its link (set by tournament.middleware and, for
# sockets, config.live_acts.socket_user). Such a session acts only in the tournaments that tournament's own
# organizers run (docs/security.md, "Players belong where they were entered"): a link made by one organizer
# for a player who also plays in another organizer's event never opens that event's games.
LINK_TOURNAMENT = "link_tournament"


def is_link_account(user: Any) -> bool:
    """An account no password opens: a private link's (staff and superusers never are, whatever their password)."""
    return bool(
        getattr(user, "is_authenticated", False)
        and not user.is_staff
        and not user.is_superuser
        and not user.has_usable_password()
    )


def link_scope(user: Any) -> set[int] | None:
    """The tournaments ``user`` may act in as a player: ``None`` (no limit) for any account a password opens; for a
    private link's session its link's tournament and every tournament that tournament's organizers run. A link
    account without its link (a session that lost its key) acts nowhere: the rule fails closed."""
    if not is_link_account(user):
        return None
    origin = getattr(user, LINK_TOURNAMENT, None)
    return set() if origin is None else scope_of_link(origin)


def scope_of_link(origin: int) -> set[int]:
    """The tournaments a private link of tournament ``origin`` reaches: it and every one its organizers run."""
    runs = apps.get_model("tournament", "Tournament")  # games never imports tournament (docs/architecture.md)
    return {origin, *runs.objects.filter(organizers__organized_tournaments__pk=origin).values_list("pk", flat=True)}


def console_topic(user: Any, player: Player) -> str:
    """The live topic of ``player``'s console as ``user`` sees it: ``player:12``, or for a private link's
    session ``player:12@5`` (what its link reaches, tournament 5's: config.live renders each apart)."""
    origin = getattr(user, LINK_TOURNAMENT, None) if is_link_account(user) else None
    return f"player:{player.pk}" if origin is None else f"player:{player.pk}@{origin}"


def link_scope_allows(user: Any, tournament_id: int | None) -> bool:
    """May ``user`` act as a player in tournament ``tournament_id`` (:func:`link_scope`)?"""
    scope = link_scope(user)
    return scope is None or (tournament_id is not None and tournament_id in scope)


def player_in(user: Any, tournament_id: int) -> Player | None:
    """The user's player as far as tournament ``tournament_id`` is concerned: ``None`` for a link's session that
    does not reach it (:func:`link_scope`), so a captain's lineup or an appeal elsewhere stays out of reach."""
    return player_of(user) if link_scope_allows(user, tournament_id) else None


def games_in_scope(games: list[Game], scope: set[int] | None) -> list[Game]:
    """``games`` within a link's ``scope`` (:func:`link_scope`): its tournaments' games and practice games."""
    if scope is None:
        return games
    where = dict(
        Game.objects.filter(pk__in=[g.pk for g in games]).values_list("pk", "match_game__match__tournament_id")
    )
    return [g for g in games if where.get(g.pk) in scope or (where.get(g.pk) is None and g.practice)]


def event_of(game: Game) -> int | None:
    """The id of the tournament ``game`` is played in (None for a practice, casual or imported game)."""
    return Game.objects.filter(pk=game.pk).values_list("match_game__match__tournament_id", flat=True).first()


def acts_in(user: Any, game: Game) -> bool:
    """The link-scope rule for one game: its tournament's, or a practice game against the computer."""
    if not is_link_account(user):
        return True
    tournament_id = event_of(game)
    if tournament_id is None:
        return bool(game.practice)
    return link_scope_allows(user, tournament_id)


def seated_player(user: Any, game: Game) -> Player | None:
    """The user's player when it plays ``game`` and the session may act there (the link scope), else ``None``."""
    player = player_of(user)
    if player is None or player.pk not in (game.player_one_id, game.player_two_id):
        return None
    return player if acts_in(user, game) else None


def visible_players(user: Any) -> QuerySet[Player]:
    """The players ``user`` may look up (the API's players, /players/<id>/): anyone who plays in something
    public — a tournament past its draft, a public game outside a draft, a rating list, the RenjuNet register —
    and the computer; besides, one's own player, and the players of the tournaments one organizes. A draft's
    entrants stay its organizers' own, as the draft does."""
    players = Player.objects.all()
    if is_organizer(user):
        return players
    entries = apps.get_model("tournament", "Entry").objects.filter(player=OuterRef("pk"))
    ratings = apps.get_model("ratings", "Rating").objects.filter(player=OuterRef("pk"))
    games = Game.objects.filter(Q(player_one=OuterRef("pk")) | Q(player_two=OuterRef("pk")), is_public=True)
    shown: list[Q | Exists] = [
        Q(computer_level__isnull=False),
        Q(renjunet_id__isnull=False),
        Exists(ratings),
        Exists(entries.exclude(tournament__status="draft")),
        Exists(games.exclude(match_game__match__tournament__status="draft")),
    ]
    if getattr(user, "is_authenticated", False):
        shown += [Q(user=user), Q(owner=user), Exists(entries.filter(tournament__organizers=user))]
    either = Q()
    for condition in shown:
        either |= condition  # type: ignore[assignment]  # Exists combines as a Q does
    return players.filter(either)


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
    return seated_player(user, game) is not None


def can_see(user: Any, game: Game) -> bool:
    """The object-level twin of :func:`visible_games`: public, or yours as player, referee or organizer."""
    if game.is_public:
        return True
    if not user.is_authenticated:
        return False
    if seated_player(user, game) is not None:
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
    if not acts_in(user, game):
        raise GameError(
            "link_scope",
            _("Your private link opens only the games of its own tournament; open this game's own link."),
            403,
        )
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
