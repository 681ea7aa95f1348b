# ruff: noqa: E501  (RenjuNet databases written as they are, one element a line)
"""A newer RenjuNet file converges the database to it (a merge made later, a corrected result, a tournament
switched to rated or given corrected dates, a game gone), with ratings equal to importing the newer file
alone; hostile files are refused with their line and id, quickly, and nothing is written."""

from __future__ import annotations

import io
import time
from datetime import date

import pytest

from games.models import Player
from ratings.models import ImportedTournament, RatedGame, Rating, RatingList
from ratings.renjunet import MAX_TAG, Report, RifImportError, import_database
from ratings.services import recompute

pytestmark = pytest.mark.django_db

OLD = """<?xml version="1.0" encoding="utf-8"?>
<database>
 <countries><country id="1" name="China" abbr="CHN"/></countries>
 <cities/>
 <rules><rule id="1" name="RIF" category="1"/><rule id="3" name="Other" category="3"/></rules>
 <players>
  <player id="1" name="Wei" surname="Chen" country="1"/>
  <player id="2" name="Ants" surname="Soosorv" country="1"/>
  <player id="3" name="Li" surname="Ming" country="1"/>
  <player id="4" name="W." surname="Chen" country="1"/>
 </players>
 <tournaments>
  <tournament id="7" name="Anji Open" country="1" start="2026-05-01" end="2026-05-05" rule="1" rated="1"/>
  <tournament id="8" name="Club day" country="1" start="2026-06-01" end="2026-06-01" rule="1" rated="0"/>
  <tournament id="9" name="Other rule" country="1" start="2026-06-10" end="2026-06-11" rule="3" rated="1"/>
  <tournament id="10" name="Type 2" country="1" start="2026-06-20" end="2026-06-21" rule="1" rated="1" type="2"/>
 </tournaments>
 <games>
  <game id="100" tournament="7" rule="1" black="1" white="2" bresult="1"/>
  <game id="101" tournament="7" rule="1" black="4" white="3" bresult="0"/>
  <game id="102" tournament="7" rule="1" black="2" white="3" bresult="0.5"/>
  <game id="103" tournament="8" rule="1" black="3" white="1" bresult="1"/>
  <game id="104" tournament="7" rule="1" black="3" white="2" bresult="1"/>
  <game id="105" tournament="9" rule="1" black="1" white="3" bresult="1"/>
  <game id="106" tournament="10" rule="1" black="2" white="1" bresult="1"/>
 </games>
</database>
"""

# RenjuNet a month later: 4 merged into 1, game 100's result corrected, tournament 8 now rated, tournament
# 7's dates corrected, game 104 deleted, Li Ming's name corrected.
NEW = (
    OLD.replace(
        '<player id="4" name="W." surname="Chen" country="1"/>',
        '<player id="4" name="W." surname="Chen" country="1" disp_id="1"/>',
    )
    .replace('black="1" white="2" bresult="1"/>', 'black="1" white="2" bresult="0.5"/>')
    .replace('end="2026-06-01" rule="1" rated="0"', 'end="2026-06-01" rule="1" rated="1"')
    .replace('start="2026-05-01" end="2026-05-05"', 'start="2026-04-01" end="2026-04-03"')
    .replace('  <game id="104" tournament="7" rule="1" black="3" white="2" bresult="1"/>\n', "")
    .replace('name="Li" surname="Ming"', 'name="Li" surname="Mingming"')
)


def load(text: str) -> Report:
    return import_database(io.BytesIO(text.encode()))


def state() -> tuple[dict[int, tuple[str, int | None, int | None, str, date]], dict[int, float]]:
    """The imported games (by RenjuNet id: category, black's and white's RenjuNet ids, result, date) and the
    renju list's ratings by RenjuNet id, after a recompute."""
    renju, _new = RatingList.objects.get_or_create(name="RIF renju", defaults={"method": "whr", "category": "renju"})
    recompute(rating_list=renju)
    games = {
        g.renjunet_id: (g.category, g.black.renjunet_id, g.white.renjunet_id, g.result, g.played_on)
        for g in RatedGame.objects.select_related("black", "white")
    }
    ratings = {
        r.player.renjunet_id: round(r.rating, 6)
        for r in Rating.objects.filter(rating_list=renju).select_related("player")
    }
    return games, ratings


def test_a_newer_file_converges_to_what_importing_it_alone_gives() -> None:
    load(OLD)
    before = dict(RatedGame.objects.values_list("renjunet_id", "result"))
    assert set(before) == {100, 101, 102, 104}  # 103 unrated tournament, 105 rule of no category, 106 type 2

    report = load(NEW)
    assert (report.merges_applied, report.games_removed) == (1, 1)
    assert report.games_changed >= 2 and report.tournaments_updated == 2 and report.players_updated >= 1
    after_update = state()

    RatedGame.objects.all().delete()
    ImportedTournament.objects.all().delete()
    Rating.objects.all().delete()
    Player.objects.filter(renjunet_id__isnull=False).update(renjunet_id=None)
    load(NEW)
    alone = state()

    assert after_update == alone
    games, ratings = alone
    assert set(games) == {100, 101, 102, 103}
    assert games[100][3] == "D" and games[101][1] == 1  # corrected result; 4's game now Chen's
    assert games[102][4] == date(2026, 4, 3)  # the corrected end date dates the games
    assert 4 not in ratings and Player.objects.get(renjunet_id=3).name == "Li Mingming"
    assert load(NEW).changes() == (
        "players updated 0, merges applied 0, tournaments new 0, updated 0; games new 0, changed 0, removed 0, unchanged 4"
    )


HOSTILE = [
    (
        '<player id="2" name="Ants" surname="Soosorv" country="1"/>',
        '<player id="' + "9" * 5000 + '" name="X"/>',
        "too large",
    ),
    ('start="2026-06-01" end="2026-06-01"', 'start="2026-13-01" end="2026-13-02"', "not a day of the calendar"),
    ('start="2026-06-01" end="2026-06-01"', 'start="2026-02-30" end="2026-02-30"', "not a day of the calendar"),
    ('start="2026-06-01" end="2026-06-01"', 'start="10000-01-01" end="10000-01-02"', "not a date"),
    ('rated="0"', 'rated="0" year="10000" month="1"', "year"),
    ('<game id="101"', '<game id="0100"', "used twice"),
    ('<player id="3"', '<player id="01"', "used twice"),
]


@pytest.mark.parametrize(("old", "new", "said"), HOSTILE)
def test_a_hostile_file_is_refused_with_its_line_and_nothing_is_written(old: str, new: str, said: str) -> None:
    text = OLD.replace(old, new, 1)
    assert text != OLD
    started = time.perf_counter()
    with pytest.raises(RifImportError) as refused:
        load(text)
    assert time.perf_counter() - started < 1.0
    assert said in refused.value.message and refused.value.line > 0
    assert not RatedGame.objects.exists() and not ImportedTournament.objects.exists()


def test_a_huge_attribute_is_refused_while_reading() -> None:
    huge = OLD.replace('name="Wei"', 'name="' + "x" * (8 * 1024 * 1024) + '"', 1)
    started = time.perf_counter()
    with pytest.raises(RifImportError) as refused:
        load(huge)
    assert time.perf_counter() - started < 1.0
    assert f"longer than {MAX_TAG} bytes" in refused.value.message and refused.value.line == 7  # Wei Chen's
    assert not Player.objects.filter(renjunet_id__isnull=False).exists()
