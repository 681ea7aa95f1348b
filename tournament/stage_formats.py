"""Stage formats as strategies: how a stage is drawn, how it pairs its next round, and what stage follows it.

Each format is registered under a :class:`~tournament.models.Stage.Kind` (Tabbycat's draw generators behind a
factory are the model). :func:`tournament.services.draw_stage` asks the stage's format for its groups,
:func:`tournament.services.pair_next_round` for the next round's pairings and
:func:`tournament.services.advance` for the stage that follows. The seed's three formats pair everything at
the draw; a round-by-round system (Swiss) answers :meth:`StageFormat.next_round` instead, from the
standings so far. Pure decisions only: the services create the rows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django.conf import settings
from django.utils import translation
from django.utils.translation import pgettext_lazy

from tournament import formats
from tournament.models import Entry, Group, Stage, Tournament, entry_rating


@dataclass(frozen=True)
class GroupPlan:
    """One group a draw makes: its entries in seating order, its kind, how many advance, games per pair."""

    keys: list[int]
    kind: str
    advance: int
    games: int
    pair_at_draw: bool = True  # False: a round-by-round format pairs each round with next_round


@dataclass(frozen=True)
class NextStage:
    kind: str
    name: str


class StageFormat:
    """The interface every stage format implements."""

    kind: ClassVar[str]
    round_by_round: ClassVar[bool] = False  # True: pairings are made one round at a time by next_round

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        """The groups of a stage drawn with ``rng`` (from the stage's recorded seed)."""
        raise NotImplementedError

    def next_round(self, stage: Stage, group: Group) -> list[tuple[int, int]] | None:
        """The pairings of the group's next round, or None when the format made them all at the draw."""
        return None

    def recorded_at_draw(self, stage: Stage, seed: int) -> dict[str, Any]:
        """Stage options the draw with ``seed`` fixes and records (a lot drawn once, before anything can be
        exported); the service writes them into ``stage.options``. None by default."""
        return {}

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        """The stage that takes this one's qualifiers, or None when the tournament ends with this stage."""
        raise NotImplementedError


FORMATS: dict[str, StageFormat] = {}


def register(cls: type[StageFormat]) -> type[StageFormat]:
    FORMATS[cls.kind] = cls()
    return cls


def format_of(stage: Stage) -> StageFormat:
    return FORMATS[stage.kind]


STAGE_NAMES = {
    "preliminary": pgettext_lazy("stage name", "Preliminary"),
    "second": pgettext_lazy("stage name", "Second stage, round %(n)s"),
    "final": pgettext_lazy("stage name", "Final"),
    "swiss": pgettext_lazy("stage name", "Swiss"),
    "knockout": pgettext_lazy("stage name", "Knockout %(n)s"),
}


def stage_name(key: str, **params: Any) -> str:
    """A new stage's name, in the site's language (LANGUAGE_CODE) whoever's action made the stage, so one
    tournament's stages read alike; the organizer may rename a stage."""
    with translation.override(settings.LANGUAGE_CODE):
        return str(STAGE_NAMES[key]) % params if params else str(STAGE_NAMES[key])


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

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        return [GroupPlan([e.pk for e in entries], Group.Kind.ROUND_ROBIN, advance=len(entries), games=2)]

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return None


@register
class SwissSystem(StageFormat):
    """A Swiss stage: everyone in one group, each round paired from the results so far by the FIDE Dutch
    system (:mod:`tournament.swiss`), reviewed and published by the organizer; the top ``advance`` by
    score and tie-breaks go on to the ``then`` stage, if any."""

    kind = Stage.Kind.SWISS
    round_by_round = True

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        from tournament.swiss.selectors import SwissOptions

        options = SwissOptions.of(stage)
        keys = [e.pk for e in entries]
        advance = min(options.advance, len(keys)) if options.then else 0
        return [GroupPlan(keys, Group.Kind.SWISS, advance=advance, games=options.games, pair_at_draw=False)]

    def recorded_at_draw(self, stage: Stage, seed: int) -> dict[str, Any]:
        """The initial colour (FIDE C.04.3 E.5) by its lot from the draw's seed, recorded at the draw: a TRF
        exported before round 1 already says it, so another pairing program re-pairs round 1 the same."""
        from tournament.swiss.selectors import SwissOptions, initial_colour

        if SwissOptions.of(stage).first_colour:
            return {}
        return {"first_colour": initial_colour(seed)}

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        from tournament.swiss.selectors import SwissOptions

        then = SwissOptions.of(stage).then
        if not then or len(qualifiers) < 2:
            return None
        if then == Stage.Kind.KNOCKOUT:
            return NextStage(Stage.Kind.KNOCKOUT, stage_name("knockout", n=stage.order + 1))
        return NextStage(Stage.Kind.ROUND_ROBIN, stage_name("final"))
