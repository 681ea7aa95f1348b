"""The 36 worked positions of tricky-positions.md, as data (engine/tests/data)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from engine import Board, Color, ForbiddenReason, Point, Renju, RenjuFiveExtension, Termination, explain
from engine.tests.positions import interleave, load_tricky, tricky_moves

CASES = load_tricky()


def verdict(rules: Renju, case: dict[str, Any]) -> str:
    board = Board.replay(tricky_moves(case))
    assert board.turn.name.lower() == case["side"]
    outcome = rules.move_outcome(board, Point.parse(case["probe"]))
    if outcome is None:
        return "legal"
    if outcome.termination is Termination.FIVE:
        assert outcome.winner is board.turn
        return "five"
    return str(outcome.reason)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_tricky_position_verdict(case: dict[str, Any]) -> None:
    assert verdict(Renju(), case) == case["verdict"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_tricky_position_verdict_without_fillers(case: dict[str, Any]) -> None:
    bare = dict(case, fillers=[], white=case["white"])
    black, white = bare["black"], bare["white"]
    if not (len(black) == len(white) or len(black) == len(white) + 1):
        # keep the side to move: pad with passes instead of filler stones
        moves = _with_passes(black, white, case["side"])
        board = Board.replay(moves)
        outcome = Renju().move_outcome(board, Point.parse(case["probe"]))
        got = (
            "legal" if outcome is None else ("five" if outcome.termination is Termination.FIVE else str(outcome.reason))
        )
        assert got == case["verdict"]
    else:
        assert verdict(Renju(), bare) == case["verdict"]


def _with_passes(black: list[str], white: list[str], side: str) -> list[str]:
    moves: list[str] = []
    b, w = list(black), list(white)
    while b or w:
        moves.append(b.pop(0) if b else "pass")
        if b or w or side == "black":
            moves.append(w.pop(0) if w else "pass")
    if (len(moves) % 2 == 0) != (side == "black"):
        moves.append("pass")
    return moves


def test_t36_reading_a_is_double_three() -> None:
    case = next(c for c in CASES if c["id"] == "T36")

    assert verdict(RenjuFiveExtension(), case) == case["verdict_reading_a"] == "double-three"


@pytest.mark.parametrize("case", [c for c in CASES if c["side"] == "black"], ids=lambda c: c["id"])
def test_tricky_forbidden_map_agrees_with_single_point_check(case: dict[str, Any]) -> None:
    board = Board.replay(tricky_moves(case))
    rules = Renju()

    points = rules.forbidden_points(board)

    for point in board.empty_points():
        assert points.get(point) == rules.forbidden_reason(board, point), point


def test_explain_t29_draws_both_real_threes() -> None:
    case = next(c for c in CASES if c["id"] == "T29")
    board = Board.replay(tricky_moves(case))

    explanation = explain(board, Point.parse("h8"))

    assert explanation.reason is ForbiddenReason.DOUBLE_THREE
    shapes = sorted((s.kind, [str(p) for p in s.stones], [str(p) for p in s.points]) for s in explanation.shapes)
    assert shapes == [
        ("three", ["g8", "h8", "i8"], ["f8", "j8"]),
        ("three", ["h8", "h9", "h10"], ["h11"]),
    ]


def test_explain_one_line_double_four_lists_both_fours() -> None:
    board = Board.replay(interleave(["e8", "g8", "i8", "k8"], ["a1", "c1", "e1", "k1"]))

    explanation = explain(board, Point.parse("h8"))

    assert explanation.reason is ForbiddenReason.DOUBLE_FOUR
    assert sorted(([str(p) for p in s.stones], [str(p) for p in s.points]) for s in explanation.shapes) == [
        (["e8", "g8", "h8", "i8"], ["f8"]),
        (["g8", "h8", "i8", "k8"], ["j8"]),
    ]


def test_explain_overline_lists_the_run() -> None:
    board = Board.replay(interleave(["d8", "e8", "f8", "g8", "i8"], ["a1", "c1", "e1", "k1", "m1"]))

    explanation = explain(board, Point.parse("h8"))

    assert explanation.reason is ForbiddenReason.OVERLINE
    assert [[str(p) for p in s.stones] for s in explanation.shapes] == [["d8", "e8", "f8", "g8", "h8", "i8"]]


def test_cli_forbidden_on_all_black_tricky_positions() -> None:
    black_cases = [c for c in CASES if c["side"] == "black"]
    stdin = "".join(" ".join(tricky_moves(c)) + "\n" for c in black_cases)

    result = subprocess.run(
        [sys.executable, "-m", "engine", "forbidden", "--explain"],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )

    lines = result.stdout.split("\n")[:-1]
    assert len(lines) == len(black_cases)
    for case, line in zip(black_cases, lines, strict=True):
        marks = dict(token.split(":") for token in line.split())
        expected = case["verdict"] if case["verdict"] not in ("legal", "five") else None
        assert marks.get(case["probe"]) == expected, case["id"]


def test_white_never_forbidden_even_on_black_shapes() -> None:
    case = next(c for c in CASES if c["id"] == "T35")
    board = Board.replay(tricky_moves(case))

    assert board.turn is Color.WHITE
    assert Renju().move_outcome(board, Point.parse("h8")) is None
