from __future__ import annotations

import subprocess
import sys

import pytest

from engine.notation import Point
from engine.offers import are_symmetric, symmetric_pairs
from engine.openings import LINEAR_MAPS, OPENINGS, Opening, Verdict, apply_map, from_offset, identify, offset, openings
from engine.tests.positions import interleave


def test_catalogue_has_13_direct_and_13_indirect() -> None:
    assert [o.number for o in OPENINGS] == list(range(1, 27))
    assert sum(o.kind == "direct" for o in OPENINGS) == sum(o.kind == "indirect" for o in OPENINGS) == 13
    assert OPENINGS[2].summary() == "3 3D 疏星 Sosei"
    assert OPENINGS[19].name_zh_variants == ("浦月 (seed 002 and Japanese kanji)",)


@pytest.mark.parametrize("opening", OPENINGS, ids=lambda o: o.code)
@pytest.mark.parametrize("symmetry", range(8))
def test_every_opening_identified_in_every_orientation(opening: Opening, symmetry: int) -> None:
    stones = [from_offset(*apply_map(symmetry, *offset(p))) for p in opening.stones]

    found = identify(stones)

    assert found is not None and found.opening == opening
    back = [from_offset(*apply_map(found.symmetry, *offset(p))) for p in stones]
    assert back == list(opening.stones)


def test_every_5x5_third_stone_is_one_of_the_26() -> None:
    seen = set()
    for w2 in [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]:
        for b3 in [(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if (dx, dy) not in ((0, 0), w2)]:
            found = identify([Point(7, 7), from_offset(*w2), from_offset(*b3)])
            assert found is not None
            seen.add(found.opening.number)
    assert seen == set(range(1, 27))


def test_52_openings_extend_with_the_7x7_ring() -> None:
    extra = openings(include_52=True)[26:]

    assert len(extra) == 26 and {o.number for o in extra} == set(range(27, 53))
    assert identify([Point.parse(p) for p in ("h8", "h9", "h11")]) is None
    found = identify([Point.parse(p) for p in ("h8", "h9", "h11")], include_52=True)
    assert found is not None and found.opening.number > 26


@pytest.mark.parametrize("stones", [("h8", "h10", "h9"), ("g8", "h9", "j10"), ("h8", "h9", "k11")])
def test_not_an_opening_is_named_as_such(stones: tuple[str, str, str]) -> None:
    assert identify([Point.parse(p) for p in stones]) is None


@pytest.mark.parametrize(
    ("code", "n", "verdict"),
    [
        ("1D", 2, Verdict.BLACK_WINS),
        ("1D", 5, Verdict.BALANCED),
        ("1D", 12, Verdict.WHITE_WINS),
        ("3D", 7, Verdict.BALANCED),
        ("3D", 8, Verdict.WHITE_WINS),
        ("4D", 8, Verdict.BALANCED),
        ("4D", 9, Verdict.UNKNOWN),
        ("13I", 1, Verdict.WHITE_WINS),
        ("9D", 0, Verdict.UNKNOWN),
    ],
)
def test_yamaguchi_table_verdicts(code: str, n: int, verdict: Verdict) -> None:
    opening = next(o for o in OPENINGS if o.code == code)

    assert opening.yamaguchi_verdict(n) is verdict


# Offer cases S1-S6 of tricky-positions.md part 3: (four stones in play order, offers, symmetric?)
OFFER_CASES = [
    ("S1", "h8 h9 h7 h6", "g8", "i8", True),
    ("S1b", "h8 h9 h7 h6", "g8", "i7", True),
    ("S1c", "h8 h9 h7 h6", "i8", "i7", True),
    ("S1d", "h8 h9 h7 h6", "g8", "j10", False),
    ("S1e", "h8 h9 h7 h6", "j10", "j5", True),
    ("S2", "h8 h9 i9 i8", "g7", "j10", True),
    ("S2b", "h8 h9 i9 i8", "g8", "h7", True),
    ("S2c", "h8 h9 i9 i8", "g8", "j9", True),
    ("S2d", "h8 h9 i9 i8", "g8", "g7", False),
    ("S2e", "h8 h9 i9 i8", "g9", "j8", True),
    ("S3", "h8 h9 h10 i11", "g8", "i8", False),
    ("S4", "h8 h9 h10 h11", "g8", "i8", True),
    ("S4b", "h8 h9 h10 h11", "g8", "i10", False),
    ("S5", "h8 i9 f6 g7", "j8", "h10", True),
    ("S5b", "h8 i9 f6 g7", "e6", "f5", True),
    ("S5c", "h8 i9 f6 g7", "j8", "e6", False),
    ("S6", "h8 h9 i9 j10", "g8", "h7", False),
]


@pytest.mark.parametrize(("case", "stones", "a", "b", "symmetric"), OFFER_CASES, ids=[c[0] for c in OFFER_CASES])
def test_fifth_move_offer_symmetry(case: str, stones: str, a: str, b: str, symmetric: bool) -> None:
    points = [Point.parse(p) for p in stones.split()]
    black, white = points[0::2], points[1::2]

    assert are_symmetric(black, white, Point.parse(a), Point.parse(b)) is symmetric
    assert are_symmetric(black, white, Point.parse(b), Point.parse(a)) is symmetric
    assert bool(symmetric_pairs(black, white, [Point.parse(a), Point.parse(b)])) is symmetric


def test_linear_maps_are_the_dihedral_group() -> None:
    images = {tuple(apply_map(i, 1, 2)) for i in range(len(LINEAR_MAPS))}

    assert len(images) == 8


def test_cli_opening_prints_number_code_and_names() -> None:
    run = subprocess.run([sys.executable, "-m", "engine", "opening", "h8", "h9", "j10"], capture_output=True, text=True)
    bad = subprocess.run([sys.executable, "-m", "engine", "opening", "h8", "h9", "k11"], capture_output=True, text=True)

    assert (run.returncode, run.stdout) == (0, "3 3D 疏星 Sosei\n")
    assert bad.returncode == 1 and bad.stdout.startswith("error: not one of the 26 openings")


def test_interleave_helper_orders_black_first() -> None:
    assert interleave(["h8", "i9"], ["h9"]) == ["h8", "h9", "i9"]
