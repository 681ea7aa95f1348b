"""Reads of a Swiss stage: the state the pairing program and the tie-breaks work on, built from the
matches and byes in a constant number of queries; the standings, the rounds and the crosstable the
pages and the API show."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from games.enums import UNPLAYED_REASONS, GameResult, GameStatus
from tournament.errors import TournamentError
from tournament.models import (
    Entry,
    Group,
    GroupMember,
    Match,
    MatchGame,
    Round,
    Stage,
    SwissBye,
    Tournament,
    shown_edits,
    shown_rounds,
)
from tournament.ranking import COMPLETE_TIES, CompleteTie
from tournament.standings import Order
from tournament.swiss import tiebreaks
from tournament.swiss.state import (
    FIRST,
    RULES,
    RULES_2017,
    RULES_2026,
    SECOND,
    PointSystem,
    RoundRecord,
    SwissPlayer,
    SwissState,
    baku_accelerations,
    baku_group_a,
    pairing_numbers,
)
from tournament.tiebreaks import TIEBREAKS

PAB_POINTS = {"win": 10, "draw": 5, "loss": 0}


def unit_rule_applies(options: SwissOptions, number: int, total: int) -> bool:
    """Whether round ``number`` of ``total`` keeps players of one unit apart (its first or last rounds)."""
    return number <= options.unit_rounds or number > total - options.unit_last_rounds


@dataclass(frozen=True)
class SwissOptions:
    """A Swiss stage's settings (``Stage.options``), with FIDE's usual defaults."""

    rounds: int = 7
    games: int = 1  # 1 game per round; 2: a mini-match, colours swapped; 3: best of three
    accelerate: bool = False  # Baku acceleration (FIDE C.04.5.1)
    unit_rounds: int = 0  # players of one unit are not paired together in the first K rounds
    unit_last_rounds: int = 0  # nor in the last K rounds (the World Championship's country rule)
    prohibited: tuple[tuple[int, int], ...] = ()  # entry pairs never paired
    pab: str = "win"  # points of the pairing-allocated bye: win, draw or loss
    late_score: str = "zero"  # rounds missed before a late entry: zero or half
    max_requested_byes: int = 1
    no_byes_last: int = 2  # no requested bye in the last N rounds
    tiebreaks: tuple[str, ...] = tuple(tiebreaks.DEFAULT_ORDER)
    advance: int = 0  # top K go on to the next stage; 0: the tournament ends with this stage
    then: str = ""  # the next stage's kind: knockout or round_robin
    first_colour: str = ""  # drawn by lot at the first pairing: w or b (the top seed's role in round 1)
    group_a: tuple[int, ...] = ()  # Baku GA, fixed at the first pairing (entry ids)
    rules: str = RULES_2026  # the text of FIDE's Dutch system that pairs the stage (state.RULES)
    complete_tie: str = "lot"  # players level on everything: a recorded lot, a shared place, or an extra game
    precise_places: tuple[int, ...] = ()  # with "share": the places an extra game decides (the medals: 1, 2, 3)
    tie_decisions: tuple[tuple[int, ...], ...] = ()  # extra games recorded: tied entries, the winner first
    # (entry, pairing number) kept from an imported TRF file: the file's numbers, not our rating order
    pairing_numbers: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, stage: Stage) -> SwissOptions:
        o = stage.options or {}
        fields = {k: o[k] for k in cls.__dataclass_fields__ if k in o}
        for key in ("prohibited",):
            if key in fields:
                fields[key] = tuple(tuple(sorted(int(x) for x in pair)) for pair in fields[key])
        if "pairing_numbers" in fields:
            fields["pairing_numbers"] = tuple((int(e), int(n)) for e, n in fields["pairing_numbers"])
        for key in ("tiebreaks", "group_a", "precise_places"):
            if key in fields:
                fields[key] = tuple(fields[key])
        if "tie_decisions" in fields:
            fields["tie_decisions"] = tuple(tuple(int(e) for e in d) for d in fields["tie_decisions"])
        return cls(**fields)

    @property
    def points(self) -> PointSystem:
        return PointSystem(pab=PAB_POINTS.get(self.pab, 10))

    @property
    def rules_label(self) -> str:
        if self.rules == RULES_2017:
            return str(_("FIDE Dutch system, the rules in force until January 2026"))
        return str(_("FIDE Dutch system, the 2026 rules"))


def swiss_group(stage: Stage) -> Group | None:
    return stage.groups.filter(kind=Group.Kind.SWISS, parent=None).first()


@dataclass
class SwissData:
    stage: Stage
    options: SwissOptions
    state: SwissState
    number: dict[int, int]  # entry -> pairing number
    entry: dict[int, int]  # pairing number -> entry
    info: dict[int, dict[str, Any]]  # entry -> name, unit, rating, withdrawn, player
    rounds: list[Round] = field(default_factory=list)
    open_games: dict[int, list[int]] = field(default_factory=dict)  # round -> matches not finished


def _match_result(first_points: int, second_points: int, games: int, forfeit: bool) -> tuple[str, str]:
    if forfeit:
        if first_points == second_points:
            return "-", "-"
        return ("+", "-") if first_points > second_points else ("-", "+")
    if first_points == second_points:
        return "=", "="
    return ("1", "0") if first_points > second_points else ("0", "1")


def load(stage: Stage, *, through: int | None = None) -> SwissData:
    """The stage as a :class:`SwissState` with every published round up to ``through`` (unfinished
    matches have an empty result)."""
    options = SwissOptions.of(stage)
    group = swiss_group(stage)
    members = list(
        GroupMember.objects.filter(group=group).values_list(
            "entry_id",
            "entry__player__name",
            "entry__player__unit",
            "entry__player__rating",
            "entry__rating",
            "entry__withdrawn",
            "entry__player_id",
        )
    )
    info: dict[int, dict[str, Any]] = {
        e: {
            "name": name,
            "unit": unit or "",
            "rating": (at_start if at_start is not None else rating) or 0,  # the rating fixed at the start
            "withdrawn": withdrawn,
            "player": player,
        }
        for e, name, unit, rating, at_start, withdrawn, player in members
    }
    number = _numbers(options, info)
    entry = {n: e for e, n in number.items()}
    rounds = list(Round.objects.filter(stage=stage).order_by("number"))
    published = [r.number for r in rounds if r.status != Round.Status.DRAFT]
    last = max(published, default=0) if through is None else min(through, max(published, default=0))
    players = {
        n: SwissPlayer(number=n, name=info[e]["name"], rating=info[e]["rating"], key=e, unit=info[e]["unit"])
        for n, e in sorted(entry.items())
    }
    records: dict[tuple[int, int], RoundRecord] = {}
    open_games: dict[int, list[int]] = defaultdict(list)
    matches = list(
        Match.objects.filter(group=group, round__lte=last)
        .exclude(status=Match.Status.CANCELLED)
        .values_list("pk", "round", "first_id", "second_id", "status", "best_of", "winner_id", "games_planned")
    )
    games: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for match_id, result, reason, black in MatchGame.objects.filter(
        match__group=group, match__round__lte=last, counted=True, game__status=GameStatus.FINISHED
    ).values_list("match_id", "game__result", "game__result_reason", "game__black_id"):
        games[match_id].append((result, reason, black))
    for pk, rnd, first, second, status, best_of, winner, planned in matches:
        a, b = number[first], number[second]
        if status != Match.Status.FINISHED:
            open_games[rnd].append(pk)
            ra, rb = "", ""
        else:
            fp = sp = 0
            first_player = info[first]["player"]
            for result, _reason, black in games[pk]:
                if result == GameResult.DRAW:
                    fp, sp = fp + 1, sp + 1
                elif (result == GameResult.BLACK) == (black == first_player):
                    fp += 2
                else:
                    sp += 2
            forfeit = bool(games[pk]) and all(reason in UNPLAYED_REASONS for _r, reason, _b in games[pk])
            if best_of:
                fp, sp = (1, 0) if winner == first else (0, 1) if winner == second else (fp, sp)
            ra, rb = _match_result(fp, sp, planned, forfeit)
        records[(a, rnd)] = RoundRecord(b, FIRST, ra)
        records[(b, rnd)] = RoundRecord(a, SECOND, rb)
    byes = {
        (number[e], rnd): kind
        for e, rnd, kind in SwissBye.objects.filter(stage=stage).values_list("entry_id", "round", "kind")
        if e in number
    }
    for rnd in range(1, last + 1):
        for n, p in players.items():
            p.rounds.append(records.get((n, rnd)) or RoundRecord(None, None, byes.get((n, rnd), "Z")))
    nxt = last + 1
    absent = {number[e] for e, i in info.items() if i["withdrawn"]}
    preassigned = {n: kind for (n, rnd), kind in byes.items() if rnd == nxt and n not in absent}
    prohibited = {
        (min(number[a], number[b]), max(number[a], number[b]))
        for a, b in options.prohibited
        if a in number and b in number
    }
    accelerations: dict[int, list[int]] = {}
    if options.accelerate:  # group A as the first pairing fixes it, so a file exported before it has it too
        group_a = {number[e] for e in options.group_a if e in number} or baku_group_a(sorted(players))
        accelerations = baku_accelerations(sorted(players), group_a, options.rounds)
    state = SwissState(
        name=stage.tournament.name if hasattr(stage, "tournament") else "",
        total_rounds=options.rounds,
        players=list(players.values()),
        # the lot the first pairing records (services._fix_once), known from the draw seed before it
        first_colour=options.first_colour or initial_colour(stage.draw_seed),
        rules=options.rules,
        points=options.points,
        forbidden=prohibited,
        accelerations=accelerations,
        absent=absent,
        preassigned=preassigned,
    )
    return SwissData(stage, options, state, number, entry, info, rounds, dict(open_games))


def _numbers(options: SwissOptions, info: dict[int, dict[str, Any]]) -> dict[int, int]:
    """Entry -> pairing number: by rating, then name; a stage imported from a TRF file keeps the file's
    numbers (a player entered after the import is numbered after them, by rating)."""
    fixed = {e: n for e, n in options.pairing_numbers if e in info}
    rest = pairing_numbers([(e, str(i["name"]), int(i["rating"])) for e, i in info.items() if e not in fixed])
    top = max(fixed.values(), default=0)
    return {**fixed, **{e: top + n for e, n in rest.items()}}


def initial_colour(seed: int | None) -> str:
    """The lot for the initial colour, from the stage's draw seed: w or b (the top seed's role in round 1)."""
    return random.Random(f"{seed}-initial-colour").choice([FIRST, SECOND])


def _tenths(value: int) -> str:
    whole, rest = divmod(value, 10)
    if rest == 0:
        return str(whole)
    if rest == 5:
        return f"{whole}½" if whole else "½"
    return f"{whole}.{rest}"


def tiebreak_labels() -> dict[str, str]:
    """The Swiss tie-breaks' titles (their classes'), and how a complete tie was settled."""
    return {
        **{name: str(TIEBREAKS[name].title) for name in tiebreaks.TIEBREAKS},
        "lot": _("lot"),
        "shared": _("shared place"),
        "extra_game": _("extra game"),
        "extra_game_due": _("extra game due"),
    }


def _value_text(name: str, value: int) -> str:
    decimals = TIEBREAKS[name].power  # tenths: Buchholz in tenths, Sonneborn-Berger in hundredths
    if decimals == 0:
        return str(value)
    if decimals == 1:
        return f"{value / 10:.1f}"
    return f"{value / 100:.2f}"


def standings(stage: Stage, data: SwissData | None = None) -> dict[str, Any]:
    """The Swiss table: place, score, the chosen tie-breaks, and which tie-break decided each place."""
    data = data or load(stage)
    order = list(data.options.tiebreaks)
    options = data.options
    tie = CompleteTie(
        options.complete_tie,
        str(stage.draw_seed or stage.pk),
        [[data.number[e] for e in d if e in data.number] for d in options.tie_decisions],
        options.precise_places,
    )
    rows = tiebreaks.standings(data.state, order, settle=tie.settle)
    labels = tiebreak_labels()
    numbers = data.state.by_number()
    out = []
    for row in rows:
        e = data.entry[row.number]
        i = data.info[e]
        out.append(
            {
                "rank": row.rank,
                "entry": e,
                "number": row.number,
                "player": i["name"],
                "unit": i["unit"],
                "rating": i["rating"] or None,
                "score": row.score / 10,
                "score_text": _tenths(row.score),
                "tiebreaks": {name: row.values.get(name, 0) for name in order},
                "tiebreak_texts": [_value_text(name, row.values.get(name, 0)) for name in order],
                "decided_by": "" if i["withdrawn"] else row.decided_by,  # a withdrawn player's place is no tie
                "decided_by_text": "" if i["withdrawn"] else labels.get(row.decided_by, ""),
                "withdrawn": i["withdrawn"],
                "played": sum(1 for r in numbers[row.number].rounds if r.played),
            }
        )
    return {
        "columns": [{"key": name, "short": TIEBREAKS[name].short, "label": labels[name]} for name in order],
        "rows": out,
        "rounds_total": data.options.rounds,
        "rounds_published": len([r for r in data.rounds if r.status != Round.Status.DRAFT]),
    }


def crosstable(stage: Stage, data: SwissData | None = None) -> list[dict[str, Any]]:
    """Round by round for each player: the opponent's place, the role, the result."""
    data = data or load(stage)
    table = standings(stage, data)
    place = {row["number"]: row["rank"] for row in table["rows"]}
    numbers = data.state.by_number()
    out = []
    for row in table["rows"]:
        cells = []
        for record in numbers[row["number"]].rounds:
            if record.opponent is None:
                cells.append({"text": record.result or "", "bye": True})
            else:
                result = {"1": "+", "0": "−", "=": "=", "+": "+F", "-": "−F", "": "…"}.get(record.result, record.result)
                role = "●" if record.colour == FIRST else "○"
                cells.append({"text": f"{place[record.opponent]}{role}{result}", "opponent": place[record.opponent]})
        out.append({**row, "cells": cells})
    return out


def why_text(item: dict[str, Any], names: dict[int, str]) -> str:
    """One board's "why this pairing" in the reader's language."""
    group = _tenths(int(item["group"]))
    if item.get("bye"):
        if item.get("rules") == RULES_2026:
            return _(
                "Score group %(group)s: the pairing-allocated bye goes to a player who has had none, on the lowest "
                "score that still lets everyone else be paired, and of those to one who has played the fewest "
                "games (FIDE's 2026 rules)."
            ) % {"group": group}
        if item.get("lowest", True):
            return _(
                "Score group %(group)s: the pairing-allocated bye goes to the lowest-ranked player of the lowest "
                "score group who has had no bye."
            ) % {"group": group}
        return _(
            "Score group %(group)s: the pairing-allocated bye goes to a player who has had none; the players "
            "ranked lower who have had none are needed to pair the score groups above, which FIDE's Dutch "
            "system pairs first."
        ) % {"group": group}
    parts = [_("Score group %(group)s.") % {"group": group}]
    if "down" in item:
        reason = (
            _("the score group had an odd number of players")
            if item.get("float_reason") == "odd_group"
            else _("nobody in the score group could be paired with them (rematches, prohibited pairs, colours)")
        )
        parts.append(
            _("%(down)s floats down to %(up)s: %(reason)s.")
            % {"down": names.get(item["down"], item["down"]), "up": names.get(item["up"], item["up"]), "reason": reason}
        )
    rule = {
        "both_preferences": _("both players get the role they are due (C.04.3 E.1)"),
        "stronger_preference": _("the stronger colour preference is granted (E.2)"),
        "alternate": _("roles alternate from the last round in which the two had different roles (E.3)"),
        "higher_ranked": _("the higher-ranked player's preference is granted (E.4)"),
        "initial_colour": _("the initial colour drawn by lot, by the higher-ranked player's pairing number (E.5)"),
        "organizer": _("set by the organizer, against the colour rules"),
    }.get(item.get("colour_rule", ""), "")
    if rule:
        parts.append(_("First move: %(rule)s.") % {"rule": rule})
    return " ".join(parts)


# A board's result from the first player's side: over the board, by forfeit (F), not yet known (…).
RESULT_TEXT = {"1": "1–0", "0": "0–1", "=": "½–½", "+": "1–0 F", "-": "0–1 F", "": "…"}


def board_has_second(rnd: Round, index: int) -> bool:
    return rnd.status != Round.Status.DRAFT and rnd.boards[index - 1][1] is not None


def rounds_view(
    stage: Stage, data: SwissData | None = None, only: int | None = None, *, viewer: Any
) -> list[dict[str, Any]]:
    """Each paired round (or round ``only``) that ``viewer`` may see (a draft only its organizers:
    :func:`tournament.models.shown_rounds`): boards (with names, pairing numbers, scores before the round
    and results), byes, why each board is paired so, and the manual edits."""
    data = data or load(stage)
    numbers = data.state.by_number()
    names = {n: data.info[e]["name"] for n, e in data.entry.items()}
    out = []
    for rnd in shown_rounds(viewer, stage.tournament, data.rounds):
        if only is not None and rnd.number != only:
            continue
        boards = []
        for index, (first, second) in enumerate(rnd.boards, start=1):
            a = data.number.get(first)
            b = data.number.get(second) if second is not None else None
            if a is None:
                continue
            before = numbers[a].score(data.state.points, rnd.number - 1)
            record = numbers[a].rounds[rnd.number - 1] if len(numbers[a].rounds) >= rnd.number else None
            item = {
                "board": index,
                "first": {"entry": first, "number": a, "name": names[a], "score": _tenths(before)},
                "second": None,
                "result": RESULT_TEXT.get(record.result, record.result)
                if record and board_has_second(rnd, index)
                else "",
            }
            if second is None and record is not None and rnd.status != Round.Status.DRAFT:
                # The allocated bye: the points it gave (configurable), e.g. "1 (bye)".
                after = numbers[a].score(data.state.points, rnd.number)
                item["result"] = _("%(points)s (bye)") % {"points": _tenths(after - before)}
            if b is not None:
                item["second"] = {
                    "entry": second,
                    "number": b,
                    "name": names[b],
                    "score": _tenths(numbers[b].score(data.state.points, rnd.number - 1)),
                }
            why = next((w for w in rnd.why if w.get("board") == index), None)
            item["why"] = why_text(why, names) if why else ""
            boards.append(item)
        others = [
            {"entry": e, "name": data.info[e]["name"], "kind": k, "absent": absent}
            for e, k, absent in SwissBye.objects.filter(stage=stage, round=rnd.number)
            .exclude(kind=SwissBye.Kind.PAIRING)
            .order_by("pk")
            .values_list("entry_id", "kind", "absent")
            if e in data.info
        ]
        requested = [b for b in others if not b["absent"]]
        not_here = [b for b in others if b["absent"]]  # not checked in for the round: a zero-point bye
        out.append(
            {
                "number": rnd.number,
                "status": rnd.status,
                "status_text": Round.Status(rnd.status).label,
                "engine": rnd.engine,
                "boards": boards,
                "byes": requested,
                "absent": not_here,
                "edits": shown_edits(viewer, stage.tournament, rnd.edits),
                "notes": rnd.notes,
                "edited": rnd.boards != rnd.engine_boards,
            }
        )
    return out


def entry_names(entries: list[int]) -> dict[int, str]:
    return dict(Entry.objects.filter(pk__in=entries).values_list("pk", "player__name"))


def current_swiss(tournament: Tournament) -> Stage | None:
    """The Swiss stage whose next round is to be paired: the earliest one not finished."""
    return (
        Stage.objects.filter(tournament=tournament, kind=Stage.Kind.SWISS)
        .exclude(status=Stage.Status.FINISHED)
        .order_by("order")
        .first()
    )


def next_round_to_pair(tournament: Tournament) -> int | None:
    """The round of the current Swiss stage players check in for (None: no Swiss stage left to pair)."""
    stage = current_swiss(tournament)
    if stage is None:
        return None
    paired = Round.objects.filter(stage=stage).count()
    return paired + 1 if paired < SwissOptions.of(stage).rounds else None


def swiss_stages(tournament: Tournament) -> QuerySet[Stage]:
    return Stage.objects.filter(tournament=tournament, kind=Stage.Kind.SWISS).order_by("order")


def swiss_order(group: Group) -> Order:
    """The Swiss group as an :class:`~tournament.standings.Order`, so advancing works as for any stage:
    one player per place (tie-breaks, then a recorded lot), decided when every round is played."""
    stage = Stage.objects.select_related("tournament").get(pk=group.stage_id)
    data = load(stage)
    table = standings(stage, data)
    unplayed = (
        table["rounds_published"] < data.options.rounds
        or bool(data.open_games)
        or any(r.status == Round.Status.DRAFT for r in data.rounds)
    )
    withdrawn = [row["entry"] for row in table["rows"] if row["withdrawn"]]
    return Order(
        group=group,
        blocks=[[row["entry"]] for row in table["rows"]],
        unplayed=unplayed,
        pending=any(row["decided_by"] == "extra_game_due" for row in table["rows"]),  # a place waits for it
        undecided=[],
        playoff_parent={},
        rows={},
        withdrawn=withdrawn,
        advance=group.advance,
    )


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """A Swiss stage's options checked (unknown keys, wrong values are refused, in the user's language)."""

    def bad(key: str) -> TournamentError:
        return TournamentError("bad_options", _("The Swiss option %(key)s has a wrong value.") % {"key": key})

    known = set(SwissOptions.__dataclass_fields__) - {"first_colour", "group_a", "pairing_numbers", "tie_decisions"}
    for key in options:
        if key not in known:
            raise TournamentError("bad_options", _("Unknown Swiss option %(key)s.") % {"key": key})
    out = dict(options)
    ints = {
        "rounds": (1, 30),
        "unit_rounds": (0, 30),
        "unit_last_rounds": (0, 30),
        "max_requested_byes": (0, 30),
        "no_byes_last": (0, 30),
        "advance": (0, 10_000),
    }
    for key, (low, high) in ints.items():
        if key in out and (type(out[key]) is not int or not low <= out[key] <= high):
            raise bad(key)
    choices = {
        "games": (1, 2, 3),
        "pab": ("win", "draw", "loss"),
        "late_score": ("zero", "half"),
        "then": ("", Stage.Kind.KNOCKOUT, Stage.Kind.ROUND_ROBIN),
        "rules": RULES,
        "complete_tie": COMPLETE_TIES,
    }
    for key, allowed in choices.items():
        if key in out and out[key] not in allowed:
            raise bad(key)
    if "accelerate" in out and not isinstance(out["accelerate"], bool):
        raise bad("accelerate")
    precise = out.get("precise_places", [])
    if not isinstance(precise, list) or not all(type(p) is int and 1 <= p <= 10_000 for p in precise):
        raise bad("precise_places")
    if "tiebreaks" in out:
        names = out["tiebreaks"]
        if (
            not isinstance(names, list)
            or any(n not in tiebreaks.TIEBREAKS for n in names)
            or len(set(names)) != len(names)
        ):
            raise bad("tiebreaks")
    if "prohibited" in out:
        pairs = out["prohibited"]
        if not isinstance(pairs, list) or any(
            not isinstance(p, list | tuple) or len(p) != 2 or not all(type(x) is int for x in p) or p[0] == p[1]
            for p in pairs
        ):
            raise bad("prohibited")
        out["prohibited"] = [sorted(p) for p in pairs]
    return out
