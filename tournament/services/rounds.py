"""The one round lifecycle of every round-by-round format (Tabbycat's one draft status for every draw type):
pair → a stored draft (its boards, why, the program's own boards, edits with their warnings) → review and
edit → publish (the one writer of the round's matches) → unpair while nothing is played → the round closes
with its last match.

The format decides (:class:`~tournament.stage_formats.StageFormat`: ``before_pairing``, ``plan_round``,
``edit_warnings``, ``why_edited``, ``publish_round``, ``round_taken_back``, ``round_open``,
``round_finished``); these functions lock, check, write and log. The Swiss system's byes and a team event's
team matches are written by their format's ``publish_round`` inside the same transaction."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.enums import GameStatus
from games.forfeits import game_cancel
from games.models import GameEvent
from tournament.errors import TournamentError
from tournament.models import Match, MatchGame, Round, Stage
from tournament.round_plans import RoundPlan, edit_record, edited
from tournament.services.common import audit, call_matches, stage_for_update
from tournament.stage_formats import StageFormat, format_of


def round_format(stage: Stage) -> StageFormat:
    """The stage's format, if it pairs round by round."""
    fmt = format_of(stage)
    if not fmt.round_by_round:
        raise TournamentError("paired_at_draw", _("Every pairing of this stage was made at the draw."), 409)
    return fmt


def _round(stage: Stage, number: int) -> Round:
    found = Round.objects.select_for_update().filter(stage=stage, number=number).first()
    if found is None:
        raise TournamentError("no_round", _("Round %(n)s has not been paired.") % {"n": number}, 404)
    return found


def close_finished_rounds(stage: Stage, actor: Any) -> None:
    """Close every published round that is over (each game's end asks this: the open matches are found by
    their status, the ``match_by_status`` index, not by walking the round's boards)."""
    fmt = format_of(stage)
    for rnd in Round.objects.filter(stage=stage, status=Round.Status.PUBLISHED).only("pk", "number", "status"):
        if fmt.round_finished(stage, rnd.number):
            rnd.status, rnd.closed_at = Round.Status.CLOSED, timezone.now()
            rnd.save(update_fields=["status", "closed_at"])
            audit(stage.tournament, "round_close", actor, stage=stage.pk, round=rnd.number)


def check_can_pair(stage: Stage) -> None:
    """Refuse to pair when the stage is not ready for its next round."""
    fmt = round_format(stage)
    if stage.status != Stage.Status.RUNNING:
        raise TournamentError("not_running", _("The stage has not started."), 409)
    rounds = list(Round.objects.filter(stage=stage).order_by("number"))
    draft = next((r.number for r in rounds if r.status == Round.Status.DRAFT), None)
    if draft is not None:
        raise TournamentError(
            "draft_open", _("Round %(n)s is paired but not published: publish or unpair it first.") % {"n": draft}, 409
        )
    if any(r.status == Round.Status.PUBLISHED for r in rounds) or fmt.round_open(stage):
        raise TournamentError("round_unfinished", _("The current round still has games to finish."), 409)
    planned = fmt.planned_rounds(stage)
    if planned and len(rounds) >= planned:
        raise TournamentError("all_rounds_paired", _("Every round of this stage has been paired."), 409)


def round_pair(*, stage: Stage, actor: Any = None, isolated: bool = False) -> Round:
    """Pair the next round as a draft for the organizer to review (the previous round must be finished).

    A format whose pairing program is slow (``pairs_outside_lock``) plans outside any transaction, so a large
    field never holds the database while it thinks; its draft is written only if nothing the plan depends on
    changed meanwhile (otherwise it plans again). ``isolated``: the program runs in a child process (the
    background task)."""
    with transaction.atomic():
        locked = stage_for_update(stage.pk)
        fmt = round_format(locked)
        close_finished_rounds(locked, actor)
        check_can_pair(locked)
        fmt.before_pairing(locked, actor)
    for _attempt in range(3):
        early = fmt.plan_round(stage, isolated) if fmt.pairs_outside_lock else None
        with transaction.atomic():
            locked = stage_for_update(stage.pk)
            check_can_pair(locked)
            if early is not None and fmt.plan_fingerprint(locked) != early.fingerprint:
                continue  # a result, a bye or an entry changed while the program was pairing
            plan = early or fmt.plan_round(locked, isolated)
            return _write_draft(locked, plan, actor)
    raise TournamentError("busy", _("The results kept changing while the round was being paired; try again."), 409)


def _write_draft(stage: Stage, plan: RoundPlan, actor: Any) -> Round:
    if not plan.boards:
        raise TournamentError("all_rounds_paired", _("Every round of this stage has been paired."), 409)
    number = plan.number or max(Round.objects.filter(stage=stage).count(), _last_match_round(stage)) + 1
    rnd = Round.objects.create(
        stage=stage,
        number=number,
        engine=plan.engine,
        engine_boards=plan.boards,
        boards=plan.boards,
        why=plan.why,
        notes=plan.notes,
    )
    audit(stage.tournament, "round_pair", actor, stage=stage.pk, round=number, engine=plan.engine, notes=plan.notes)
    return rnd


def _last_match_round(stage: Stage) -> int:
    """The last round with matches (a stage paired before rounds were kept as drafts has matches only)."""
    matches = Match.objects.filter(group__stage=stage, group__parent=None).exclude(status=Match.Status.CANCELLED)
    return max(matches.values_list("round", flat=True), default=0)


@transaction.atomic
def round_edit(
    *, stage: Stage, number: int, action: str, first: int, second: int | None = None, reason: str, actor: Any = None
) -> Round:
    """A manual change to a draft round: ``swap`` two competitors (on different boards, or one with the bye)
    or ``flip`` the roles on ``first``'s board. A reason is required; the format's warnings (a rematch, the
    colour rules …) are kept with the edit, the program's pairing beside it."""
    stage = stage_for_update(stage.pk)
    fmt = round_format(stage)
    rnd = _round(stage, number)
    if rnd.status != Round.Status.DRAFT:
        raise TournamentError("round_published", _("Published pairings stand; unpair the round to change it."), 409)
    if not reason.strip():
        raise TournamentError("reason_required", _("Say why the pairing is changed."))
    rows = edited(rnd.boards, action, first, second)
    warnings = fmt.edit_warnings(stage, rows, rnd.engine_boards)
    rnd.boards = rows
    rnd.why = fmt.why_edited(stage, rows, rnd.why)
    rnd.edits = [*rnd.edits, edit_record(actor, action, first, second, reason, warnings)]
    rnd.save(update_fields=["boards", "why", "edits"])
    audit(
        stage.tournament,
        "round_edit",
        actor,
        stage=stage.pk,
        round=number,
        change=action,
        entries=[first, second],
        reason=reason[:500],
        warnings=warnings,
    )
    return rnd


@transaction.atomic
def round_publish(*, stage: Stage, number: int, actor: Any = None) -> list[Match]:
    """Publish a draft: the format writes its matches (and its byes, or its team matches), called to boards.
    Publishing twice changes nothing."""
    stage = stage_for_update(stage.pk)
    fmt = round_format(stage)
    rnd = _round(stage, number)
    if rnd.status != Round.Status.DRAFT:
        return list(Match.objects.filter(group__stage=stage, round=number).exclude(status=Match.Status.CANCELLED))
    made = fmt.publish_round(stage, number, rnd.boards, actor)
    rnd.status, rnd.published_at = Round.Status.PUBLISHED, timezone.now()
    rnd.save(update_fields=["status", "published_at"])
    audit(
        stage.tournament, "round_publish", actor, stage=stage.pk, round=number, edited=rnd.boards != rnd.engine_boards
    )
    call_matches(tournament=stage.tournament)
    return made


@transaction.atomic
def round_unpair(*, stage: Stage, number: int, actor: Any = None) -> None:
    """Take the latest round's pairing back before it starts: a draft, or a published round none of whose
    games has begun (their boards are freed; what the format wrote for it is taken back too)."""
    stage = stage_for_update(stage.pk)
    fmt = round_format(stage)
    rnd = _round(stage, number)
    _take_back(stage, rnd, actor)
    fmt.round_taken_back(stage, number)
    rnd.delete()
    audit(stage.tournament, "round_unpair", actor, stage=stage.pk, round=number)
    call_matches(tournament=stage.tournament)


@transaction.atomic
def close_lineups(*, stage: Stage, actor: Any = None) -> int:
    """Close the current round's lineups now (a team event): how many team matches got their boards."""
    stage = stage_for_update(stage.pk)
    made = round_format(stage).close_lineups(stage, actor)
    audit(stage.tournament, "lineups_closed", actor, stage=stage.pk, matches=made)
    return made


def _take_back(stage: Stage, rnd: Round, actor: Any) -> None:
    """Cancel a round's matches and their games, refused once the round is closed, a later one is paired, or
    one of its games has begun (a stone or a protocol step played)."""
    later = Round.objects.filter(stage=stage, number__gt=rnd.number).exists()
    if later or rnd.status == Round.Status.CLOSED:
        raise TournamentError("round_started", _("Only the latest round can be unpaired, before it starts."), 409)
    matches = list(Match.objects.filter(group__stage=stage, round=rnd.number).exclude(status=Match.Status.CANCELLED))
    links = MatchGame.objects.filter(match__in=matches).select_related("game")
    if any(
        link.game.status == GameStatus.FINISHED
        or link.game.ply > 0
        or link.game.events.exclude(kind=GameEvent.Kind.CREATED).exists()
        for link in links
    ):
        raise TournamentError("round_started", _("A game of this round has begun; its pairings stand."), 409)
    for link in links:
        if link.game.status != GameStatus.CANCELLED:
            game_cancel(game_id=link.game_id, note=_("The round was unpaired."), actor=actor)
    Match.objects.filter(pk__in=[m.pk for m in matches]).update(status=Match.Status.CANCELLED, board=None)
