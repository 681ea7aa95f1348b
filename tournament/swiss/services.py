"""A Swiss stage's own parts of the one round lifecycle (tournament.services.rounds calls them through the
format: its plan by the pairing program, outside any lock; the first colour and the absences fixed before
it; the warnings and reasons of an edited draft; the byes written with a published round and taken back
with it), and its own services, each inside a transaction and logged: byes asked for, late entries, returns
after a withdrawal, settings, the extra game. Results are entered the same ways as in any stage; a
correction after the next round was paired stands with a warning: published pairings are not re-made (FIDE
practice)."""

from __future__ import annotations

import hashlib
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.models import Player
from tournament.checkin import absent
from tournament.errors import TournamentError
from tournament.identity import check_may_enter
from tournament.models import CheckIn, Entry, GroupMember, Match, Round, Stage, SwissBye
from tournament.round_plans import RoundPlan
from tournament.services.common import audit, record_tie_decision
from tournament.stage_formats import check_not_withdrawn, round_match
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
    unit_rule_applies,
)
from tournament.swiss.state import FIRST, SECOND, baku_group_a


def _stage(stage: Stage) -> Stage:
    stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
    if stage.kind != Stage.Kind.SWISS:
        raise TournamentError("not_swiss", _("This is not a Swiss stage."), 409)
    return stage


def fix_once(stage: Stage) -> None:
    """At the first pairing: the initial colour by lot (C.04.3 E.5) and Baku's group A, recorded."""
    data = load(stage)
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


def fingerprint(data: SwissData) -> str:
    """Everything the pairing depends on: the state as TRF, and who belongs to which unit."""
    units = sorted((n, data.info[e]["unit"]) for n, e in data.entry.items())
    return hashlib.sha256((trf.write(data.state) + repr(units)).encode()).hexdigest()


def plan(stage: Stage, isolated: bool) -> RoundPlan:
    """The next round as the pairing program makes it, outside any lock (the stage's settings as stored
    now), explained; with the fingerprint of what it was made from."""
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    data = load(stage)
    state = data.state
    made_from = fingerprint(data)
    notes: list[str] = []
    explicit = set(state.forbidden)
    if unit_rule_applies(data.options, state.next_round, state.total_rounds):
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
    return RoundPlan(
        _entries(data, boards),
        engine=engine.name,
        why=explain.explain(state, boards),
        notes=notes,
        number=state.next_round,
        fingerprint=made_from,
    )


def mark_absent(stage: Stage, actor: Any) -> None:
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
    if unit_rule_applies(data.options, state.next_round, state.total_rounds):
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


def why_edited(stage: Stage, rows: list[list[int | None]]) -> list[dict[str, Any]]:
    """Why each board of an edited draft is paired so, explained again."""
    data = load(stage)
    return explain.explain(data.state, _boards(data, rows))


def publish(stage: Stage, number: int, rows: list[list[int | None]]) -> list[Match]:
    """A published round's matches and its pairing-allocated bye (a best of three's first game has the
    pairing's roles)."""
    check_not_withdrawn(stage, [e for pair in rows for e in pair if e])
    options = SwissOptions.of(stage)
    group = swiss_group(stage)
    assert group is not None
    matches = []
    for order, (first, second) in enumerate(rows):
        if first is None:
            continue
        if second is None:
            SwissBye.objects.create(stage=stage, round=number, entry_id=first, kind=SwissBye.Kind.PAIRING)
            continue
        matches.append(
            round_match(
                stage,
                group,
                number,
                order,
                (first, second),
                options.games,
                best_of=options.games == 3,
                # the pairing gives the first game's roles; a best of three alternates from there
                colour_toss={"black": 0, "by": "pairing"} if options.games == 3 else {},
            )
        )
    return Match.objects.bulk_create(matches)


def taken_back(stage: Stage, number: int) -> None:
    """An unpaired round's pairing bye and its byes for absence go with it."""
    SwissBye.objects.filter(Q(kind=SwissBye.Kind.PAIRING) | Q(absent=True), stage=stage, round=number).delete()


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


LATER = {
    "prohibited",
    "unit_rounds",
    "unit_last_rounds",
    "max_requested_byes",
    "no_byes_last",
}  # may change after round 1 is paired


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
