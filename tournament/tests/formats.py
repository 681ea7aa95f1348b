"""A stage format the rest of the code has never heard of, registered only by the tests that use it (the
``test_format`` fixture): it shows a new round-by-round format needs nothing but its own module and the
registration (the architecture test runs a whole tournament with it; the round cycle's tests, the URL walk
and a browser test pair, review, edit and publish its rounds)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from tournament import formats
from tournament.models import Entry, Group, Stage, Tournament
from tournament.stage_formats import FORMATS, GroupPlan, NextStage, StageFormat, stage_name


class RoundsThenFinal(StageFormat):
    """Test-only: everyone in one group, paired one round at a time by the circle method (one game a pair);
    the top four by points go on to the seed's final round robin."""

    kind = "t_rounds"
    round_by_round = True

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        keys = [e.pk for e in entries]
        rng.shuffle(keys)
        return [GroupPlan(keys, Group.Kind.ROUND_ROBIN, advance=4, games=1, pair_at_draw=False)]

    def planned_rounds(self, stage: Stage) -> int:
        size = stage.groups.get(parent=None).members.count()
        return size - 1 if size % 2 == 0 else size

    def next_round(self, stage: Stage, group: Group) -> list[tuple[int, int]] | None:
        keys = list(group.memberships.order_by("position").values_list("entry_id", flat=True))
        played = group.matches.values("round").distinct().count()
        rounds = formats.circle_rounds(keys)
        return rounds[played] if played < len(rounds) else None

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return NextStage(FORMATS_FINAL, stage_name("final")) if len(qualifiers) >= 2 else None


FORMATS_FINAL = "round_robin"


def registered() -> Iterator[StageFormat]:
    """The format registered for the duration of a fixture."""
    FORMATS[RoundsThenFinal.kind] = RoundsThenFinal()
    yield FORMATS[RoundsThenFinal.kind]
    del FORMATS[RoundsThenFinal.kind]
