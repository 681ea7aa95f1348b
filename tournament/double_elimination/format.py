"""The double-elimination knockout as a stage format: a player is out after a second lost match. Everyone is
seeded into one bracket at the draw (by rating, or by lot); each round pairs the matches the results so far
have made ready (the winners' bracket, the losers', then the grand final and, if the losers' champion wins
it, the reset), reviewed and published by the organizer through the one round lifecycle
(:mod:`tournament.services.rounds`). Matches are best of ``best_of`` games (1, 3, 5 or 7; 3 by default),
colours by 猜先 and then alternating, drawn games followed by single games until one is won. The bracket
decides the places; nothing follows the stage.

Registered in :data:`tournament.stage_formats.FORMATS` by ``TournamentConfig.ready``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from tournament.double_elimination import bracket
from tournament.errors import TournamentError
from tournament.models import Entry, Group, Match, Round, Stage, Tournament, entry_rating
from tournament.round_plans import RoundPlan, Rows
from tournament.stage_formats import GroupPlan, NextStage, StageFormat, check_not_withdrawn, register, round_match
from tournament.standings import Order, games_won

KIND = Stage.Kind.DOUBLE_ELIMINATION
BEST_OF = (1, 3, 5, 7)
SEEDING = ("rating", "lot")
SIDES = {
    "winners": pgettext_lazy("bracket", "Winners' bracket"),
    "losers": pgettext_lazy("bracket", "Losers' bracket"),
    "final": pgettext_lazy("bracket", "Grand final"),
}


def slot_label(name: str) -> str:
    """A match of the bracket in words: "Winners' bracket, round 2, match 1", "Grand final", "Bracket reset"."""
    if name == "GF":
        return str(SIDES["final"])
    if name == "GF2":
        return _("Bracket reset")
    side = SIDES["winners"] if name.startswith("W") else SIDES["losers"]
    column, number = name[1:].split("-")
    return _("%(side)s, round %(round)s, match %(match)s") % {"side": side, "round": column, "match": number}


def _seeds(group: Group) -> list[int]:
    return list(group.memberships.order_by("position").values_list("entry_id", flat=True))


def _played(group: Group, size: int) -> tuple[dict[str, bracket.Played], set[str]]:
    """The decided matches of the bracket by slot (a match's ``order`` is its slot's place in the bracket) and
    the slots with a match under way."""
    names = [s.name for s in bracket.slots(size)]
    decided: dict[str, bracket.Played] = {}
    open_slots: set[str] = set()
    for match in group.matches.exclude(status=Match.Status.CANCELLED).filter(round__gt=0):
        name = names[match.order]
        if match.status == Match.Status.FINISHED and match.winner_id is not None:
            decided[name] = bracket.Played(match.first_id, match.second_id, match.winner_id)
        else:
            open_slots.add(name)
    return decided, open_slots


def load(stage: Stage) -> tuple[Group, list[int], bracket.State, set[str]]:
    """The stage's bracket: its group, the seeds, the state after the decided matches, the slots under way."""
    group = stage.groups.get(parent=None)
    seeds = _seeds(group)
    decided, open_slots = _played(group, len(seeds))
    withdrawn = frozenset(stage.tournament.entries.filter(pk__in=seeds, withdrawn=True).values_list("pk", flat=True))
    return group, seeds, bracket.state(seeds, decided, withdrawn), open_slots


@register
class DoubleElimination(StageFormat):
    kind = KIND
    round_by_round = True
    playoffs = False  # the bracket decides every place it needs
    page_part = "tournament/_double_elimination.html"
    competitors = "players"

    def first_name(self) -> str:
        with translation.override(settings.LANGUAGE_CODE):
            return str(pgettext_lazy("stage name", "Double elimination"))

    def default_options(self, rounds: int) -> dict[str, Any] | None:
        return {"best_of": 3}

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``best_of`` (1, 3, 5 or 7 games a match; 3 by default) and ``seeding`` ("rating", the default: the
        strongest far apart, the top seeds' byes; or "lot")."""
        for key in options:
            if key not in ("best_of", "seeding"):
                raise TournamentError("bad_options", _("Unknown option %(key)s for this stage.") % {"key": key})
        best = options.get("best_of", 3)
        if type(best) is not int or best not in BEST_OF:
            raise TournamentError("bad_options", _("The option %(key)s has a wrong value.") % {"key": "best_of"})
        if options.get("seeding", "rating") not in SEEDING:
            raise TournamentError("bad_options", _("The option %(key)s has a wrong value.") % {"key": "seeding"})
        return {"best_of": best, "seeding": options.get("seeding", "rating")}

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        """Everyone in one bracket in seeding order: by rating (a lot orders equal ratings), or by lot."""
        if len(entries) < 2:
            raise TournamentError("too_few", _("A knockout needs at least two players."), 409)
        keys = [e.pk for e in entries]
        rng.shuffle(keys)
        if stage.options.get("seeding", "rating") == "rating":
            rating = {e.pk: entry_rating(e) or 0 for e in entries}
            keys.sort(key=lambda k: -rating[k])
        games = int(stage.options.get("best_of", 3))
        return [GroupPlan(keys, "bracket", advance=0, games=games, pair_at_draw=False)]

    # -- its decisions in the one round lifecycle

    def planned_rounds(self, stage: Stage) -> int:
        """Not known in advance (a bracket reset may follow the final): none while matches remain to be made,
        the rounds paired once the bracket is complete."""
        if stage.status == Stage.Status.PENDING or not stage.groups.exists():
            return 0
        _group, _seeds_, state, _open = load(stage)
        return Round.objects.filter(stage=stage).count() if state.complete else 0

    def plan_round(self, stage: Stage, isolated: bool = False) -> RoundPlan:
        """Every match the results have made ready, winners' bracket first. A result corrected after the
        bracket went on can put one player in two ready matches (the matches played stand, as a Swiss
        round's pairing does): they play one at a time, the earlier first."""
        _group, _seeds_, state, under_way = load(stage)
        boards: Rows = []
        why: list[dict[str, Any]] = []
        seated: set[int | None] = set()
        for name in state.ready:
            pair = state.players[name]
            if name in under_way or seated & set(pair):
                continue
            seated |= set(pair)
            boards.append(list(pair))
            why.append({"slot": name})
        return RoundPlan(boards, engine=self.kind, why=why)

    def board_text(self, why: dict[str, Any]) -> str:
        """Which match of the bracket a board is, in the reader's language."""
        return slot_label(str(why.get("slot", ""))) if why.get("slot") else ""

    def edit_warnings(self, stage: Stage, rows: Rows, engine_rows: Rows) -> list[dict[str, Any]]:
        """The bracket makes the pairings: who is named first on a board may change, not who meets whom."""
        if any(set(row) != set(engine) for row, engine in zip(rows, engine_rows, strict=True)):
            raise TournamentError(
                "bracket_fixed",
                _("In a bracket the results make the pairings: only the roles on a board can be flipped."),
                409,
            )
        return []

    def publish_round(self, stage: Stage, number: int, rows: Rows, actor: Any) -> list[Match]:
        group, seeds, state, under_way = load(stage)
        rnd = Round.objects.get(stage=stage, number=number)
        places = {s.name: i for i, s in enumerate(bracket.slots(len(seeds)))}
        entries = [e for row in rows for e in row if e is not None]
        check_not_withdrawn(stage, entries)
        made = []
        for order, (row, why) in enumerate(zip(rows, rnd.why, strict=True)):
            name = why["slot"]
            if name not in state.ready or name in under_way or set(row) != set(state.players[name]):
                raise TournamentError(
                    "stale_pairing",
                    _("The bracket changed since this round was paired: unpair and pair it again."),
                    409,
                )
            first, second = row
            assert first is not None and second is not None
            match = round_match(stage, group, number, order, (first, second), group.games_per_pair, best_of=True)
            match.order = places[name]
            made.append(match)
        return Match.objects.bulk_create(made)

    # -- order and places

    def group_order(self, group: Group) -> Order:
        stage = Stage.objects.select_related("tournament").get(pk=group.stage_id)
        _group, seeds, state, _open = load(stage)
        return Order(
            group=group,
            blocks=bracket.places(state, seeds),
            unplayed=not state.complete,
            pending=False,
            undecided=[],
            playoff_parent={},
            rows={},
            advance=0,
        )

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return None  # the bracket ranks the players: the tournament ends with it

    # -- pages

    def tables(self, stage: Stage, after_round: int | None = None) -> list[dict[str, Any]]:
        """One table: the places the bracket has decided (those still in share the place above the eliminated),
        matches played, won and lost."""
        if not stage.groups.exists():
            return []
        group, seeds, state, _open = load(stage)
        names = dict(Entry.objects.filter(pk__in=seeds).values_list("pk", "player__name"))
        units = dict(Entry.objects.filter(pk__in=seeds).values_list("pk", "player__unit"))
        won: dict[int, int] = {}
        lost: dict[int, int] = {}
        for match in group.matches.filter(status=Match.Status.FINISHED, round__gt=0, winner__isnull=False):
            if match.winner_id is None or after_round is not None and match.round > after_round:
                continue
            loser = match.second_id if match.winner_id == match.first_id else match.first_id
            won[match.winner_id] = won.get(match.winner_id, 0) + 1
            lost[loser] = lost.get(loser, 0) + 1
        blocks = bracket.places(state, seeds) if after_round is None else [sorted(seeds, key=seeds.index)]
        rows, rank = [], 1
        for block in blocks:
            for entry in block:
                rows.append(
                    {
                        "rank": rank,
                        "entry": entry,
                        "player": names.get(entry, ""),
                        "unit": units.get(entry, ""),
                        "played": won.get(entry, 0) + lost.get(entry, 0),
                        "wins": won.get(entry, 0),
                        "draws": 0,
                        "losses": lost.get(entry, 0),
                        "points": won.get(entry, 0),
                        "tiebreaks": {},
                        "state": "final" if state.complete and after_round is None else "",
                        "decided_by": "",
                    }
                )
            rank += len(block)
        return [
            {
                "group": group.pk,
                "name": group.name,
                "kind": group.kind,
                "advance": 0,
                "decided": state.complete,
                "awaiting_decision": False,
                "rows": rows,
            }
        ]

    def ranking_rows(self, stage: Stage) -> list[dict[str, Any]]:
        """The bracket's places, once it is complete."""
        tables = self.tables(stage)
        if not tables or not tables[0]["decided"]:
            return []
        return [
            {"rank": r["rank"], "player": r["player"], "unit": r["unit"], "points": r["points"]}
            for r in tables[0]["rows"]
        ]

    def page_context(self, stage: Stage) -> dict[str, Any]:
        """The bracket, a column per round of each side: each match's players, games won, the winner."""
        if not stage.groups.exists():
            return {"sides": []}
        group, seeds, state, _open = load(stage)
        names = dict(Entry.objects.filter(pk__in=seeds).values_list("pk", "player__name"))
        slots = bracket.slots(len(seeds))
        matches = {
            slots[m.order].name: m
            for m in group.matches.exclude(status=Match.Status.CANCELLED)
            .filter(round__gt=0)
            .select_related("first__player", "second__player")
            .prefetch_related("match_games__game")
        }
        sides: dict[str, dict[int, list[dict[str, Any]]]] = {}
        for slot in slots:
            a, b = state.players[slot.name]
            if slot.name == "GF2" and (a is None or state.winner["GF2"] == bracket.BYE):
                continue  # a reset only once the losers' champion has won the final
            if a == bracket.BYE or b == bracket.BYE:
                continue  # a walkover: nothing to show
            match = matches.get(slot.name)
            wins = games_won(match) if match is not None else [0, 0]
            if match is not None:
                a, b = match.first_id, match.second_id
            sides.setdefault(slot.side, {}).setdefault(slot.round, []).append(
                {
                    "slot": slot.name,
                    "label": slot_label(slot.name),
                    "first": names.get(a or 0, "…"),
                    "second": names.get(b or 0, "…"),
                    "wins": wins,
                    "winner": None if match is None or match.winner_id is None else int(match.winner_id != a),
                    "match": match.pk if match is not None else None,
                }
            )
        return {
            "sides": [
                {"key": key, "name": SIDES[key], "columns": [columns[r] for r in sorted(columns)]}
                for key, columns in ((k, sides[k]) for k in ("winners", "losers", "final") if k in sides)
            ],
            "champion": names.get(bracket.champion(state) or 0, ""),
        }
