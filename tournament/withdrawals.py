"""Withdrawals and no-shows.

A player who withdraws leaves the stage in progress by the tournament's
policy: their remaining games are forfeited (the opponent wins, reason
``forfeit``), or, under ``annul`` while fewer than half of their games of the
stage were played, all their games of the stage are annulled. Either way they
leave the order of their group, so nobody withdrawn qualifies; the next-ranked
player of the same group takes the place (a playoff if that is tied), and a
next stage that has not started is re-drawn from its recorded seed
(:mod:`tournament.services.outcomes`).

A no-show: a referee or the organizer marks a player absent at a called board;
after the tournament's wait the game is forfeited (:mod:`games.forfeits`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games.enums import GameStatus
from games.forfeits import game_forfeit, game_mark_absent, game_mark_present
from games.models import Game, Player
from tournament.errors import TournamentError
from tournament.models import Entry, Group, Match, MatchGame, Stage, Tournament, WithdrawalPolicy
from tournament.services.common import audit, call_matches, cancel_match, next_game
from tournament.services.draws import draw_stage, undo_draw
from tournament.services.outcomes import group_sync, stage_sync
from tournament.stage_formats import format_of

MAX_FORFEITS_PER_MATCH = 20  # a best-of with sudden death ends long before this


def _current_stage(tournament: Tournament) -> Stage | None:
    """The stage a withdrawal belongs to: the latest one that has started."""
    return (
        Stage.objects.filter(tournament=tournament, status__in=[Stage.Status.RUNNING, Stage.Status.FINISHED])
        .order_by("-order")
        .first()
    )


def _open_game(match: Match) -> Game | None:
    link = (
        MatchGame.objects.filter(match=match, game__status__in=[GameStatus.PENDING, *GameStatus.active()])
        .select_related("game")
        .order_by("-number")
        .first()
    )
    return link.game if link is not None else None


def _forfeit_match(match: Match, loser: Entry, note: str, actor: Any) -> None:
    """Play out a match by forfeits: each remaining game is won by the opponent."""
    tournament = match.tournament
    for _attempt in range(MAX_FORFEITS_PER_MATCH):
        match = Match.objects.select_related("first__player", "second__player", "group__stage").get(pk=match.pk)
        if match.status in (Match.Status.FINISHED, Match.Status.CANCELLED):
            return
        game = _open_game(match) or next_game(match, tournament)
        game_forfeit(game_id=game.pk, loser=loser.player, note=note, actor=actor)


@transaction.atomic
def entry_withdraw(*, entry: Entry, reason: str = "", policy: str = "", actor: Any = None) -> Entry:
    """Withdraw a player from a tournament; idempotent."""
    entry = Entry.objects.select_for_update().select_related("tournament", "player").get(pk=entry.pk)
    if entry.withdrawn:
        return entry
    tournament = entry.tournament
    policy = policy or tournament.withdrawal_policy
    if policy not in WithdrawalPolicy.values:
        raise TournamentError("bad_policy", _("The policy is forfeit or annul."))
    stage = _current_stage(tournament)
    ours = Q(first=entry) | Q(second=entry)
    applied = policy
    if stage is not None and format_of(stage).withdrawal_policy:
        applied = format_of(stage).withdrawal_policy  # the format's own (a Swiss: results stand, no more pairing)
    elif stage is not None and stage.status == Stage.Status.RUNNING and policy == WithdrawalPolicy.ANNUL:
        planned = played = 0
        for match in Match.objects.filter(ours, group__stage=stage).exclude(status=Match.Status.CANCELLED):
            planned += match.games_planned
            played += match.match_games.filter(game__status=GameStatus.FINISHED).count()
        if played * 2 >= planned:
            applied = WithdrawalPolicy.FORFEIT  # half or more played: the results stand, the rest are forfeited
    entry.withdrawn = True
    entry.withdrawn_stage = stage
    entry.withdrawal = {
        "at": timezone.now().isoformat(),
        "reason": reason[:500],
        "policy": policy,
        "applied": applied if stage is not None else "",
        "stage": stage.pk if stage is not None else None,
    }
    entry.save(update_fields=["withdrawn", "withdrawn_stage", "withdrawal"])
    audit(tournament, "withdraw", actor, entry=entry.pk, **entry.withdrawal)
    note = _("%(name)s withdrew") % {"name": entry.player.name}
    if stage is None:
        first = Stage.objects.filter(tournament=tournament, order=1).first()
        if first is not None and first.status == Stage.Status.DRAWN:  # drawn, not started: drawn again without them
            seed = first.draw_seed
            undo_draw(stage=first, actor=actor)
            draw_stage(stage=first, seed=seed, actor=actor)
        return entry
    if stage.status == Stage.Status.RUNNING:
        matches = list(
            Match.objects.filter(ours, group__stage=stage)
            .exclude(status=Match.Status.CANCELLED)
            .select_related("group")
            .order_by("group__number", "round", "order", "pk")
        )
        for match in matches:
            annul = applied == WithdrawalPolicy.ANNUL and not match.best_of and match.group.kind != Group.Kind.PLAYOFF
            if annul:
                cancel_match(match, _("Annulled: %(note)s") % {"note": note}, actor)
            elif match.status != Match.Status.FINISHED:
                _forfeit_match(match, entry, note, actor)
        roots = sorted({(m.group.root_id or m.group_id) for m in matches})
        for group in Group.objects.filter(pk__in=roots).order_by("number"):
            group_sync(group=group, actor=actor)
    else:
        stage_sync(stage=stage, actor=actor)
    call_matches(tournament=tournament)
    entry.refresh_from_db()
    return entry


def _called_game(game_id: int, tournament: Tournament) -> Game:
    game = Game.objects.filter(pk=game_id, match_game__match__tournament=tournament).first()
    if game is None:
        raise TournamentError("no_game", _("There is no such game in this tournament."), 404)
    return game


def match_mark_absent(*, tournament: Tournament, game_id: int, player: Player, actor: Any = None) -> Game:
    """A player is not at the called board: the game is forfeited after the tournament's wait."""
    game = _called_game(game_id, tournament)
    game = game_mark_absent(
        game_id=game.pk, player=player, wait=timedelta(minutes=tournament.no_show_wait), actor=actor
    )
    audit(tournament, "absent", actor, game=game.pk, player=player.pk)
    return game


def match_mark_present(*, tournament: Tournament, game_id: int, actor: Any = None) -> Game:
    game = _called_game(game_id, tournament)
    game = game_mark_present(game_id=game.pk, actor=actor)
    audit(tournament, "present", actor, game=game.pk)
    return game
