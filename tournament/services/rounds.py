"""One round lifecycle for every round-by-round format (Tabbycat's one draft status for every draw type):
pair → a stored draft (its boards, why, the program's own boards, edits with their warnings) → review and
edit → publish (the one writer of the round's matches) → unpair while nothing is played → the round closes
with its last match.

The format decides (:meth:`~tournament.stage_formats.StageFormat.plan_round`, ``edit_warnings``); these
functions write. A format with rounds of its own (``own_rounds``: the Swiss system's byes and late
entries, a team event's line-ups) runs the same cycle through its own package's services, on the same
:class:`~tournament.models.Round` rows, and takes back a round with :func:`take_back` as well."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.enums import GameStatus
from games.forfeits import game_cancel
from games.models import GameEvent
from tournament.errors import TournamentError
from tournament.models import Group, GroupMember, Match, MatchGame, Round, Stage
from tournament.round_plans import edit_record, edited
from tournament.services.common import audit, call_matches, stage_for_update
from tournament.stage_formats import StageFormat, format_of


def _generic(stage: Stage) -> StageFormat:
    """The stage's format, if it pairs round by round through this cycle."""
    fmt = format_of(stage)
    if not fmt.round_by_round:
        raise TournamentError("paired_at_draw", _("Every pairing of this stage was made at the draw."), 409)
    if fmt.own_rounds:
        raise TournamentError("own_rounds", _("This stage's rounds are paired on its own page."), 409)
    return fmt


def _round(stage: Stage, number: int) -> Round:
    found = Round.objects.select_for_update().filter(stage=stage, number=number).first()
    if found is None:
        raise TournamentError("no_round", _("Round %(n)s has not been paired.") % {"n": number}, 404)
    return found


def close_finished_rounds(stage: Stage, actor: Any, action: str = "round_close") -> None:
    """Close every published round whose matches have all finished."""
    # Each game's end asks this: the round's boards (a JSON list of every pair) are not read, and the open
    # matches are found by their status (the ``match_by_status`` index), not by walking the round's matches.
    for rnd in Round.objects.filter(stage=stage, status=Round.Status.PUBLISHED).only("pk", "number", "status"):
        open_matches = Match.objects.filter(
            group__stage=stage, round=rnd.number, status__in=[Match.Status.PENDING, Match.Status.CALLED]
        ).exists()
        if not open_matches:
            rnd.status, rnd.closed_at = Round.Status.CLOSED, timezone.now()
            rnd.save(update_fields=["status", "closed_at"])
            audit(stage.tournament, action, actor, stage=stage.pk, round=rnd.number)


def check_can_pair(stage: Stage, fmt: StageFormat) -> None:
    """Refuse to pair when the stage is not ready for its next round."""
    if stage.status != Stage.Status.RUNNING:
        raise TournamentError("not_running", _("The stage has not started."), 409)
    rounds = list(Round.objects.filter(stage=stage).order_by("number"))
    draft = next((r.number for r in rounds if r.status == Round.Status.DRAFT), None)
    if draft is not None:
        raise TournamentError(
            "draft_open", _("Round %(n)s is paired but not published: publish or unpair it first.") % {"n": draft}, 409
        )
    if (
        Match.objects.filter(group__stage=stage, group__parent=None)
        .exclude(status__in=[Match.Status.FINISHED, Match.Status.CANCELLED])
        .exists()
    ):
        raise TournamentError("round_unfinished", _("The current round still has games to finish."), 409)
    if fmt.planned_rounds(stage) and len(rounds) >= fmt.planned_rounds(stage):
        raise TournamentError("all_rounds_paired", _("Every round of this stage has been paired."), 409)


@transaction.atomic
def round_pair(*, stage: Stage, actor: Any = None) -> Round:
    """Pair the next round as a draft for the organizer to review (the previous round must be finished)."""
    stage = stage_for_update(stage.pk)
    fmt = _generic(stage)
    close_finished_rounds(stage, actor)
    check_can_pair(stage, fmt)
    plan = fmt.plan_round(stage)
    if not plan.boards:
        raise TournamentError("all_rounds_paired", _("Every round of this stage has been paired."), 409)
    number = max(Round.objects.filter(stage=stage).count(), _last_match_round(stage)) + 1
    rnd = Round.objects.create(
        stage=stage,
        number=number,
        engine=plan.engine,
        engine_boards=plan.boards,
        boards=plan.boards,
        why=plan.why,
        notes=plan.notes,
    )
    audit(stage.tournament, "round_pair", actor, stage=stage.pk, round=number, engine=plan.engine)
    return rnd


def _last_match_round(stage: Stage) -> int:
    """The last round with matches (a stage paired before rounds were kept as drafts has matches only)."""
    matches = Match.objects.filter(group__stage=stage, group__parent=None).exclude(status=Match.Status.CANCELLED)
    return max(matches.values_list("round", flat=True), default=0)


@transaction.atomic
def round_edit(
    *, stage: Stage, number: int, action: str, first: int, second: int | None = None, reason: str, actor: Any = None
) -> Round:
    """A manual change to a draft round: ``swap`` two players or ``flip`` the roles on ``first``'s board. A
    reason is required; the format's warnings (a rematch …) are kept with the edit, the program's pairing
    beside it."""
    stage = stage_for_update(stage.pk)
    fmt = _generic(stage)
    rnd = _round(stage, number)
    if rnd.status != Round.Status.DRAFT:
        raise TournamentError("round_published", _("Published pairings stand; unpair the round to change it."), 409)
    if not reason.strip():
        raise TournamentError("reason_required", _("Say why the pairing is changed."))
    rows = edited(rnd.boards, action, first, second)
    warnings = fmt.edit_warnings(stage, rows, rnd.engine_boards)
    rnd.boards = rows
    rnd.edits = [*rnd.edits, edit_record(actor, action, first, second, reason, warnings)]
    rnd.save(update_fields=["boards", "edits"])
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
    """Publish a draft: its matches are made in their groups and called to boards. Publishing twice changes
    nothing."""
    stage = stage_for_update(stage.pk)
    _generic(stage)
    rnd = _round(stage, number)
    if rnd.status != Round.Status.DRAFT:
        return list(Match.objects.filter(group__stage=stage, round=number).exclude(status=Match.Status.CANCELLED))
    groups = {
        m.entry_id: m.group
        for m in GroupMember.objects.filter(group__stage=stage, group__parent=None).select_related("group")
    }
    entries = [e for pair in rnd.boards for e in pair if e is not None]
    if any(e not in groups for e in entries):
        raise TournamentError("stale_pairing", _("A player in this pairing is no longer in the stage."), 409)
    withdrawn = set(stage.tournament.entries.filter(pk__in=entries, withdrawn=True).values_list("pk", flat=True))
    if withdrawn:
        raise TournamentError(
            "stale_pairing", _("A player in this pairing has withdrawn since: unpair and pair the round again."), 409
        )
    made = Match.objects.bulk_create(_matches(stage, number, rnd.boards, groups))
    rnd.status, rnd.published_at = Round.Status.PUBLISHED, timezone.now()
    rnd.save(update_fields=["status", "published_at"])
    audit(
        stage.tournament, "round_publish", actor, stage=stage.pk, round=number, edited=rnd.boards != rnd.engine_boards
    )
    call_matches(tournament=stage.tournament)
    return made


def _matches(stage: Stage, number: int, boards: list[list[int | None]], groups: dict[int, Group]) -> list[Match]:
    out = []
    for order, (first, second) in enumerate(boards):
        if first is None or second is None:
            continue  # a bye: no match (the format's standings count it)
        group = groups[first]
        if groups[second].pk != group.pk:
            raise TournamentError("two_groups", _("Two players of different groups cannot be paired."), 409)
        out.append(
            Match(
                tournament_id=stage.tournament_id,
                group=group,
                round=number,
                order=order,
                first_id=first,
                second_id=second,
                games_planned=group.games_per_pair,
            )
        )
    return out


@transaction.atomic
def round_unpair(*, stage: Stage, number: int, actor: Any = None) -> None:
    """Take the latest round's pairing back before it starts: a draft, or a published round none of whose
    games has begun (their boards are freed)."""
    stage = stage_for_update(stage.pk)
    _generic(stage)
    rnd = _round(stage, number)
    take_back(stage, rnd, actor)
    rnd.delete()
    audit(stage.tournament, "round_unpair", actor, stage=stage.pk, round=number)
    call_matches(tournament=stage.tournament)


def take_back(stage: Stage, rnd: Round, actor: Any) -> None:
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
