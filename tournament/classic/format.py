"""The seed's three stage formats (五子棋比赛规则及流程): the groups (初赛: groups of four, a double round
robin, the top two on), the best-of-three knockout (复赛: 3局2胜, an odd player out makes a round robin of three)
and the final round robin (决赛; as a first stage, a final of invited players by lot or by numbers fixed in
advance). Each pairs everything at its draw; the arithmetic is in :mod:`tournament.formats` and
:mod:`tournament.bracket`.

Registered in :data:`tournament.stage_formats.FORMATS` by ``TournamentConfig.ready``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from tournament import bracket, formats, lots, standings
from tournament.errors import TournamentError
from tournament.models import Entry, Group, Stage, Tournament, entry_rating
from tournament.stage_formats import GroupPlan, NextStage, StageFormat, register, stage_name


def _elimination_or_final(stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage:
    """More best-of-N rounds until few enough remain (``final_max``), then the final round robin."""
    if len(qualifiers) > tournament.final_max:
        return NextStage(Stage.Kind.KNOCKOUT, stage_name("second", n=stage.order))
    return NextStage(Stage.Kind.ROUND_ROBIN, stage_name("final"))


@register
class GroupRoundRobin(StageFormat):
    """The seed's 初赛: groups of 4 (a few of 3; two players make a best-of-three), double round robin,
    the top two advance."""

    kind = Stage.Kind.GROUPS

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        entrants = [formats.Entrant(e.pk, e.player.unit, entry_rating(e)) for e in entries]
        sizes = formats.group_sizes(len(entrants))
        groups = formats.draw_groups(entrants, sizes, rng, by_rating=tournament.draw_by_rating)
        return [
            GroupPlan(keys, Group.Kind.BEST_OF, advance=1, games=3)
            if len(keys) == 2
            else GroupPlan(keys, Group.Kind.ROUND_ROBIN, advance=2, games=2)
            for keys in groups
        ]

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        if len(qualifiers) < 2:
            return None
        if len(qualifiers) >= 4:  # the seed always has a 复赛 after the groups
            return NextStage(Stage.Kind.KNOCKOUT, stage_name("second", n=stage.order))
        return _elimination_or_final(stage, qualifiers, tournament)


@register
class KnockoutBestOf(StageFormat):
    """The seed's 复赛: best-of-three pairs (3局2胜); an odd player out makes a round robin of three."""

    kind = Stage.Kind.KNOCKOUT
    page_part = "tournament/_bracket.html"

    def page_context(self, stage: Stage) -> dict[str, Any]:
        return bracket.layout(bracket.rounds(stage))

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        if stage.options.get("seeded"):  # after a Swiss: 1 v K, 2 v K-1, … by the Swiss order
            merit = {e: i for i, e in enumerate(stage.options.get("entries", []))}
            pairs, trio = formats.seeded_pairs(sorted((e.pk for e in entries), key=lambda k: merit.get(k, len(merit))))
        else:
            pairs, trio = formats.knockout_pairs([e.pk for e in entries], rng)
        plans = [GroupPlan(list(pair), Group.Kind.BEST_OF, advance=1, games=3) for pair in pairs]
        if trio:
            plans.append(GroupPlan(trio, Group.Kind.ROUND_ROBIN, advance=1, games=2))
        return plans

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return None if len(qualifiers) < 2 else _elimination_or_final(stage, qualifiers, tournament)


@register
class FinalRoundRobin(StageFormat):
    """The seed's 决赛: everyone left in one double round robin; it ends the tournament."""

    kind = Stage.Kind.ROUND_ROBIN
    ranks_places = True

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """As a tournament's first stage (a final of invited players): ``lot`` (the numbers drawn by lot, not
        by seeding) and ``apart_last`` (players of one unit do not meet in the last N rounds), or ``numbers``
        (the players' names in the order of their numbers, fixed by the organizer in advance); ``bye``: what
        a rest scores with an odd number ("zero", the default, "win" or "draw": tournament.standings)."""
        for key in options:
            if key not in ("lot", "apart_last", "numbers", "bye"):
                raise TournamentError("bad_options", _("Unknown option %(key)s for this stage.") % {"key": key})
        apart = options.get("apart_last", 0)
        wrong = None
        if type(options.get("lot", False)) is not bool:
            wrong = "lot"
        elif type(apart) is not int or not 0 <= apart <= 30 or (apart and not options.get("lot")):
            wrong = "apart_last"
        elif "numbers" in options and (options.get("lot") or not lots.valid_numbers(options["numbers"])):
            wrong = "numbers"  # numbers fixed in advance, or drawn by lot: not both
        elif options.get("bye", "zero") not in standings.REST_VALUES:
            wrong = "bye"
        if wrong:
            raise TournamentError("bad_options", _("The option %(key)s has a wrong value.") % {"key": wrong})
        return dict(options)

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        """Everyone in one group, numbered by seeding, or by a lot that keeps compatriots apart at the end (the
        lot is recorded in the stage's options: how many draws, and where the rule gave way)."""
        keys = [e.pk for e in entries]
        if stage.options.get("numbers"):
            names = {e.pk: e.player.name for e in entries}
            keys = lots.fixed_order(keys, names.__getitem__, stage.options["numbers"])
        elif stage.options.get("lot"):
            units = {e.pk: (e.player.unit or "").strip() for e in entries}
            drawn = lots.drawn_apart(
                keys, lambda k: units.get(k, ""), int(stage.options.get("apart_last", 0)), formats.circle_rounds, rng
            )
            keys = drawn.order
            gave_way = [[number, a, b] for number, a, b in drawn.gave_way]
            stage.options = {**stage.options, "drawn": {"draws": drawn.draws, "gave_way": gave_way}}
        return [GroupPlan(keys, Group.Kind.ROUND_ROBIN, advance=len(entries), games=2)]

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return None
