"""Property tests: symmetry, fives, white, notation, push/pop."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PASS, Board, Color, Move, Point, Renju, format_moves, parse_moves
from engine.tests.positions import board_from_stones, transform

SIZE = 15


@st.composite
def positions(draw: st.DrawFn, max_stones: int = 60) -> tuple[list[Point], list[Point]]:
    """Random black/white stones, clustered so threes and fours are common."""
    span = draw(st.sampled_from([5, 6, 7, 9, 15]))
    low = (SIZE - span) // 2
    cells = [Point(c, r) for c in range(low, low + span) for r in range(low, low + span)]
    chosen = draw(st.lists(st.sampled_from(cells), unique=True, min_size=4, max_size=min(max_stones, len(cells))))
    black_share = draw(st.floats(0.45, 0.75))
    colours = draw(st.lists(st.floats(0, 1), min_size=len(chosen), max_size=len(chosen)))
    black = [p for p, x in zip(chosen, colours, strict=True) if x < black_share]
    white = [p for p, x in zip(chosen, colours, strict=True) if x >= black_share]
    return black, white


def forbidden_strings(board: Board) -> dict[str, str]:
    return {str(p): str(r) for p, r in Renju().forbidden_points(board).items()}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.integers(0, 7))
def test_forbidden_points_unchanged_under_board_symmetries(
    stones: tuple[list[Point], list[Point]], symmetry: int
) -> None:
    black, white = stones
    board = board_from_stones(black, white)
    mirrored = board_from_stones([transform(p, symmetry) for p in black], [transform(p, symmetry) for p in white])

    expected = {str(transform(p, symmetry)): str(r) for p, r in Renju().forbidden_points(board).items()}

    assert forbidden_strings(mirrored) == expected


@settings(max_examples=150, deadline=None)
@given(positions())
def test_a_five_is_never_forbidden(stones: tuple[list[Point], list[Point]]) -> None:
    board = board_from_stones(*stones)
    rules = Renju()

    for point in rules.forbidden_points(board):
        board.place(point.index(SIZE), Color.BLACK)
        try:
            assert not rules.makes_five(board, point, Color.BLACK)
        finally:
            board.remove(point.index(SIZE))


@settings(max_examples=100, deadline=None)
@given(positions())
def test_white_moves_are_never_forbidden(stones: tuple[list[Point], list[Point]]) -> None:
    black, white = stones
    # White to move: one more black stone than white ones, or pad with a pass.
    board = board_from_stones(black, white)
    board.move_stack = [PASS] if board.turn is Color.BLACK else []  # only parity matters
    rules = Renju()

    for point in list(board.empty_points())[:40]:
        outcome = rules.move_outcome(board, point)
        assert outcome is None or outcome.winner is Color.WHITE and str(outcome).startswith("five")


@given(
    st.lists(
        st.one_of(
            st.just("pass"),
            st.builds(lambda c, r: f"{'abcdefghijklmno'[c]}{r}", st.integers(0, 14), st.integers(1, 15)),
        ),
        max_size=30,
    ),
    st.sampled_from([" ", "", ","]),
    st.booleans(),
)
def test_notation_round_trips(tokens: list[str], separator: str, upper: bool) -> None:
    text = separator.join(t.upper() if upper else t for t in tokens)

    moves = parse_moves(text)

    assert format_moves(moves) == " ".join(tokens)
    assert parse_moves(format_moves(moves, sep="")) == moves


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), unique=True, max_size=40), st.integers(0, 40))
def test_push_then_pop_restores_the_board(cells: list[tuple[int, int]], keep: int) -> None:
    board = Board()
    for col, row in cells[:keep]:
        board.push(Point(col, row))
    before = (board.stones[:], board.black_bits[:], board.white_bits[:], board.hash, board.moves_text())

    for col, row in cells[keep:]:
        board.push(Move(Point(col, row)))
    for _ in cells[keep:]:
        board.pop()

    assert (board.stones, board.black_bits, board.white_bits, board.hash, board.moves_text()) == before
