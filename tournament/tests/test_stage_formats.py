"""Stage formats behind one interface: the registry, what follows each stage, and round-by-round pairing."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from games.models import Player
from tournament import formats, services, stage_formats
from tournament.models import Entry, Group, Match, Stage, Tournament
from tournament.stage_formats import FORMATS, GroupPlan, NextStage, StageFormat
from tournament.tests.helpers import started, win

pytestmark = pytest.mark.django_db


def test_every_stage_kind_has_a_format() -> None:
    assert set(FORMATS) == set(Stage.Kind.values)
    assert all(f.kind == kind for kind, f in FORMATS.items())


@pytest.mark.parametrize(
    ("kind", "qualifiers", "final_max", "expected"),
    [
        (Stage.Kind.GROUPS, 12, 8, Stage.Kind.KNOCKOUT),  # the seed always has a 复赛 after the groups
        (Stage.Kind.GROUPS, 4, 8, Stage.Kind.KNOCKOUT),
        (Stage.Kind.GROUPS, 3, 8, Stage.Kind.ROUND_ROBIN),
        (Stage.Kind.GROUPS, 1, 8, None),
        (Stage.Kind.KNOCKOUT, 9, 8, Stage.Kind.KNOCKOUT),
        (Stage.Kind.KNOCKOUT, 8, 8, Stage.Kind.ROUND_ROBIN),
        (Stage.Kind.KNOCKOUT, 5, 4, Stage.Kind.KNOCKOUT),
        (Stage.Kind.KNOCKOUT, 1, 8, None),
        (Stage.Kind.ROUND_ROBIN, 5, 8, None),  # the final ends the tournament
    ],
)
def test_what_follows_a_stage(kind: str, qualifiers: int, final_max: int, expected: str | None) -> None:
    tournament = Tournament(name="t", final_max=final_max)
    stage = Stage(tournament=tournament, order=2, name="s", kind=kind)
    nxt = FORMATS[kind].following(stage, list(range(qualifiers)), tournament)
    assert (nxt.kind if nxt else None) == expected


def test_the_group_format_draws_the_seeds_groups() -> None:
    tournament = services.tournament_create(name="t")
    for n in range(10):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}"))
    entries = list(Entry.objects.filter(tournament=tournament).select_related("player"))
    plans = FORMATS[Stage.Kind.GROUPS].draw(entries, random.Random(3), tournament, tournament.stages.get())
    assert sorted(len(p.keys) for p in plans) == sorted(formats.group_sizes(10)) == [2, 4, 4]
    shapes = {len(p.keys): (p.kind, p.advance, p.games) for p in plans}
    assert shapes == {4: (Group.Kind.ROUND_ROBIN, 2, 2), 2: (Group.Kind.BEST_OF, 1, 3)}  # a pair plays 3局2胜
    assert sorted(k for p in plans for k in p.keys) == sorted(e.pk for e in entries)


class OneRoundAtATime(StageFormat):
    """A toy round-by-round format: the circle method's rounds, one per call to next_round."""

    kind = Stage.Kind.ROUND_ROBIN
    round_by_round = True

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        keys = [e.pk for e in entries]
        return [GroupPlan(keys, Group.Kind.ROUND_ROBIN, advance=len(keys), games=1, pair_at_draw=False)]

    def next_round(self, stage: Stage, group: Group) -> list[tuple[int, int]] | None:
        keys = list(group.memberships.order_by("position").values_list("entry_id", flat=True))
        played = group.matches.count() // (len(keys) // 2)
        rounds = formats.circle_rounds(keys)
        return rounds[played] if played < len(rounds) else []

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return None


def test_a_round_by_round_format_pairs_each_round_only_after_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(stage_formats.FORMATS, Stage.Kind.ROUND_ROBIN, OneRoundAtATime())
    tournament = services.tournament_create(name="t", boards=4)
    for n in range(4):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}"))
    stage = tournament.stages.get(order=1)
    Stage.objects.filter(pk=stage.pk).update(kind=Stage.Kind.ROUND_ROBIN)
    stage.refresh_from_db()
    services.draw_stage(stage=stage, seed=1)
    assert not Match.objects.filter(group__stage=stage).exists()  # nothing paired at the draw
    services.start_stage(stage=stage)

    first = services.pair_next_round(stage=stage)
    assert [m.round for m in first] == [1, 1]
    with pytest.raises(services.TournamentError) as refused:
        services.pair_next_round(stage=stage)
    assert refused.value.code == "round_unfinished"

    for match in Match.objects.filter(pk__in=[m.pk for m in first]):
        game = match.games.get()
        win(game, game.black)
    second = services.pair_next_round(stage=stage)
    assert [m.round for m in second] == [2, 2]
    pairs = {frozenset((m.first_id, m.second_id)) for m in [*first, *second]}
    assert len(pairs) == 4  # nobody met twice


def test_a_stage_paired_at_the_draw_refuses_pairing_a_round() -> None:
    _tournament, stage = started(8)
    with pytest.raises(services.TournamentError) as refused:
        services.pair_next_round(stage=stage)
    assert refused.value.code == "paired_at_draw"
