"""The command-line contracts of ``python -m engine``."""

from __future__ import annotations

import subprocess
import sys

import pytest

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
