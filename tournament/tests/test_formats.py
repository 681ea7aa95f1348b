"""Tournament arithmetic: draws, round robins, best-of-three, standings and playoffs."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from tournament.formats import (
    Entrant,
    Played,
    Result,
    balanced_single_rounds,
    best_of,
    circle_rounds,
    draw_groups,
    group_sizes,
    knockout_pairs,
    places,
    ranked_blocks,
    seeded_pairs,
    straddling,
    table,
)


def test_four_player_order_of_the_seed() -> None:
    assert circle_rounds(["a", "b", "c", "d"]) == [
        [("a", "b"), ("c", "d")],
        [("a", "c"), ("b", "d")],
        [("a", "d"), ("b", "c")],
    ]


@pytest.mark.parametrize("n", range(2, 12))
def test_every_pair_meets_exactly_once_and_nobody_plays_twice_a_round(n: int) -> None:
    players = list(range(n))
    rounds = circle_rounds(players)

    pairs = Counter(frozenset(p) for r in rounds for p in r)
    assert set(pairs) == {frozenset(c) for c in combinations(players, 2)}
    assert set(pairs.values()) == {1}
    for r in rounds:
        seen = [p for pair in r for p in pair]
        assert len(seen) == len(set(seen))


@pytest.mark.parametrize("n", range(3, 10))
def test_single_round_robin_colours_are_balanced(n: int) -> None:
    blacks = Counter(first for r in balanced_single_rounds(list(range(n))) for first, _ in r)

    counts = [blacks[p] for p in range(n)]
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize("n", range(5, 41))
def test_leftovers(n: int) -> None:
    sizes = group_sizes(n)

    assert sum(sizes) == n
    assert all(s == 4 for s in sizes[:-1])
    assert sizes[-1] == {0: 4, 1: 5, 2: 2, 3: 3}[n % 4]


def test_draw_is_reproducible_from_its_seed_and_keeps_units_apart() -> None:
    entrants = [Entrant(i, unit=f"club{i % 5}") for i in range(20)]

    first = draw_groups(entrants, group_sizes(20), random.Random(7))
    again = draw_groups(entrants, group_sizes(20), random.Random(7))

    assert first == again
    units = {s.key: s.unit for s in entrants}
    for group in first:
        assert len({units[k] for k in group}) == len(group)  # 5 clubs of 4 into groups of 4: all apart


def test_snake_seeding_spreads_the_strongest() -> None:
    entrants = [Entrant(i, rating=2000 - i) for i in range(8)]

    groups = draw_groups(entrants, [4, 4], random.Random(1), by_rating=True, units_apart=False)

    assert {groups[0][0], groups[1][0]} == {0, 1}
    assert sorted(groups[0]) == [0, 3, 4, 7]


@pytest.mark.parametrize(
    ("results", "winner", "games"),
    [
        ([0, 0], 0, 2),
        ([0, 1, 1], 1, 3),
        ([None, 0, 0], 0, 3),
        ([None, None, None, 1], 1, 4),
        ([0, None, None], 0, 3),
        ([None, 0, 1], None, 3),
        ([None, 0, 1, 0], 0, 4),
    ],
)
def test_best_of_three_with_draws(results: list[int | None], winner: int | None, games: int) -> None:
    score = best_of(results)

    assert (score.winner, score.games) == (winner, games)


def test_a_game_after_the_decision_counts_for_nothing() -> None:
    # a correction to game 1 of A, B, A can decide the match after two games: game 3 then does not count
    score = best_of([1, 1, 0])

    assert (score.winner, score.wins, score.games, score.extra) == (1, (0, 2), 2, 1)


def test_drawn_playoff_games_in_a_row_stall_the_match() -> None:
    stalled = best_of([None, None, None], n=1, draw_limit=3)
    running = best_of([None, None], n=1, draw_limit=3)
    won = best_of([None, None, 0], n=1, draw_limit=3)

    assert (stalled.winner, stalled.stalled) == (None, True)
    assert (running.winner, running.stalled) == (None, False)
    assert (won.winner, won.stalled) == (0, False)
    assert best_of([None] * 10, n=1).stalled is False  # no limit: sudden death goes on


@pytest.mark.parametrize("count", range(2, 12))
def test_balanced_single_rounds_depend_only_on_the_order_of_players(count: int) -> None:
    names = [f"p{i}" for i in range(count)]
    numbers = list(range(100, 100 + count))

    by_name = balanced_single_rounds(names)
    by_number = balanced_single_rounds(numbers)

    assert [[(names.index(a), names.index(b)) for a, b in r] for r in by_name] == [
        [(numbers.index(a), numbers.index(b)) for a, b in r] for r in by_number
    ]
    blacks = [sum(a == p for r in by_name for a, _ in r) for p in names]
    assert max(blacks) - min(blacks) <= 1


def double(a: str, b: str, first: Result, second: Result) -> list[Played]:
    """Two games a–b with colours swapped; ``first``/``second`` are results of game 1 and 2."""
    return [Played(a, b, first), Played(b, a, second)]


def test_ties_that_straddle_the_cut_need_a_playoff_others_share_the_place() -> None:
    games = (
        double("a", "b", "black", "black")
        + double("c", "d", "draw", "draw")
        + double("a", "c", "black", "white")
        + double("b", "d", "draw", "draw")
        + double("a", "d", "draw", "draw")
        + double("b", "c", "white", "black")
    )
    rows = table("abcd", games)
    blocks = ranked_blocks(list("abcd"), games)

    assert {p: rows[p].points for p in "abcd"} == {"a": 8, "b": 4, "c": 6, "d": 6}
    assert [sorted(b, key=str) for b in blocks] == [["a"], ["c", "d"], ["b"]]
    assert sorted(straddling(blocks, 2) or [], key=str) == ["c", "d"]  # one place for two: a playoff
    assert straddling(blocks, 3) is None  # both would advance: they share the place
    assert places(blocks) == {"a": 1, "c": 2, "d": 2, "b": 4}


def test_three_way_cycle_is_judged_as_a_mini_league_not_by_one_pair() -> None:
    cycle = [Played("a", "b", "black"), Played("b", "c", "black"), Played("c", "a", "black")]
    others = [Played("a", "d", "black"), Played("b", "d", "black"), Played("c", "d", "black")]

    blocks = ranked_blocks(list("abcd"), cycle + others, tiebreaks=["mini_league", "wins"])

    assert blocks == [["a", "b", "c"], ["d"]]  # still level: each won one game of the cycle
    with_sb = ranked_blocks(
        list("abcd"), cycle + others, tiebreaks=["mini_league", "wins", "sonneborn_berger", "white_wins"]
    )
    assert with_sb[0] == ["a", "b", "c"]


def test_knockout_pairs_put_an_odd_three_into_a_group() -> None:
    pairs, trio = knockout_pairs(list(range(11)), random.Random(3))

    assert len(pairs) == 4 and len(trio) == 3
    assert sorted([p for pair in pairs for p in pair] + trio) == list(range(11))


def test_qualifiers_from_a_swiss_meet_first_against_last() -> None:
    assert seeded_pairs([1, 2, 3, 4, 5, 6, 7, 8]) == ([(1, 8), (2, 7), (3, 6), (4, 5)], [])
    assert seeded_pairs([1, 2, 3, 4, 5, 6, 7]) == ([(1, 4), (2, 3)], [5, 6, 7])  # the bottom three: a group
