"""Ratings computed with no database: Elo by hand, WHR as the library computes it with the RIF's
parameters, games dated by day."""

from __future__ import annotations

from datetime import date

import pytest

from ratings.compute import (
    RIF_W2,
    RIF_W2_2021,
    EloRule,
    Result,
    date_of,
    day_of,
    elo_ratings,
    expected,
    whr_ratings,
)


def test_elo_by_hand() -> None:
    # Two newcomers (1500, K 40): A beats B. Expected 0.5 each: A +20, B -20.
    history = elo_ratings([Result("A", "B", "B", 10)])
    assert history["A"][-1].rating == pytest.approx(1520.0) and history["B"][-1].rating == pytest.approx(1480.0)
    # Next day C (new, 1500) draws A (1520): A expected 1/(1+10^(-20/400)) = 0.52875; A -40*0.02875 = -1.1500
    history = elo_ratings([Result("A", "B", "B", 10), Result("C", "A", "D", 11)])
    assert history["A"][-1].rating == pytest.approx(1520 - 40 * (expected(1520, 1500) - 0.5))
    assert expected(1520, 1500) == pytest.approx(0.528750, abs=1e-6)
    assert history["A"][-1].rating == pytest.approx(1518.850, abs=1e-3)


def test_elo_rates_a_days_games_from_the_ratings_before_it_and_k_drops_with_experience() -> None:
    same_day = elo_ratings([Result("A", "B", "B", 1), Result("A", "C", "B", 1)])
    assert same_day["A"][-1].rating == pytest.approx(1540.0)  # both games from 1500: +20 twice
    rule = EloRule(new_games=1, k=20.0)
    history = elo_ratings([Result("A", "B", "B", 1), Result("A", "B", "B", 2)], rule)
    after_one = 1500 + 40 * 0.5
    assert history["A"][-1].rating == pytest.approx(after_one + 20 * (1 - expected(after_one, 1500 - 40 * 0.5)))


@pytest.mark.parametrize("w2", [RIF_W2["renju"], RIF_W2["gomoku"], RIF_W2_2021])
def test_whr_with_the_rif_parameters_is_the_librarys_own_answer(w2: float) -> None:
    import whr

    games = [Result("Chen", "Li", "B", 100), Result("Li", "Wang", "W", 100), Result("Wang", "Chen", "D", 130)]
    ours = whr_ratings(games, w2=w2)
    base = whr.Base(config={"w2": w2, "virtual_games": 2})
    base.create_games([[g.black, g.white, g.result, g.day, 0.0] for g in games])
    base.iterate_until_converge(verbose=False)
    for name in ("Chen", "Li", "Wang"):
        reference = base.ratings_for_player(name)
        assert [(p.day, p.rating, p.deviation) for p in ours[name]] == [(d, 1900 + r, s) for d, r, s in reference]
    # checked by hand: Chen won and drew, Wang beat Li and drew Chen, Li lost both
    final = {name: ours[name][-1].rating for name in ours}
    assert final["Li"] < 1900 < final["Chen"] and final["Li"] < final["Wang"]


def test_games_are_dated_by_day_both_ways() -> None:
    assert day_of(date(1970, 1, 2)) == 1 and date_of(day_of(date(2026, 11, 30))) == date(2026, 11, 30)


def test_the_w2_of_the_category_changes_the_ratings_as_the_rif_list_changed_in_2024() -> None:
    games = [Result("A", "B", "B", 100), Result("B", "C", "B", 200), Result("C", "A", "W", 400)]
    renju, gomoku, old = (whr_ratings(games, w2=w)["A"][-1].rating for w in (19.3, 10.7, 12.9))
    assert renju != old and gomoku != old and renju != gomoku  # a different list for each


def test_elo_k_is_read_from_the_games_before_the_day_and_holds_for_the_whole_day() -> None:
    """29 games before the day, then 3 on one day: K 40 for all three (30 is reached during the day); the
    next day, with 32 games, K 20."""
    rule = EloRule(initial=1500.0, k_new=40.0, new_games=30, k=20.0, k_top=10.0, top=2400.0)
    history = [Result("A", f"X{n}", "D", n) for n in range(29)]  # 29 draws with fresh 1500s: A stays 1500
    day = 100
    tournament = [Result("A", "Y1", "B", day), Result("A", "Y2", "B", day), Result("A", "Y3", "B", day)]
    after_day = elo_ratings(history + tournament, rule)["A"][-1].rating
    assert after_day == pytest.approx(1500.0 + 3 * 40 * 0.5)  # each win from 1500 against 1500: 40 × ½
    next_day = elo_ratings(history + tournament + [Result("A", "Z", "B", day + 1)], rule)["A"][-1].rating
    assert next_day - after_day == pytest.approx(20 * (1 - expected(after_day, 1500.0)))
    one_more_before = [*history, Result("A", "X29", "D", 29)]  # 30 games before the day: K 20 all day
    assert elo_ratings(one_more_before + tournament, rule)["A"][-1].rating == pytest.approx(1500.0 + 3 * 20 * 0.5)
