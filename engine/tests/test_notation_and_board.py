from __future__ import annotations

import gc

import pytest

from engine import (
    PASS,
    Board,
    Color,
    IllegalMoveError,
    InvalidMoveError,
    OccupiedPointError,
    Point,
    find_rules,
    parse_moves,
    parse_point,
)


def test_parse_point_reads_upper_and_lower_case() -> None:
    assert parse_point("H8") == parse_point("h8") == Point(7, 7)
    assert str(Point(0, 14)) == "a15"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("h8 h9 i9", ["h8", "h9", "i9"]),
        ("h8h9i9", ["h8", "h9", "i9"]),
        ("H8 pass h15a1", ["h8", "pass", "h15", "a1"]),
        ("  ", []),
    ],
)
def test_parse_moves_accepts_both_layouts(text: str, expected: list[str]) -> None:
    assert [str(m) for m in parse_moves(text)] == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("h8 z9", "move 2 ('z9' at character 4)"),
        ("h8 h16", "move 2 ('h16' at character 4)"),
        ("h8 i9 ?", "move 3 ('?' at character 7)"),
        ("h8h0", "move 2 ('h0' at character 3)"),
        ("h8 88", "move 2 ('88' at character 4)"),
    ],
)
def test_parse_moves_errors_name_token_and_position(text: str, fragment: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_moves(text)

    assert fragment in str(info.value)


def test_replay_rejects_an_occupied_point_with_its_move_number() -> None:
    with pytest.raises(OccupiedPointError, match="move 3: h8 is already occupied"):
        Board.replay("h8 h9 h8")


def test_push_off_a_small_board_is_illegal() -> None:
    board = Board(9)

    with pytest.raises(IllegalMoveError, match="off the 9x9 board"):
        board.push(Point(10, 2))


def test_turn_counts_passes_as_moves() -> None:
    board = Board.replay("h8 pass")

    assert board.turn is Color.BLACK
    assert board.ply == 2
    assert board.move_stack[-1] == PASS


def test_freestyle_overline_wins_on_a_19_board() -> None:
    board = Board.replay("a1 a2 b1 b2 c1 c2 d1 d2 f1 f2 e1", size=19)

    outcome = find_rules("freestyle").outcome(board)

    assert str(outcome) == "five black"


def test_standard_overline_is_no_win_and_not_forbidden() -> None:
    board = Board.replay("a1 a2 b1 b2 c1 c2 d1 d2 f1 f2 e1")

    assert find_rules("standard").outcome(board) is None


def test_renju_black_overline_is_forbidden_white_overline_wins() -> None:
    black_six = Board.replay("a1 a2 b1 b2 c1 c2 d1 d2 f1 f2 e1")
    white_six = Board.replay("a2 a1 b2 b1 c2 c1 d2 d1 o15 f1 o13 e1")
    renju = find_rules("renju")

    assert str(renju.outcome(black_six)) == "forbidden overline"
    assert str(renju.outcome(white_six)) == "five white"


def test_two_passes_draw() -> None:
    outcome = find_rules("renju").outcome(Board.replay("h8 h9 i9 pass pass"))

    assert str(outcome) == "draw"
    assert outcome is not None and outcome.termination.value == "two-passes"


def test_pass_then_stone_continues() -> None:
    assert find_rules("renju").outcome(Board.replay("h8 h9 pass i9 j10")) is None


def test_full_board_without_five_is_a_draw() -> None:
    # 5x5 free-style board filled with no five anywhere:
    # X X O O X / O O X X O / X X O O X / O O X X O / X X O O X (row 5 at the top)
    rows = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOOX"]
    black = [f"{'abcde'[c]}{r + 1}" for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "X"]
    white = [f"{'abcde'[c]}{r + 1}" for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "O"]
    moves = [m for pair in zip(black, white + [""], strict=True) for m in pair if m]

    board = Board.replay(" ".join(moves), size=5)
    outcome = find_rules("freestyle").outcome(board)

    assert board.is_full()
    assert outcome is not None and outcome.termination.value == "full-board" and outcome.winner is None


def test_unknown_rule_set_is_named() -> None:
    with pytest.raises(ValueError, match="unknown rule set 'chess'"):
        find_rules("chess")


def test_a_snapshot_gives_back_the_same_position_and_is_not_walked_by_the_collector() -> None:
    board = Board.replay("h8 h9 i9 pass j10 g7 i8")
    snapshot = board.snapshot()
    again = Board.from_snapshot(snapshot)
    assert [str(m) for m in again.move_stack] == [str(m) for m in board.move_stack]
    assert (again.hash, again.ply, again.turn, again.stone_count) == (board.hash, board.ply, board.turn, 6)
    assert (again.stones, again.black_bits, again.white_bits) == (board.stones, board.black_bits, board.white_bits)
    assert (again.black_counts, again.white_counts) == (board.black_counts, board.white_counts)
    renju = find_rules("renju")
    assert renju.forbidden_points(again) == renju.forbidden_points(board)
    again.push("k11")  # the board given back is its own: the snapshot, and a board from it, are not moved
    fresh = Board.from_snapshot(snapshot)
    assert fresh.ply == 7 and fresh.is_empty(parse_point("k11")) and not again.is_empty(parse_point("k11"))
    gc.collect()  # tuples of numbers stop being tracked once the collector has seen them
    assert not any(gc.is_tracked(part) for part in (snapshot.stones, snapshot.black_bits, snapshot.white_counts))
    assert gc.is_tracked(board.stones)  # where a board's lists are walked by every full collection
