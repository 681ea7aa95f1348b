# ruff: noqa: E501  (RenjuNet databases written as they are, one element a line)
"""RenjuNet read the way the RIF's list reads it (merged players, tournament types, the tournament's rule,
numeric results), and an import that is checked whole and written all or nothing: bad ids and long fields
refused with their element's id and line, and not one row written."""

from __future__ import annotations

import io
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from games.models import Player
from ratings.compute import RIF_W2, Result, day_of, whr_ratings
from ratings.models import ImportedTournament, RatedGame, Rating, RatingList
from ratings.renjunet import RifImportError, import_database, result_of
from ratings.services import recompute

pytestmark = pytest.mark.django_db

BASE = """<?xml version="1.0" encoding="utf-8"?>
<database>
 <countries><country id="1" name="China" abbr="CHN"/></countries>
 <cities><city id="10" country="1" name="Anji"/></cities>
 <rules><rule id="1" name="RIF" category="1"/><rule id="2" name="Gomoku" category="2"/></rules>
 <players>
  <player id="101" name="Wei" surname="Chen" country="1" city="10"/>
  <player id="102" name="Ants" surname="Soosorv" country="1"/>
  <player id="103" name="Li" surname="Ming" country="1"/>
  <player id="104" name="W." surname="Chen" country="1" disp_id="101"/>
  <player id="105" name="Wei" surname="Chen (2)" country="1" disp_id="104"/>
 </players>
 <tournaments>
  <tournament id="7" name="Anji Open" country="1" city="10" start="2026-05-01" end="2026-05-05" rule="1" rated="1"/>
  <tournament id="8" name="Team cup" country="1" start="2026-06-01" end="2026-06-02" rule="1" rated="1" type="1"/>
  <tournament id="9" name="Gomoku cup" country="1" start="2026-07-01" end="2026-07-03" rule="2" rated="1"/>
 </tournaments>
 <games>
  <game id="2001" tournament="7" round="1" rule="1" black="104" white="102" bresult="1.0"/>
  <game id="2002" tournament="7" round="2" rule="2" black="102" white="103" bresult="0.50"/>
  <game id="2003" tournament="7" round="3" rule="1" black="103" white="105" bresult="0.00"/>
  <game id="2004" tournament="7" round="4" rule="1" black="101" white="104" bresult="1"/>
  <game id="2005" tournament="8" round="1" rule="1" black="101" white="103" bresult="1"/>
  <game id="2006" tournament="9" round="1" rule="1" black="102" white="103" bresult="0.5"/>
  <game id="2007" tournament="7" round="5" rule="1" black="102" white="101" bresult=""/>
 </games>
</database>
"""


def load(text: str = BASE) -> object:
    return import_database(io.BytesIO(text.encode()))


def counts() -> tuple[int, int, int]:
    return Player.objects.count(), ImportedTournament.objects.count(), RatedGame.objects.count()


def test_a_merged_player_is_rated_as_the_player_their_disp_id_names() -> None:
    load()
    chen = Player.objects.get(renjunet_id=101)
    assert not Player.objects.filter(renjunet_id__in=[104, 105]).exists()  # no player of their own
    assert chen.renjunet_merged == [104, 105]  # both ids kept (105 → 104 → 101)
    games = {g.renjunet_id: g for g in RatedGame.objects.all()}
    assert games[2001].black_id == chen.pk and games[2003].white_id == chen.pk
    assert 2004 not in games  # Chen against his own duplicate: one person, no game


def test_a_type_1_tournament_is_kept_and_not_rated() -> None:
    load()
    team = ImportedTournament.objects.get(renjunet_id=8)
    assert (team.kind, team.rated) == ("1", False)
    assert not RatedGame.objects.filter(renjunet_id=2005).exists()


def test_the_tournaments_rule_decides_the_category_of_its_games() -> None:
    load()
    games = {g.renjunet_id: g for g in RatedGame.objects.all()}
    assert games[2002].category == "renju"  # a game marked gomoku in a renju tournament
    assert games[2006].category == "gomoku"  # a game marked renju in a gomoku tournament


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("1", "B"),
        ("1.0", "B"),
        ("1.00", "B"),
        ("0.5", "D"),
        ("0.50", "D"),
        (".5", None),
        ("0", "W"),
        ("0.00", "W"),
        ("", None),
    ],
)
def test_numeric_results_are_read_as_numbers(text: str, result: str | None) -> None:
    if text == ".5":
        with pytest.raises(ValueError):
            result_of(text)
        return
    assert result_of(text) == result


def test_results_written_any_numeric_way_are_rated_and_others_are_refused_with_the_line() -> None:
    load()
    games = {g.renjunet_id: g.result for g in RatedGame.objects.all()}
    assert games == {2001: "B", 2002: "D", 2003: "W", 2006: "D"}  # 2007 has no result: not rated
    bad = BASE.replace('bresult="0.50"', 'bresult="2"')
    RatedGame.objects.all().delete()
    with pytest.raises(RifImportError) as refused:
        load(bad)
    assert refused.value.line == 20 and "game 2002" in refused.value.message and "'2'" in refused.value.message


@pytest.mark.parametrize(
    ("change", "where", "line"),
    [
        (('<game id="2002"', '<game id="1234567890123456789012345678901234567890"'), "game id", 20),
        (('<player id="103"', '<player id="9999999999999999999999999999999999999999"'), "player id", 9),
        (('<tournament id="9"', '<tournament id="99999999999999999999"'), "tournament id", 16),
        (('surname="Ming"', 'surname="' + "M" * 1_000_000 + '"'), "player 103", 9),
        (('name="Gomoku cup"', 'name="' + "G" * 201 + '"'), "tournament 9", 16),
        (('round="3"', 'round="' + "3" * 21 + '"'), "game 2003", 21),
        (('disp_id="101"', 'disp_id="105"'), "disp_id", 10),
        (('<game id="2003"', '<game id="2002"'), "game id 2002 is used twice", 21),
    ],
)
def test_a_bad_id_or_a_field_too_long_is_refused_with_its_line_and_nothing_is_written(
    change: tuple[str, str], where: str, line: int
) -> None:
    before = counts()
    with pytest.raises(RifImportError) as refused:
        load(BASE.replace(*change))
    assert refused.value.line == line, refused.value.message
    assert where in refused.value.message
    assert counts() == before == (0, 0, 0)


def test_an_id_above_32_bits_is_kept_whole() -> None:
    big = 2**31 + 5
    load(
        BASE.replace('<game id="2002"', f'<game id="{big}"')
        .replace('<player id="103"', f'<player id="{big}"')
        .replace('"103"', f'"{big}"')
    )
    assert RatedGame.objects.filter(renjunet_id=big).exists()
    assert Player.objects.get(renjunet_id=big).name == "Li Ming"


def test_an_import_that_fails_while_writing_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    original = RatedGame.objects.bulk_create
    calls = []

    def failing(objs: list[RatedGame], **kwargs: object) -> list[RatedGame]:
        calls.append(len(objs))
        if len(calls) == 2:
            raise RuntimeError("the disk filled up")
        return original(objs, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(RatedGame.objects, "bulk_create", failing)
    with pytest.raises(RuntimeError):
        import_database(io.BytesIO(BASE.encode()), batch=2)
    assert counts() == (0, 0, 0)  # players and tournaments read before it are gone too
    monkeypatch.setattr(RatedGame.objects, "bulk_create", original)
    load()  # run again: the whole file goes in
    assert RatedGame.objects.count() == 4


def test_the_command_names_the_line_and_writes_nothing(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    path = tmp_path / "bad.rif"
    path.write_text(BASE.replace('<game id="2002"', '<game id="1234567890123456789012345678901234567890"'))
    with pytest.raises(CommandError) as refused:
        call_command("import_renjunet", str(path))
    assert str(refused.value).startswith("line 20: game id 1234567890123456789012345678901234567890 is too large")
    assert counts() == (0, 0, 0)


def test_a_list_computes_with_its_own_parameters_and_its_page_states_them() -> None:
    from django.test import Client

    load()
    current = RatingList.objects.create(name="RIF renju", method="whr", category="renju")
    old = RatingList.objects.create(name="RIF renju 2021", method="whr", category="renju", w2=12.9)
    recompute(rating_list=current)
    recompute(rating_list=old)
    chen = Player.objects.get(renjunet_id=101)
    ids = dict(Player.objects.values_list("renjunet_id", "pk"))
    day = day_of(date(2026, 5, 5))
    games = [
        Result(str(ids[101]), str(ids[102]), "B", day),
        Result(str(ids[102]), str(ids[103]), "D", day),
        Result(str(ids[103]), str(ids[101]), "W", day),
    ]
    for rating_list, w2 in ((current, RIF_W2["renju"]), (old, 12.9)):
        expected = whr_ratings(games, w2=w2)[str(chen.pk)][-1].rating
        assert Rating.objects.get(rating_list=rating_list, player=chen).rating == pytest.approx(expected)
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/ratings/{current.pk}/").content.decode()
    assert "w² 19.3" in page and "2 virtual draws" in page and "1900" in page
    page_old = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/ratings/{old.pk}/").content.decode()
    assert "w² 12.9" in page_old
