"""The command-line contracts of ``python -m engine``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from engine.records import format_actions, parse_actions

T01 = "g8 a1 i8 c1 h9 e1 h10 k1"
T36 = "g8 a1 i8 c1 h9 e1 h11 k1 d10 m1 e10 o1 f10 o15 g10 a3"


def engine(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], input=stdin, capture_output=True, text=True)


def test_forbidden_prints_one_line_per_position_sorted_by_column_then_row() -> None:
    result = engine("forbidden", stdin=f"{T01}\n\nh8 pass h9\n")

    assert result.returncode == 0
    assert result.stdout == "h8\n\n\n"


def test_forbidden_sorts_numerically_by_row() -> None:
    # Two separate double-three points in column c: c4 and c12 (rows compare as numbers, not text).
    lines = "c3 a15 d4 o15 c5 a13 b4 o13 c11 m15 d12 k15 c13 m13 b12 k13"

    result = engine("forbidden", "--explain", stdin=lines + "\n")

    assert result.stdout == "c4:double-three c12:double-three\n"


def test_forbidden_unreadable_line_prints_error_in_place_and_exits_1() -> None:
    result = engine("forbidden", stdin=f"h8 z9\n{T01}\nh8 h8\n")

    lines = result.stdout.splitlines()
    assert result.returncode == 1
    assert lines[0] == "error: move 2 ('z9' at character 4): 'z9' is off the 15x15 board"
    assert lines[1] == "h8"
    assert lines[2] == "error: move 2: h8 is already occupied"


def test_forbidden_three_reading_option_switches_t36() -> None:
    default = engine("forbidden", "--explain", stdin=T36 + "\n")
    legal = engine("forbidden", "--explain", "--three-reading", "legal", stdin=T36 + "\n")

    assert "h8:" not in default.stdout
    assert "h8:double-three" in legal.stdout.split()


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        (f"{T01} h8", "forbidden double-three"),
        ("h8 a1 i8 a2 j8 a3 k8 a4 l8", "five black"),
        ("a2 a1 b2 b1 c2 c1 d2 d1 o15 f1 o13 e1", "five white"),
        ("h8 h9 i9 pass pass", "draw"),
        ("h8 h9", "none"),
    ],
)
def test_check_prints_what_the_last_move_did(moves: str, expected: str) -> None:
    result = engine("check", *moves.split())

    assert (result.returncode, result.stdout) == (0, expected + "\n")


def test_check_malformed_moves_is_an_error() -> None:
    result = engine("check", "h8", "q3")

    assert result.returncode == 2
    assert result.stdout.startswith("error: move 2 ('q3'")


RIF_GAME = """[Black "Li Lei"]
[White "Han Meimei"]
[Rule "renju"]
[Protocol "rif"]
[Result "0-1"]
[Reason "forbidden"]

h8 h9 j10 {no-swap} h6 {offer g8 j11} g8 {chosen} k11
"""


def test_record_reads_a_protocol_record_and_names_its_opening() -> None:
    result = engine("record", stdin=RIF_GAME.replace('[Reason "forbidden"]', '[Reason "resignation"]'))

    assert (result.returncode, result.stdout) == (0, "ok stones=6 opening=3D end=open result=0-1 reason=resignation\n")


def test_the_chosen_fifth_stone_is_in_the_move_list_and_the_older_note_still_reads() -> None:
    actions = parse_actions(RIF_GAME.split("\n\n", 1)[1])
    skipping_notes = re.sub(r"\{[^}]*\}", " ", RIF_GAME.split("\n\n", 1)[1]).split()

    assert actions[-2:] == ["choose g8", "place k11"]
    assert format_actions(actions) == "h8 h9 j10 {no-swap} h6 {offer g8 j11} g8 {chosen} k11"
    assert skipping_notes == ["h8", "h9", "j10", "h6", "g8", "k11"]  # a reader that skips notes keeps every stone
    assert parse_actions("h8 h9 j10 {no-swap} h6 {offer g8 j11} {choose g8} k11") == actions


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ('[Result "1-0"]\n\nh8 a1 h9 a2 h10 a3 h11 a4 h12\n', "ok stones=9 opening=- end=five-black result=1-0\n"),
        (f'[Result "0-1"]\n\n{T01} h8\n', "ok stones=9 opening=- end=forbidden-double-three result=0-1\n"),
        ("h8 h9 i9 pass pass\n", "ok stones=3 opening=4D end=two-passes result=*\n"),
    ],
)
def test_record_says_how_the_board_ended(record: str, expected: str) -> None:
    result = engine("record", stdin=record)

    assert (result.returncode, result.stdout) == (0, expected)


@pytest.mark.parametrize(
    ("record", "error"),
    [
        ('[Result "0-1"]\n\nh8 a1 h9 a2 h10 a3 h11 a4 h12\n', "error: the record ends with a five by black at move 9"),
        (RIF_GAME, "error: the record has no forbidden move by black"),
        (RIF_GAME.replace("g8 {chosen}", "m2 {chosen}"), "error: action 7 (choose m2): choose one of the offered"),
        (RIF_GAME.replace("g8 {chosen}", "{chosen} g8"), "error: {chosen} follows the stone that was chosen"),
        ("h8 a1 h9 a2 h10 a3 h11 a4 h12 a5\n", "error: move 10 is played after the game ended at move 9"),
        ('[Black "A"\nh8\n', 'error: line 1: a header line reads [Key "value"]'),
        ("<database><games>", "error: the .rif file is not well-formed XML"),
    ],
)
def test_record_refuses_what_cannot_stand_and_says_where(record: str, error: str) -> None:
    result = engine("record", stdin=record)

    assert result.returncode == 1
    assert result.stdout.startswith(error), result.stdout


def test_record_checks_every_game_of_a_rif_database() -> None:
    rif = """<?xml version="1.0" encoding="utf-8"?>
<database><players><player id="1" name="A"/><player id="2" name="B"/></players>
<rules><rule id="1" name="renju"/></rules><openings/>
<games>
<game id="1" black="1" white="2" bresult="1" rule="1"><move>h8 a1 h9 a2 h10 a3 h11 a4 h12</move></game>
<game id="2" black="2" white="1" bresult="0" rule="1"><move>h8 a1 h9 a2 h10 a3 h11 a4 h12</move></game>
</games></database>"""
    result = engine("record", stdin=rif)

    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "ok stones=9 opening=- end=five-black result=1-0",
        "error: the record ends with a five by black at move 9, which the report does not say",
    ]
