"""A Swiss stage's round cycle, one function per step, each inside a transaction and logged:
pair → (edit) → publish → play → close; unpair before the round starts; byes asked for, late entries,
returns after a withdrawal. Results are entered the same ways as in any stage (online, over the board,
reports, rulings, overrides); a correction after the next round was paired stands with a warning:
published pairings are not re-made (FIDE practice)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Player
from tournament.checkin import absent
from tournament.errors import TournamentError
from tournament.identity import check_may_enter
from tournament.models import CheckIn, Entry, GroupMember, Match, Round, Stage, SwissBye
from tournament.round_plans import edit_record, edited
from tournament.services import rounds
from tournament.services.common import audit, call_matches, record_tie_decision
from tournament.services.rounds import take_back
from tournament.swiss import explain, trf
from tournament.swiss.pairing import Board, PairingError, pairer, unit_prohibitions
from tournament.swiss.selectors import (
    SwissData,
    SwissOptions,
    check_options,
    initial_colour,
    load,
    standings,
    swiss_group,
)
from tournament.swiss.state import FIRST, SECOND, baku_group_a


def _stage(stage: Stage) -> Stage:
    stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
    if stage.kind != Stage.Kind.SWISS:
        raise TournamentError("not_swiss", _("This is not a Swiss stage."), 409)
    return stage


def _round(stage: Stage, number: int) -> Round:
    found = Round.objects.select_for_update().filter(stage=stage, number=number).first()
    if found is None:
        raise TournamentError("no_round", _("Round %(n)s has not been paired.") % {"n": number}, 404)
    return found


def close_finished_rounds(stage: Stage, actor: Any) -> None:
    """Close every published round whose matches have all finished."""
    rounds.close_finished_rounds(stage, actor, "swiss_close")


def _fix_once(stage: Stage, data: SwissData) -> None:
    """At the first pairing: the initial colour by lot (C.04.3 E.5) and Baku's group A, recorded."""
    options = data.options
    changed: dict[str, Any] = {}
    if not options.first_colour:
        changed["first_colour"] = initial_colour(stage.draw_seed)  # drawn before the draw recorded it
    if options.accelerate and not options.group_a:
        ga = baku_group_a(sorted(data.entry))
        changed["group_a"] = sorted(data.entry[n] for n in ga)
    if changed:
        stage.options = {**stage.options, **changed}
        stage.save(update_fields=["options"])


def _entries(data: SwissData, boards: list[Board]) -> list[list[int | None]]:
    return [[data.entry[b.first], None if b.second is None else data.entry[b.second]] for b in boards]


def _boards(data: SwissData, rows: list[list[int | None]]) -> list[Board]:
    return [Board(data.number[int(a)], None if b is None else data.number[int(b)]) for a, b in rows if a is not None]


@dataclass
class _Prepared:
    number: int
    fingerprint: str
    engine: str
    rows: list[list[int | None]]
    why: list[dict[str, Any]]
    notes: list[str]


def check_can_pair(stage: Stage) -> None:
    """Refuse to pair when the stage is not ready for its next round."""
    if stage.kind != Stage.Kind.SWISS:
        raise TournamentError("not_swiss", _("This is not a Swiss stage."), 409)
    if stage.status != Stage.Status.RUNNING:
        raise TournamentError("not_running", _("The stage has not started."), 409)
    rounds = list(Round.objects.filter(stage=stage).order_by("number"))
    draft = next((r.number for r in rounds if r.status == Round.Status.DRAFT), None)
    if draft is not None:
        raise TournamentError(
            "draft_open", _("Round %(n)s is paired but not published: publish or unpair it first.") % {"n": draft}, 409
        )
    if any(r.status == Round.Status.PUBLISHED for r in rounds):
        raise TournamentError("round_unfinished", _("The current round still has games to finish."), 409)
    if len(rounds) >= SwissOptions.of(stage).rounds:
        raise TournamentError("all_rounds_paired", _("Every round of this stage has been paired."), 409)


def _fingerprint(data: SwissData) -> str:
    """Everything the pairing depends on: the state as TRF, and who belongs to which unit."""
    units = sorted((n, data.info[e]["unit"]) for n, e in data.entry.items())
    return hashlib.sha256((trf.write(data.state) + repr(units)).encode()).hexdigest()


def _prepare(stage: Stage, isolated: bool) -> _Prepared:
    """The slow part, outside any lock: read the state (the stage's settings as stored now), pair it,
    explain it."""
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    data = load(stage)
    state = data.state
    fingerprint = _fingerprint(data)
    notes: list[str] = []
    explicit = set(state.forbidden)
    if state.next_round <= data.options.unit_rounds:
        state.forbidden = explicit | unit_prohibitions((n, data.info[e]["unit"]) for n, e in data.entry.items())
    engine = pairer(state.rules, isolated=isolated)
    impossible = TournamentError(
        "cannot_pair",
        _("This round cannot be paired: every possible pairing would repeat a game or join a prohibited pair."),
        409,
    )
    try:
        boards = engine.pair(state)
    except PairingError:
        if state.forbidden == explicit:
            raise impossible from None
        state.forbidden = explicit  # players of one unit would have to meet: the unit rule gives way, noted
        notes.append("unit_rule_relaxed")
        try:
            boards = engine.pair(state)
        except PairingError:
            raise impossible from None
    return _Prepared(
        state.next_round, fingerprint, engine.name, _entries(data, boards), explain.explain(state, boards), notes
    )


def swiss_pair(*, stage: Stage, actor: Any = None, isolated: bool = False) -> Round:
    """Pair the next round as a draft for the organizer to review (the previous round must be finished).

    The pairing program runs outside any transaction, so a large field never holds the database while it
    thinks; the draft is written only if nothing it depends on changed meanwhile (otherwise it pairs
    again). ``isolated``: the program runs in a child process (for the Celery task)."""
    with transaction.atomic():
        locked = _stage(stage)
        close_finished_rounds(locked, actor)
        check_can_pair(locked)
        _mark_absent(locked, actor)
        _fix_once(locked, load(locked))
    for _attempt in range(3):
        prepared = _prepare(stage, isolated)
        with transaction.atomic():
            locked = _stage(stage)
            check_can_pair(locked)
            if _fingerprint(load(locked)) != prepared.fingerprint:
                continue  # a result, a bye or an entry changed while the program was pairing
            rnd = Round.objects.create(
                stage=locked,
                number=prepared.number,
                engine=prepared.engine,
                engine_boards=prepared.rows,
                boards=prepared.rows,
                why=prepared.why,
                notes=prepared.notes,
            )
            audit(
                locked.tournament,
                "swiss_pair",
                actor,
                stage=locked.pk,
                round=rnd.number,
                engine=prepared.engine,
                notes=prepared.notes,
            )
            return rnd
    raise TournamentError("busy", _("The results kept changing while the round was being paired; try again."), 409)


def _mark_absent(stage: Stage, actor: Any) -> None:
    """With check-in before each round, a player not checked in for the round to pair gets a zero-point
    bye for it (``absent``) instead of a board; a bye already asked for stands."""
    tournament = stage.tournament
    if tournament.check_in != CheckIn.EACH_ROUND:
        return
    number = _paired_rounds(stage) + 1
    members = Entry.objects.filter(groupmember__group__stage=stage).distinct()
    taken = set(SwissBye.objects.filter(stage=stage, round=number).values_list("entry_id", flat=True))
    missing = [e for e in absent(members, number) if e.pk not in taken]
    SwissBye.objects.bulk_create(
        [SwissBye(stage=stage, round=number, entry=e, kind=SwissBye.Kind.ZERO, absent=True) for e in missing]
    )
    if missing:
        audit(tournament, "absent_at_check_in", actor, stage=stage.pk, round=number, entries=[e.pk for e in missing])


def edit_warnings(
    data: SwissData, rows: list[list[int | None]], engine_rows: list[list[int | None]]
) -> list[dict[str, Any]]:
    """What a manual pairing breaks: rematches, prohibited pairs, the colour rules, score-group jumps, a
    second bye."""
    state = data.state
    numbers = state.by_number()
    forbidden = set(state.forbidden)
    if state.next_round <= data.options.unit_rounds:
        forbidden |= unit_prohibitions((n, data.info[e]["unit"]) for n, e in data.entry.items())
    engine_pairs = {frozenset(x for x in pair if x is not None) for pair in engine_rows}
    warnings: list[dict[str, Any]] = []
    for first, second in rows:
        if first is None:
            continue
        a = numbers[data.number[first]]
        if second is None:
            if a.had_bye():
                warnings.append({"code": "second_bye", "entries": [first]})
            continue
        b = numbers[data.number[second]]
        if any(r.opponent == b.number and r.paired for r in a.rounds):
            warnings.append({"code": "rematch", "entries": [first, second]})
        if (min(a.number, b.number), max(a.number, b.number)) in forbidden:
            warnings.append({"code": "prohibited", "entries": [first, second]})
        for player, role in ((a, FIRST), (b, SECOND)):
            colours = player.colours() + [role]
            diff = colours.count(FIRST) - colours.count(SECOND)
            last_round = state.next_round == state.total_rounds
            if colours[-3:] == [role] * 3 or (abs(diff) > 2 and not last_round):
                warnings.append({"code": "colour", "entries": [data.entry[player.number]], "role": role})
        gap = abs(state.pairing_score(a) - state.pairing_score(b))
        if gap and frozenset((first, second)) not in engine_pairs:
            warnings.append({"code": "score_jump", "entries": [first, second], "gap": gap / 10})
    return warnings


@transaction.atomic
def swiss_edit(
    *, stage: Stage, number: int, action: str, first: int, second: int | None = None, reason: str, actor: Any = None
) -> Round:
    """A manual change to a draft round: ``swap`` two players (on different boards, or one with the bye) or
    ``flip`` the roles on ``first``'s board. A reason is required; the program's pairing is kept beside it."""
    stage = _stage(stage)
    rnd = _round(stage, number)
    if rnd.status != Round.Status.DRAFT:
        raise TournamentError("round_published", _("Published pairings stand; unpair the round to change it."), 409)
    if not reason.strip():
        raise TournamentError("reason_required", _("Say why the pairing is changed."))
    rows = edited(rnd.boards, action, first, second)
    data = load(stage)
    warnings = edit_warnings(data, rows, rnd.engine_boards)
    boards = _boards(data, rows)
    rnd.boards = rows
    rnd.why = explain.explain(data.state, boards)
    rnd.edits = [*rnd.edits, edit_record(actor, action, first, second, reason, warnings)]
    rnd.save(update_fields=["boards", "why", "edits"])
    audit(
        stage.tournament,
        "swiss_edit",
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
def swiss_publish(*, stage: Stage, number: int, actor: Any = None) -> list[Match]:
    """Publish a draft: its matches are made and called to boards, the bye recorded."""
    stage = _stage(stage)
    rnd = _round(stage, number)
    if rnd.status != Round.Status.DRAFT:
        return list(Match.objects.filter(group__stage=stage, round=number).exclude(status=Match.Status.CANCELLED))
    withdrawn = set(
        Entry.objects.filter(pk__in=[e for pair in rnd.boards for e in pair if e], withdrawn=True).values_list(
            "pk", flat=True
        )
    )
    if withdrawn:
        raise TournamentError(
            "stale_pairing", _("A player in this pairing has withdrawn since: unpair and pair the round again."), 409
        )
    options = SwissOptions.of(stage)
    group = swiss_group(stage)
    assert group is not None
    matches = []
    for order, (first, second) in enumerate(rnd.boards):
        if second is None:
            SwissBye.objects.create(stage=stage, round=number, entry_id=first, kind=SwissBye.Kind.PAIRING)
            continue
        matches.append(
            Match(
                tournament_id=stage.tournament_id,
                group=group,
                round=number,
                order=order,
                first_id=first,
                second_id=second,
                games_planned=options.games,
                best_of=options.games == 3,
                # the pairing gives the first game's roles; a best of three alternates from there
                colour_toss={"black": 0, "by": "pairing"} if options.games == 3 else {},
            )
        )
    made = Match.objects.bulk_create(matches)
    rnd.status, rnd.published_at = Round.Status.PUBLISHED, timezone.now()
    rnd.save(update_fields=["status", "published_at"])
    audit(
        stage.tournament, "swiss_publish", actor, stage=stage.pk, round=number, edited=rnd.boards != rnd.engine_boards
    )
    call_matches(tournament=stage.tournament)
    return made


@transaction.atomic
def swiss_unpair(*, stage: Stage, number: int, actor: Any = None) -> None:
    """Take a round's pairing back before it starts: a draft, or a published round none of whose games
    has begun (their boards are freed)."""
    stage = _stage(stage)
    rnd = _round(stage, number)
    take_back(stage, rnd, actor)
    SwissBye.objects.filter(Q(kind=SwissBye.Kind.PAIRING) | Q(absent=True), stage=stage, round=number).delete()
    rnd.delete()
    audit(stage.tournament, "swiss_unpair", actor, stage=stage.pk, round=number)
    call_matches(tournament=stage.tournament)


def _paired_rounds(stage: Stage) -> int:
    return Round.objects.filter(stage=stage).count()


@transaction.atomic
def swiss_request_bye(*, stage: Stage, entry: Entry, number: int, kind: str = "H", actor: Any = None) -> SwissBye:
    """A bye the player asks for, for a round not yet paired: half a point (H) or none (Z), at most the
    stage's limit, never in its last rounds."""
    stage = _stage(stage)
    options = SwissOptions.of(stage)
    if kind not in (SwissBye.Kind.HALF, SwissBye.Kind.ZERO):
        raise TournamentError("bad_bye", _("A requested bye is a half-point (H) or a zero-point (Z) bye."))
    if not GroupMember.objects.filter(group__stage=stage, entry=entry).exists():
        raise TournamentError("not_in_stage", _("That player is not in this stage."), 404)
    if number <= _paired_rounds(stage) or number > options.rounds:
        raise TournamentError("round_paired", _("Byes can be asked only for rounds not yet paired."), 409)
    if number > options.rounds - options.no_byes_last:
        raise TournamentError(
            "bye_too_late", _("No byes can be asked for in the last %(n)s rounds.") % {"n": options.no_byes_last}
        )
    taken = SwissBye.objects.filter(stage=stage, entry=entry, requested=True).exclude(round=number).count()
    if taken >= options.max_requested_byes:
        raise TournamentError(
            "too_many_byes", _("A player may ask for at most %(n)s byes.") % {"n": options.max_requested_byes}
        )
    bye, _created = SwissBye.objects.update_or_create(
        stage=stage, round=number, entry=entry, defaults={"kind": kind, "requested": True, "late": False}
    )
    audit(stage.tournament, "swiss_bye", actor, stage=stage.pk, round=number, entry=entry.pk, kind=kind)
    return bye


@transaction.atomic
def swiss_cancel_bye(*, stage: Stage, entry: Entry, number: int, actor: Any = None) -> None:
    stage = _stage(stage)
    if number <= _paired_rounds(stage):
        raise TournamentError("round_paired", _("That round is paired; its byes stand."), 409)
    SwissBye.objects.filter(stage=stage, round=number, entry=entry, requested=True).delete()
    audit(stage.tournament, "swiss_bye_cancelled", actor, stage=stage.pk, round=number, entry=entry.pk)


@transaction.atomic
def swiss_late_entry(*, stage: Stage, player: Player, actor: Any = None) -> Entry:
    """A player who joins a Swiss stage already under way: paired from the next round; the rounds missed
    score as the stage says (zero, or half a point each)."""
    stage = _stage(stage)
    if stage.status not in (Stage.Status.DRAWN, Stage.Status.RUNNING):
        raise TournamentError("not_running", _("The stage has not been drawn or has finished."), 409)
    if Round.objects.filter(stage=stage, status=Round.Status.DRAFT).exists():
        raise TournamentError("draft_open", _("A round is paired but not published: publish or unpair it first."), 409)
    group = swiss_group(stage)
    assert group is not None
    entry = Entry.objects.filter(tournament=stage.tournament, player=player).first()
    if entry is None:
        check_may_enter(actor, player)
        entry = Entry.objects.create(tournament=stage.tournament, player=player)
    if GroupMember.objects.filter(group=group, entry=entry).exists():
        return entry
    position = GroupMember.objects.filter(group=group).count()
    GroupMember.objects.create(group=group, entry=entry, position=position)
    missed = _paired_rounds(stage)
    kind = SwissBye.Kind.HALF if SwissOptions.of(stage).late_score == "half" else SwissBye.Kind.ZERO
    SwissBye.objects.bulk_create(
        SwissBye(stage=stage, round=r, entry=entry, kind=kind, late=True) for r in range(1, missed + 1)
    )
    audit(stage.tournament, "swiss_late_entry", actor, stage=stage.pk, entry=entry.pk, missed=missed, kind=kind)
    return entry


@transaction.atomic
def swiss_return(*, stage: Stage, entry: Entry, actor: Any = None) -> Entry:
    """A withdrawn player comes back: paired again from the next round; the rounds missed stay lost."""
    stage = _stage(stage)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if not entry.withdrawn:
        return entry
    entry.withdrawn = False
    entry.withdrawn_stage = None
    entry.withdrawal = {**entry.withdrawal, "returned_for_round": _paired_rounds(stage) + 1}
    entry.save(update_fields=["withdrawn", "withdrawn_stage", "withdrawal"])
    audit(stage.tournament, "swiss_return", actor, stage=stage.pk, entry=entry.pk)
    return entry


def swiss_round_corrected(match: Match, actor: Any) -> None:
    """A result changed after a later round was paired: the published pairings stand (FIDE practice);
    the change is logged so the round page can say so."""
    later = Round.objects.filter(stage_id=match.group.stage_id, number__gt=match.round).exists()
    if later:
        audit(
            match.tournament,
            "swiss_correction_after_pairing",
            actor,
            match=match.pk,
            round=match.round,
            stage=match.group.stage_id,
        )


LATER = {"prohibited", "unit_rounds", "max_requested_byes", "no_byes_last"}  # may change after round 1 is paired


@transaction.atomic
def swiss_configure(*, stage: Stage, options: dict[str, Any], actor: Any = None) -> Stage:
    """Change a Swiss stage's settings: any of them until the first round is paired; afterwards only the
    prohibited pairs, the unit rule and the limits on requested byes (the rest would change the event's
    rules mid-way)."""
    stage = _stage(stage)
    if stage.status == Stage.Status.FINISHED:
        raise TournamentError("stage_finished", _("The stage has finished."), 409)
    checked = check_options(options)
    if Round.objects.filter(stage=stage).exists() and set(checked) - LATER:
        raise TournamentError(
            "options_fixed",
            _("Once a round is paired only the prohibited pairs, the unit rule and the bye limits can change."),
            409,
        )
    stage.options = {**stage.options, **checked}
    stage.save(update_fields=["options"])
    group = swiss_group(stage)
    if group is not None and {"advance", "then", "games"} & set(checked):
        o = SwissOptions.of(stage)
        group.advance = min(o.advance, group.memberships.count()) if o.then else 0
        group.games_per_pair = o.games
        group.save(update_fields=["advance", "games_per_pair"])
    audit(stage.tournament, "swiss_configure", actor, stage=stage.pk, options=checked)
    return stage


@transaction.atomic
def swiss_extra_game(*, stage: Stage, order: list[int], actor: Any = None) -> Stage:
    """The extra game that settles a complete tie where the stage needs a precise place (``complete_tie``
    "extra_game", or "share" with ``precise_places``): ``order`` the tied entries, the winner first."""
    options = SwissOptions.of(stage)
    if options.complete_tie != "extra_game" and not options.precise_places:
        raise TournamentError(
            "no_extra_game", _("In this stage players level on everything are not placed by an extra game."), 409
        )
    return record_tie_decision(
        stage=stage, order=order, waiting=_waiting_players, action="swiss_extra_game", actor=actor
    )


def _waiting_players(stage: Stage) -> list[list[int]]:
    """The blocks of entries the Swiss standings leave waiting for an extra game."""
    waiting: dict[int, list[int]] = {}
    for row in standings(stage)["rows"]:
        if row["decided_by"] == "extra_game_due":
            waiting.setdefault(row["rank"], []).append(row["entry"])
    return list(waiting.values())
