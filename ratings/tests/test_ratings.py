# ruff: noqa: E501  (a RenjuNet database written as it is, one element a line)
"""Rating lists from the database: RenjuNet import (every element kind, idempotent, malformed files
refused with their line and nothing written), a rated tournament's games dated at its end, recomputation."""

from __future__ import annotations

import io
from datetime import date

import pytest

from games.models import Player
from ratings.compute import Result, day_of, whr_ratings
from ratings.models import Category, ImportedTournament, RatedGame, Rating, RatingList, RatingPoint
from ratings.renjunet import Report, RifImportError, import_database
from ratings.services import rate_tournament, recompute

pytestmark = pytest.mark.django_db

DATABASE = """<?xml version="1.0" encoding="utf-8"?>
<database>
 <countries><country id="1" name="China" abbr="CHN"/><country id="2" name="Estonia" abbr="EST"/></countries>
 <cities><city id="10" country="1" name="Anji"/><city id="20" country="2" name="Tallinn"/></cities>
 <rules>
  <rule id="1" name="RIF" category="1"/><rule id="2" name="Gomoku" category="2"/><rule id="3" name="Other" category="3"/>
 </rules>
 <players>
  <player id="101" name="Wei" surname="Chen" native_name="陈伟" country="1" city="10" gender="1"/>
  <player id="102" name="Ants" surname="Soosorv" country="2" city="20" gender="1"/>
  <player id="103" name="Li" surname="Ming" native_name="李明" country="1" city="10" gender="2"/>
 </players>
 <tournaments>
  <tournament id="7" name="Anji Open" country="1" city="10" start="2026-05-01" end="2026-05-05" rule="1" rated="1"/>
  <tournament id="8" name="Club night" country="2" city="20" start="2026-06-01" end="2026-06-01" rule="1" rated="0"/>
  <tournament id="9" name="Gomoku cup" country="2" city="20" start="0000-00-00" end="0000-00-00" year="2026" month="2" rule="2" rated="1"/>
 </tournaments>
 <games>
  <game id="1001" tournament="7" round="1" rule="1" black="101" white="102" bresult="1" opening="1"><move>h8 h9 i9</move></game>
  <game id="1002" tournament="7" round="2" rule="1" black="102" white="103" bresult="0.5"><move>h8</move></game>
  <game id="1003" tournament="7" round="3" rule="1" black="103" white="101" bresult="0"><move>h8</move></game>
  <game id="1004" tournament="7" round="4" rule="1" black="101" white="103" bresult="1" unrated="1"><move>h8</move></game>
  <game id="1005" tournament="7" round="5" rule="1" black="101" white="103" bresult=""><move>h8</move></game>
  <game id="1006" tournament="8" round="1" rule="1" black="101" white="102" bresult="1"><move>h8</move></game>
  <game id="1007" tournament="9" round="1" rule="2" black="102" white="103" bresult="1"><move>h8</move></game>
 </games>
</database>
"""


def load(text: str = DATABASE) -> Report:
    return import_database(io.BytesIO(text.encode()))


def test_a_renjunet_database_becomes_players_tournaments_and_rated_games() -> None:
    report = load()
    chen = Player.objects.get(renjunet_id=101)
    assert (chen.name, chen.native_name, chen.country, chen.city) == ("Wei Chen", "陈伟", "China", "Anji")
    assert ImportedTournament.objects.count() == 3
    assert ImportedTournament.objects.get(renjunet_id=9).end == date(2026, 2, 28)  # year and month only
    rated = {g.renjunet_id: g for g in RatedGame.objects.all()}
    assert set(rated) == {1001, 1002, 1003, 1007}  # 1004 unrated, 1005 no result, 1006 unrated tournament
    assert rated[1001].played_on == date(2026, 5, 5) and rated[1001].result == "B"  # dated at the end
    assert (rated[1002].result, rated[1003].result) == ("D", "W")
    assert rated[1007].category == Category.GOMOKU and rated[1001].category == Category.RENJU
    assert (report.games_new, report.games_unrated) == (4, 3)


def test_importing_again_changes_nothing() -> None:
    load()
    before = (Player.objects.count(), ImportedTournament.objects.count(), RatedGame.objects.count())
    report = load()
    assert (Player.objects.count(), ImportedTournament.objects.count(), RatedGame.objects.count()) == before
    assert (report.games_new, report.games_known) == (0, 4)


@pytest.mark.parametrize(
    ("broken", "line"),
    [
        (DATABASE.replace('<player id="102" name="Ants"', '<player id="102" name="Ants" name="x"'), 10),
        (DATABASE.replace("</games>", "</game>"), 26),
    ],
)
def test_a_malformed_file_is_refused_with_its_line_and_nothing_written(broken: str, line: int) -> None:
    with pytest.raises(RifImportError) as caught:
        load(broken)
    assert caught.value.line == line
    assert not Player.objects.exists() and not RatedGame.objects.exists()


def test_a_game_naming_an_unknown_player_is_refused_before_anything_is_written() -> None:
    with pytest.raises(RifImportError) as caught:
        load(DATABASE.replace('black="102" white="103" bresult="0.5"', 'black="999" white="103" bresult="0.5"'))
    assert "999" in caught.value.message and not Player.objects.exists()


def test_a_list_is_recomputed_from_its_categorys_games() -> None:
    load()
    whr_list = RatingList.objects.create(name="RIF renju", method="whr", category="renju", provisional_games=3)
    elo_list = RatingList.objects.create(name="Club Elo", method="elo", category="renju")
    assert recompute(rating_list=whr_list) == 3 and recompute(rating_list=elo_list) == 3
    ids = dict(Player.objects.values_list("renjunet_id", "pk"))
    day = day_of(date(2026, 5, 5))
    expected = whr_ratings(
        [
            Result(str(ids[101]), str(ids[102]), "B", day),
            Result(str(ids[102]), str(ids[103]), "D", day),
            Result(str(ids[103]), str(ids[101]), "W", day),
        ],
        w2=19.3,  # the RIF's renju value since April 2024: the list's default
    )
    for renjunet_id in (101, 102, 103):
        rating = Rating.objects.get(rating_list=whr_list, player_id=ids[renjunet_id])
        assert rating.rating == pytest.approx(expected[str(ids[renjunet_id])][-1].rating)
        assert rating.games == 2 and rating.provisional  # two games, fewer than three
    chen = Rating.objects.get(rating_list=elo_list, player_id=ids[101])
    assert chen.rating == pytest.approx(1540.0)  # two wins from 1500 on one day, K 40
    assert RatingPoint.objects.filter(rating_list=whr_list, player_id=ids[101]).count() == 1


def test_a_rated_tournament_s_games_are_dated_at_its_end_and_forfeits_do_not_count() -> None:
    from games.models import Game
    from tournament.models import Tournament
    from tournament.simulate import simulate

    sim = simulate(players=5, seed=2)
    tournament = sim.tournament
    assert tournament.status == Tournament.Status.FINISHED
    assert rate_tournament(tournament=tournament) == 0  # not rated
    Tournament.objects.filter(pk=tournament.pk).update(rated=True, end_date=date(2026, 11, 30), rules="freestyle")
    tournament.refresh_from_db()
    counted = Game.objects.filter(match_game__match__tournament=tournament, match_game__counted=True, status="finished")
    assert rate_tournament(tournament=tournament) == counted.count() > 0
    assert set(RatedGame.objects.values_list("played_on", "category").distinct()) == {(date(2026, 11, 30), "gomoku")}
    forfeited = counted.first()
    Game.objects.filter(pk=forfeited.pk).update(result_reason="forfeit")
    assert rate_tournament(tournament=tournament) == counted.count() - 1
    assert not RatedGame.objects.filter(game=forfeited).exists()


def test_the_list_and_the_player_page_show_ratings_and_the_history_chart() -> None:
    from django.test import Client

    load()
    whr_list = RatingList.objects.create(name="RIF renju", method="whr", category="renju")
    recompute(rating_list=whr_list)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    page = client.get(f"/ratings/{whr_list.pk}/?country=China").content.decode()
    assert "Wei Chen" in page and "陈伟" in page and "Ants Soosorv" not in page  # filtered by country
    chen = Player.objects.get(renjunet_id=101)
    page = client.get(f"/players/{chen.pk}/").content.decode()
    assert "RIF renju" in page and "<polyline" in page
    table = client.get(f"/api/ratings/{whr_list.pk}/table/").json()
    assert [row["rank"] for row in table] == [1, 2, 3] and table[0]["rating"] >= table[-1]["rating"]


def test_ratings_at_the_start_seed_a_rated_tournament_and_its_games_feed_the_lists() -> None:
    from django.test import Client

    from tournament import services
    from tournament.models import Entry
    from tournament.simulate import simulate

    load()  # RenjuNet's renju games
    renju = RatingList.objects.create(name="RIF renju", method="whr", category="renju")
    recompute(rating_list=renju)
    chen = Player.objects.get(renjunet_id=101)
    tournament = services.tournament_create(name="Rated open", preset="renju-rif", rated=True)
    services.register(tournament=tournament, player=chen)
    services.register(tournament=tournament, player=Player.objects.create(name="Newcomer", rating=1750))
    services.draw_stage(stage=tournament.stages.get(), seed=1)
    fixed = dict(Entry.objects.filter(tournament=tournament).values_list("player__name", "rating"))
    assert fixed == {"Wei Chen": round(Rating.objects.get(rating_list=renju, player=chen).rating), "Newcomer": 1750}

    sim = simulate(players=5, seed=3)  # a gomoku tournament, finished; rated after the fact
    type(sim.tournament).objects.filter(pk=sim.tournament.pk).update(rated=True)
    gomoku = RatingList.objects.create(name="Club Elo", method="elo", category="gomoku")
    from ratings.tasks import rate_and_recompute

    assert rate_and_recompute(sim.tournament.pk) == 1
    rated_players = Rating.objects.filter(rating_list=gomoku).count()
    assert rated_players == 5 + 2  # the tournament's five, and the two of RenjuNet's gomoku cup
    someone = Entry.objects.filter(tournament=sim.tournament).first().player
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/players/{someone.pk}/").content.decode()
    assert "expected score" in page and "rating change (Elo)" in page and "Club Elo" in page


def test_our_tournament_exported_as_rif_is_what_a_renjunet_import_reads() -> None:
    """Exported for RenjuNet (players with native names, countries, cities; the tournament; rules with
    their category), then read back by the RenjuNet import: the same players and rated games."""
    from games.exports import export_rif
    from games.models import Game
    from tournament.selectors import rif_tournament
    from tournament.simulate import simulate

    sim = simulate(players=5, seed=4)
    tournament = type(sim.tournament).objects.get(pk=sim.tournament.pk)
    type(tournament).objects.filter(pk=tournament.pk).update(rated=True, end_date=date(2026, 11, 29))
    tournament.refresh_from_db()
    Player.objects.filter(entries__tournament=tournament).update(native_name="棋手", country="China", city="Anji")
    # read after the update: the export takes the players as stored
    games = list(Game.objects.filter(match_game__match__tournament=tournament).select_related("black", "white"))
    text = export_rif(games, sim.tournament.created_at, rif_tournament(tournament))
    assert "<countries>" in text and 'category="2"' in text  # free-style: RenjuNet's gomoku category
    Player.objects.update(renjunet_id=None)
    report = import_database(io.BytesIO(text.encode()))
    assert report.players == 5
    imported = Player.objects.filter(renjunet_id__isnull=False)
    assert {p.native_name for p in imported} == {"棋手"} and {p.city for p in imported} == {"Anji"}
    finished = [g for g in games if g.result]
    assert RatedGame.objects.filter(renjunet_id__isnull=False).count() == len(finished)
    assert set(RatedGame.objects.values_list("played_on", flat=True)) == {date(2026, 11, 29)}
