"""Draws and rounds: a stage drawn from a recorded seed (its groups and pairings as its format decides), taken
back, adjusted, started, and the next round of a round-by-round stage paired; the colour toss of a match."""

from __future__ import annotations

import random
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament import formats
from tournament.checkin import absent
from tournament.errors import TournamentError
from tournament.models import NO_SHOW, CheckIn, Entry, Group, GroupMember, Match, Stage, Tournament
from tournament.services import rounds
from tournament.services.common import audit, call_matches, make_group, stage_for_update
from tournament.signals import tournament_starting
from tournament.stage_formats import format_of


@transaction.atomic
def draw_stage(*, stage: Stage, seed: int | None = None, actor: Any = None) -> Stage:
    """Draw a stage's groups and pairings from a recorded seed; idempotent once drawn."""
    stage = stage_for_update(stage.pk)
    if stage.status != Stage.Status.PENDING:
        return stage
    if stage.held:
        raise TournamentError(
            "stage_held", _("A correction reopened the previous stage; this draw waits until it is decided."), 409
        )
    tournament = stage.tournament
    waiting = tournament.entries.filter(pending=True).count()
    if stage.order == 1 and waiting:
        raise TournamentError(
            "pending_entries",
            _("%(n)s self-registrations await your approval: approve or remove them before the draw.") % {"n": waiting},
            409,
        )
    if stage.order == 1:  # seeding and pairing numbers use the ratings at the start (ratings app)
        _leave_out_absent(tournament, stage, actor)
        tournament_starting.send(sender=Tournament, tournament=tournament)
    if seed is None:
        seed = stage.options.get("seed", secrets.randbelow(2**31))
    rng = random.Random(seed)
    entries = _stage_entries(stage)
    for number, plan in enumerate(format_of(stage).draw(entries, rng, tournament, stage), start=1):
        make_group(stage, number, plan.keys, plan.kind, advance=plan.advance, games=plan.games, pair=plan.pair_at_draw)
    stage.status = Stage.Status.DRAWN
    stage.draw_seed = seed
    stage.options = {**stage.options, **format_of(stage).recorded_at_draw(stage, seed)}
    stage.save(update_fields=["status", "draw_seed", "options"])
    audit(tournament, "draw", actor, stage=stage.pk, seed=seed)
    return stage


def _leave_out_absent(tournament: Tournament, stage: Stage, actor: Any) -> None:
    """With check-in on, the players not checked in when the first stage is drawn are left out of it:
    withdrawn before the start, saying why (in a Swiss they may still come back as late entries). With
    check-in before each round of a Swiss, nobody is left out of the draw: whoever has not checked in for
    round 1 gets its zero-point bye when it is paired, as for any later round."""
    if tournament.check_in == CheckIn.OFF:
        return
    if tournament.check_in == CheckIn.EACH_ROUND and format_of(stage).absences_by_round:
        return
    missing = list(absent(tournament.entries.all(), 1).select_related("player"))
    now = timezone.now().isoformat()
    for entry in missing:
        entry.withdrawn = True
        entry.withdrawal = {"at": now, "reason": NO_SHOW, "policy": "", "applied": "", "stage": None}
        entry.save(update_fields=["withdrawn", "withdrawal"])
    if missing:
        audit(tournament, "absent_at_check_in", actor, entries=[e.pk for e in missing])


def _stage_entries(stage: Stage) -> list[Entry]:
    ids = stage.options.get("entries")
    entries = Entry.objects.filter(tournament=stage.tournament, withdrawn=False).select_related("player")
    if ids is not None:
        entries = entries.filter(pk__in=ids)
    found = list(entries.order_by("seed", "pk"))
    if len(found) < 2:
        raise TournamentError("too_few", _("A stage needs at least two players."))
    return found


@transaction.atomic
def undo_draw(*, stage: Stage, actor: Any = None) -> Stage:
    """Take a draw back until the stage starts (nothing has been played)."""
    stage = stage_for_update(stage.pk)
    if stage.status != Stage.Status.DRAWN:
        raise TournamentError("stage_started", _("A draw can be undone only before the stage starts."), 409)
    Match.objects.filter(group__stage=stage).delete()
    GroupMember.objects.filter(group__stage=stage).delete()
    Group.objects.filter(stage=stage).delete()
    stage.status, stage.draw_seed = Stage.Status.PENDING, None
    stage.save(update_fields=["status", "draw_seed"])
    audit(stage.tournament, "undo_draw", actor, stage=stage.pk)
    return stage


@transaction.atomic
def swap_players(*, stage: Stage, first: Entry, second: Entry, actor: Any = None) -> None:
    """Exchange two players between groups before the stage starts."""
    stage = stage_for_update(stage.pk)
    if stage.status != Stage.Status.DRAWN:
        raise TournamentError("stage_started", _("Players can be swapped only before the stage starts."), 409)
    a = GroupMember.objects.get(group__stage=stage, entry=first)
    b = GroupMember.objects.get(group__stage=stage, entry=second)
    if a.group_id == b.group_id:
        raise TournamentError("same_group", _("Both players are in the same group."))
    for member, old, new in ((a, first, second), (b, second, first)):
        Match.objects.filter(group_id=member.group_id, first=old).update(first=new)
        Match.objects.filter(group_id=member.group_id, second=old).update(second=new)
    GroupMember.objects.filter(pk=a.pk).update(entry=second)
    GroupMember.objects.filter(pk=b.pk).update(entry=first)
    audit(stage.tournament, "swap", actor, stage=stage.pk, entries=[first.pk, second.pk])


@transaction.atomic
def start_stage(*, stage: Stage, actor: Any = None) -> Stage:
    """Start a drawn stage and call the first matches to the boards; idempotent."""
    stage = stage_for_update(stage.pk)
    if stage.status == Stage.Status.PENDING:
        raise TournamentError("not_drawn", _("Draw the stage before starting it."), 409)
    if stage.status == Stage.Status.DRAWN:
        stage.status = Stage.Status.RUNNING
        stage.save(update_fields=["status"])
        Tournament.objects.filter(pk=stage.tournament_id).exclude(status=Tournament.Status.FINISHED).update(
            status=Tournament.Status.RUNNING
        )
        audit(stage.tournament, "start_stage", actor, stage=stage.pk)
        call_matches(tournament=stage.tournament)
    return stage


@transaction.atomic
def pair_next_round(*, stage: Stage, actor: Any = None) -> list[Match]:
    """Pair the next round of a round-by-round stage, as its format decides from the results so far; the
    matches are then called to boards like any others. Refused for a format that made every pairing at the
    draw."""
    stage = stage_for_update(stage.pk)
    number = rounds.round_pair(stage=stage, actor=actor).number  # the draft, published at once: no review
    return rounds.round_publish(stage=stage, number=number, actor=actor)


@transaction.atomic
def record_colour_toss(*, match: Match, grabber: Entry, guess: str, count: int, actor: Any = None) -> Match:
    """猜先 at the table: ``grabber`` grabs ``count`` stones, the other guesses odd or even; right plays black.

    Recorded before the match's first game is created (the first game takes its colours from it);
    without a record, the colours are drawn by lot with a recorded seed.
    """
    match = Match.objects.select_for_update().get(pk=match.pk)
    if not match.best_of:
        raise TournamentError("no_toss", _("Colours in a group pairing are fixed: game 1 to the first-named."))
    if match.match_games.exists():
        raise TournamentError("toss_too_late", _("The first game has begun; its colours stand."), 409)
    if grabber.pk not in (match.first_id, match.second_id):
        raise TournamentError("not_in_match", _("The grabber must be one of the two players."))
    if guess not in ("odd", "even") or not 1 <= count <= 361:
        raise TournamentError("bad_toss", _("The guess is odd or even, and the count is between 1 and 361."))
    match.colour_toss = formats.toss_at_table(0 if grabber.pk == match.first_id else 1, count, guess)
    match.save(update_fields=["colour_toss"])
    audit(match.tournament, "colour_toss", actor, match=match.pk, **match.colour_toss)
    return match
