"""Over-the-board games entered as records as the null model's honest references: which games count (finished,
at the board, two rated players, long enough), each player's moves in the band of their rating, and the fit
taking them in beside the synthetic players' (with their score against the synthetic-only fit kept)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.rules import find_rules
from fairplay.calibrate import band_of, calibrate, fit, honest_games
from fairplay.references import reference_sides
from fairplay.screening import Settings
from fairplay.services import time_class_of
from fairplay.stats import CALIBRATION, load, time_class
from fairplay.synthetic import PROFILES, Honest, play
from fairplay.tests.helpers import played, round_one
from games.models import Game, Player
from games.services import game_import
from games.tests.factories import UserFactory

pytestmark = pytest.mark.django_db
QUICK = Settings(depth=2, nodes=400, candidates=4, vcf_nodes=300)


def entered(black: str, white: str, stones: list[str], clock: str = "") -> Game:
    result = "1-0" if len(stones) % 2 else "0-1"  # the last stone made the five
    timed = f'[TimeControl "{clock}"]\n' if clock else ""
    header = f'[Black "{black}"]\n[White "{white}"]\n[Rule "freestyle"]\n[Result "{result}"]\n{timed}'
    return game_import(text=f"{header}\n{' '.join(stones)}\n")


def rated(name: str, rating: int | None) -> Player:
    player = Player.objects.create(name=name, rating=rating, user=UserFactory())
    return player


def test_rated_players_games_at_the_board_are_references_in_the_band_of_their_rating() -> None:
    rules = find_rules("freestyle")
    stones, _times = play(Honest(PROFILES["club"], rules, 5), Honest(PROFILES["club"], rules, 6), rules)
    assert len(stones) >= 10
    rated("Novice Nora", 1320), rated("Expert Erik", 2150), rated("Unrated Ulla", None)
    counted = entered("Novice Nora", "Expert Erik", stones)
    entered("Unrated Ulla", "Expert Erik", stones)  # one player without a rating: not a reference
    entered("Expert Erik", "Novice Nora", ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"])  # too short
    # a finished online game of two rated players, long enough: screened, never a reference
    online = played(round_one()[1][0], ["h8", "a1", "j10", "a3", "g6", "a5", "k11", "a7", "f5", "a9", "l12", "a11"])
    assert online.status == "finished" and online.black is not None and online.black.rating is not None

    entered("Expert Erik", "Novice Nora", stones, clock="quick")  # at the seed's quick play: a fast game

    sides = reference_sides(QUICK)
    novice, expert = ("novice", ""), ("expert", "")
    assert sorted(sides) == [expert, ("expert", "fast"), novice, ("novice", "fast")]
    assert all(len(found) == 1 for found in sides.values())
    assert {m.color for m in sides[novice][0]} == {"black"} and {m.color for m in sides[expert][0]} == {"white"}
    assert len(sides[novice][0]) + len(sides[expert][0]) == len(stones)
    assert reference_sides(QUICK, tournaments=[]) == {}  # none of these tournaments
    assert Game.objects.filter(pk=counted.pk, mode="otb").exists()
    assert (band_of(1499), band_of(1500), band_of(2000), band_of(0)) == ("novice", "club", "expert", "novice")

    alone = calibrate(2, bands=["novice", "expert"], settings=QUICK)
    together = calibrate(2, bands=["novice", "expert"], settings=QUICK, references=sides)
    real = sum(1 for key in (expert, ("expert", "fast")) for m in sides[key][0] if m.counted)
    assert together.band_for(2150).moves == alone.band_for(2150).moves + real  # every time control's row
    assert together.summary["references"] == {"expert": 1, "expert/fast": 1, "novice": 1, "novice/fast": 1}
    assert isinstance(together.summary["reference_z_mean"], float)
    # too few real choices in fast games for a row of their own; with a lower bar, the row and its use
    assert together.band_for(2150, "fast").time_class == ""
    synthetic = {"expert": honest_games(PROFILES["expert"], 1, 3, QUICK)}
    fast = sum(1 for m in sides[("expert", "fast")][0] if m.counted)
    own = fit(synthetic, QUICK, {k: v for k, v in sides.items() if k[0] == "expert"}, min_class_moves=fast)
    assert own.band_for(2150, "fast").label == "expert · fast" and own.band_for(2150, "fast").moves == fast
    assert own.band_for(2150, "rapid").time_class == "" and own.band_for(2150).time_class == ""


def test_a_time_control_s_class_is_a_players_time_for_a_30_move_game() -> None:
    assert time_class_of({"preset": "quick"}) == "fast"  # 5 minutes, then 8 stones at 30 s: 9 minutes
    assert time_class_of({"main_ms": 1_800_000, "increment_ms": 30_000}) == "rapid"  # 30 min + 15 min
    assert time_class_of({"main_ms": 1_800_000, "increment_ms": 60_000}) == "classical"  # 30 min + 30 min
    assert time_class_of({"move_ms": 20_000}) == "fast"  # 20 s a move, 10 minutes a game
    assert time_class_of("untimed") == time_class_of(None) == time_class_of({"main_ms": "x"}) == ""
    assert time_class(0, 0, 0, 0) == "" and time_class(3600, 0, 0, 0) == "classical"


def test_the_command_fits_the_records_and_writes_where_it_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = find_rules("freestyle")
    stones, _times = play(Honest(PROFILES["club"], rules, 7), Honest(PROFILES["club"], rules, 8), rules)
    rated("Club Carla", 1650), rated("Club Carlo", 1720)
    entered("Club Carla", "Club Carlo", stones)
    shipped = CALIBRATION.read_bytes()
    monkeypatch.setattr("fairplay.management.commands.fairplay_calibrate.SETTINGS", QUICK)
    out = io.StringIO()
    target = tmp_path / "calibration.json"
    call_command(
        "fairplay_calibrate",
        "--games",
        "1",
        "--held-out",
        "0",
        "--jobs",
        "1",
        "--records",
        "--output",
        str(target),
        stdout=out,
    )
    fitted = load(target)
    assert fitted.summary["references"] == {"club": 2} and "{'club': 2}" in out.getvalue()
    assert fitted.settings == QUICK.to_dict() and CALIBRATION.read_bytes() == shipped  # the shipped file untouched
