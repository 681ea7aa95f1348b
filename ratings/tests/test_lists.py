"""The rating lists a tournament feeds: made once when the first rated tournament of a category starts (in
the site's language), their WHR parameters by category, and what the control room says of them."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.test import override_settings
from django.utils import translation

from games.models import Player
from ratings.compute import RIF_W2, RIF_W2_2021
from ratings.models import RatingList
from ratings.services import ensure_default_lists, fix_start_ratings, lists_fed_by
from tournament import services

pytestmark = pytest.mark.django_db


def test_the_default_lists_are_made_once_per_category_in_the_sites_language() -> None:
    with override_settings(LANGUAGE_CODE="zh-hans"), translation.override("en"):
        made = ensure_default_lists("renju")
    again = ensure_default_lists("renju")

    assert sorted((r.method, r.name) for r in made) == [("elo", "连珠（Elo）"), ("whr", "连珠（WHR）")]
    assert {r.pk for r in again} == {r.pk for r in made}
    assert not RatingList.objects.filter(category="gomoku").exists()  # only the category asked for


def test_a_category_with_a_list_of_its_own_gets_no_defaults() -> None:
    own = RatingList.objects.create(name="Club", method="elo", category="gomoku")
    assert ensure_default_lists("gomoku") == [own]


@pytest.mark.parametrize(
    ("category", "w2", "expected"),
    [("renju", None, RIF_W2["renju"]), ("gomoku", None, RIF_W2["gomoku"]), ("renju", RIF_W2_2021, 12.9)],
)
def test_a_lists_w2_is_its_own_or_the_rifs_current_value_for_its_category(
    category: str, w2: float | None, expected: float
) -> None:
    assert RatingList(name="x", category=category, w2=w2).whr_w2 == expected


def test_an_unrated_tournament_makes_no_list_and_a_rated_one_does_when_it_starts() -> None:
    casual = services.tournament_create(name="Casual")
    fix_start_ratings(casual)
    assert not RatingList.objects.exists() and lists_fed_by(casual) == []
    rated = services.tournament_create(name="Rated", rated=True)  # the seed preset: free-style, gomoku
    services.register(tournament=rated, player=Player.objects.create(name="A", rating=1600))
    fix_start_ratings(rated)
    assert [r.method for r in lists_fed_by(rated)] == ["whr", "elo"]  # WHR first
    assert rated.entries.get().rating == 1600  # unrated on the new list: their own rating


def test_the_control_room_says_which_lists_a_tournament_feeds() -> None:
    tag = Template("{% load rating_labels %}{% rating_lists_fed tournament %}")
    casual = services.tournament_create(name="Casual")
    rated = services.tournament_create(name="Rated", rated=True, rules="renju")
    with translation.override("en"):
        assert "not rated" in tag.render(Context({"tournament": casual}))
        before = tag.render(Context({"tournament": rated}))
        ensure_default_lists("renju")
        after = tag.render(Context({"tournament": rated}))
    assert "the renju lists (WHR and Elo) are made when it starts" in before
    lists = RatingList.objects.filter(category="renju")
    assert "rated: feeds" in after and all(f"/ratings/{r.pk}/" in after for r in lists)
