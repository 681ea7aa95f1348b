"""Search: VCF/VCT on hand-made positions in coordinates, renju traps, legality, determinism."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Board, Color, Freestyle, Point, Renju, find_rules
from engine.protocols import PROTOCOLS, Options, apply, start
from engine.search import find_vcf, find_vct
from engine.search.players import LEVELS, ComputerPlayer, play_out
from engine.search.solver import Solver
from engine.search.verify import check_vcf

ROOT = Path(__file__).resolve().parents[2]


def text(line: list[Point] | None) -> str:
    return "none" if line is None else " ".join(str(p) for p in line)


# -- VCF ----------------------------------------------------------------------------


def test_vcf_four_then_open_four() -> None:
    # Black h8 i8 j8 (White g8 closes the row) and k9 k10: k8 is a four-three.
    board = Board.replay("h8 g8 i8 a1 j8 a3 k9 a5 k10 o15")
    line = find_vcf(board, Renju())
    assert text(line) == "k8 l8 k7 k6 k11"
    assert line is not None and check_vcf(board, Renju(), line) is None


def test_no_vcf_without_fours() -> None:
    board = Board.replay("h8 h9 i9 g8 j10")
    assert find_vcf(board, Renju()) is None


def test_white_wins_by_forcing_black_onto_a_forbidden_point() -> None:
    # h8 is a double-three for Black (g8 i8 / h9 h10). White's i7 j6 k5 with l4 is a four
    # whose only completion is h8 (g9 is Black): Black cannot block, so White wins.
    moves = "g8 i7 i8 j6 h9 k5 h10 a1 m3 a3 g9"
    board = Board.replay(moves)
    assert str(Renju().forbidden_reason(board, Point.parse("h8"))) == "double-three"
    line = find_vcf(board, Renju())
    assert text(line) == "l4"
    assert line is not None and check_vcf(board, Renju(), line) is None
    # Without forbidden moves Black simply blocks at h8: no forced win.
    assert find_vcf(board, Freestyle()) is None


def test_a_double_four_is_no_win_for_black() -> None:
    # j8 makes two fours (g8 h8 i8 closed by f8; j9 j10 j11 closed by j12): in free-style
    # that wins at once; in renju it is a forbidden double-four, not a threat.
    moves = "g8 f8 h8 j12 i8 a1 j9 a3 j10 a5 j11 a7"
    board = Board.replay(moves)
    assert str(Renju().forbidden_reason(board, Point.parse("j8"))) == "double-four"
    assert text(find_vcf(board, Freestyle())).startswith("j8")
    assert find_vcf(board, Renju()) is None
    assert find_vct(board, Renju()) is None
    for level in LEVELS:
        assert str(ComputerPlayer(Renju(), level, seed=level).best_move(board)) != "j8"


def test_a_four_three_whose_three_is_false_is_no_win() -> None:
    # k8 makes the four h8..k8 (f8 and l8 White: only g8 completes it) and a "three" k8 k9 k10 whose
    # column is closed by k11 and k5: its only extension k7 gives a four, never a straight four.
    # White blocks g8, Black's k7 four is blocked at k6, and nothing is left.
    board = Board.replay("h8 f8 i8 l8 j8 k11 k9 k5 k10 a1")
    assert find_vcf(board, Renju()) is None
    # Open the column (no White k11) and the same k8 is a real four-three: the VCF exists.
    board = Board.replay("h8 f8 i8 l8 j8 a15 k9 k5 k10 a1")
    line = find_vcf(board, Renju())
    assert line is not None and check_vcf(board, Renju(), line) is None


def test_the_defenders_five_comes_first() -> None:
    # Black could start a VCF (the k8 four-three), but White has a four (a1 a2 a3 a4): Black must block a5,
    # which is not a four, so there is no VCF.
    board = Board.replay("h8 a1 i8 a2 j8 a3 k9 a4 k10 g8")
    assert find_vcf(board, Renju()) is None
    assert str(ComputerPlayer(Renju(), 3).best_move(board)) == "a5"


def test_white_overline_wins_but_black_overline_does_not() -> None:
    # Black f8 g8 _ i8 j8 k8: h8 would make six, an overline: no five for Black in renju.
    board = Board.replay("f8 a1 g8 a3 i8 a5 j8 a7 k8 a9")
    assert Point.parse("h8") not in (find_vcf(board, Renju()) or [])
    assert text(find_vcf(board, Freestyle())) == "h8"
    # The same shape for White wins in renju.
    board = Board.replay("o15 f8 a1 g8 a3 i8 a5 j8 a7 k8 a9")
    assert text(find_vcf(board, Renju())) == "h8"


def test_vct_double_three_for_white_but_not_for_black() -> None:
    # Two open twos crossing at h8 (g8 i8 / h9 h10 would be the threes). White may make the
    # double three; the same stones for Black make a forbidden point.
    white = "a1 g8 o1 i8 a15 h9 o15 h10 c13"
    board = Board.replay(white)
    assert board.turn is Color.WHITE
    line = find_vct(board, Renju())
    assert line is not None and line[0] == Point.parse("h8")
    black = "g8 a1 i8 o1 h9 a15 h10 o15"
    board = Board.replay(black)
    line = find_vct(board, Renju())
    assert line is None or line[0] != Point.parse("h8")
    line = find_vct(board, Freestyle())
    assert line is not None


def test_cli_vcf_and_best() -> None:
    def run(*args: str, seed: str = "0") -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=ROOT, env=env, check=False
        )
        return done.stdout.strip()

    assert run("vcf", "h8", "g8", "i8", "a1", "j8", "a3", "k9", "a5", "k10", "o15") == "k8 l8 k7 k6 k11"
    assert run("vcf", "h8", "h9") == "none"
    assert run("vcf", "h8", "h8").startswith("error: move 2")
    moves = ["h8", "h9", "j10", "i9", "j9"]
    first = run("best", "--level", "4", *moves, seed="1")
    assert first == run("best", "--level", "4", *moves, seed="987")
    assert Point.parse(first) and first not in moves
    assert run("best", "--level", "9", "h8").startswith("error: level must be 1 to 5")


# -- computer players ------------------------------------------------------------------


def random_position(rng: random.Random, rules_name: str) -> Board:
    """Random legal play, 6 to 50 stones, stopped before any five."""
    rules = find_rules(rules_name)
    board = Board()
    target = rng.randint(6, 50)
    while board.stone_count < target:
        empties = list(board.empty_points())
        near = [p for p in empties if max(abs(p.col - 7), abs(p.row - 7)) <= 5]
        point = rng.choice(near or empties)
        if rules.move_outcome(board, point) is not None:
            if rng.random() < 0.05:
                break
            continue
        board.push(point)
    return board


@pytest.mark.parametrize("rules_name", ["renju", "freestyle", "standard"])
def test_no_illegal_move_ever(rules_name: str) -> None:
    rng = random.Random(rules_name)
    rules = find_rules(rules_name)
    for _ in range(12):
        board = random_position(rng, rules_name)
        for level in (1, 2, 3, 4):
            point = ComputerPlayer(rules, level, seed=rng.randrange(1000)).best_move(board)
            assert board.is_empty(point)
            if board.turn is Color.BLACK:
                outcome = rules.move_outcome(board, point)
                assert outcome is None or outcome.winner is Color.BLACK, (str(board), level, str(point))


@pytest.mark.parametrize("protocol", [p for p in PROTOCOLS if p != "none"])
def test_every_protocol_decision_is_legal(protocol: str) -> None:
    rules = Renju()
    state = start(protocol, Options())
    players = {1: ComputerPlayer(rules, 2, seed=1), 2: ComputerPlayer(rules, 3, seed=2)}
    steps = 0
    while not state.finished:
        action = players[state.actor].decide(state)
        state = apply(state, state.actor, action)  # a ProtocolError here fails the test
        steps += 1
        assert steps < 40
    board = state.board()
    for _ in range(6):
        point = players[state.holder(board.turn)].best_move(board)
        assert rules.move_outcome(board, point) is None or board.turn is Color.WHITE
        board.push(point)


def test_level_one_prefers_its_five_and_a_block_of_a_four() -> None:
    board = Board.replay("h8 a1 h9 a2 h10 a3 h11 o15")  # Black: h12 or h7 is five
    assert str(ComputerPlayer(Renju(), 2).best_move(board)) in ("h7", "h12")
    board = Board.replay("h8 a1 h9 a2 o1 a3 o3 a4")  # White threatens a5
    assert str(ComputerPlayer(Renju(), 2).best_move(board)) == "a5"


def test_play_is_deterministic_for_a_seed() -> None:
    rules = Renju()
    opening = [Point.parse(p) for p in ("h8", "h9", "j10")]
    games = [
        play_out(rules, ComputerPlayer(rules, 3, seed=5), ComputerPlayer(rules, 2, seed=6), opening, limit=40)[0]
        for _ in range(2)
    ]
    assert games[0].moves_text() == games[1].moves_text()
    other = play_out(rules, ComputerPlayer(rules, 3, seed=7), ComputerPlayer(rules, 2, seed=8), opening, limit=40)[0]
    assert other.stone_count > 3


def test_a_time_limit_cuts_the_search_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every phase of a move (VCF, VCT, the guard, alpha-beta) shares one deadline: with a clock that is a
    second later at every reading and half a second to think, each phase gives up at its first check."""
    import engine.search.players as players

    visited: list[int] = []

    class Counted:  # wraps rather than subclasses: a compiled class takes no interpreted subclass
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.solver = Solver(*args, **kwargs)

        def solve(self) -> list[int] | None:
            try:
                return self.solver.solve()
            finally:
                visited.append(self.solver.visited)

    monkeypatch.setattr(players, "Solver", Counted)
    ticks = iter(range(0, 10**6, 1))
    board = Board.replay("h8 i7 g7 i9 i8 g8 h7 h9 j9 k10 g6 f5 f7 d7 h5 i4 h6 h4 d9 e8 g4 g5")
    player = ComputerPlayer(Renju(), 5, seconds=0.5, clock=lambda: float(next(ticks)))
    point = player.best_move(board)
    readings = next(ticks)

    assert board.is_empty(point)
    assert visited and max(visited) <= 64  # each solver stopped at its first time check
    assert readings <= 12  # and nothing read the clock again and again past the deadline


def test_the_solver_keeps_a_deadline_whatever_a_position_costs() -> None:
    board = Board.replay("h8 i7 g7 i9 i8 g8 h7 h9 j9 k10 g6 f5 f7 d7 h5 i4 h6 h4 d9 e8 g4 g5")  # no VCT in reach
    ticks = iter(range(0, 10**6, 1))
    unlimited = Solver(board.copy(), Renju(), threes=True, depth=8, nodes=20_000)
    limited = Solver(board.copy(), Renju(), threes=True, depth=8, nodes=20_000, deadline=3.0, clock=lambda: next(ticks))

    unlimited.solve()
    limited.solve()

    assert unlimited.visited > 64 * 4  # the search has real work to do here
    assert limited.visited <= 64 * 4  # the clock read 0, 1, 2, 3, 4 at nodes 64 … 256: stop


def test_the_public_vcf_set_holds_and_the_solver_proves_it() -> None:
    """engine/tests/data/vcf.txt (bench/ai.py's vcf_solved): every stored solution is a forced win by the
    brute-force checker, and the solver with its default limits proves a checked win in each position."""
    path = ROOT / "engine" / "tests" / "data" / "vcf.txt"
    rows = [line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [row for row in rows if row]
    assert len(rows) >= 200
    rules = Renju()
    for row in rows[::4]:
        moves, solution = (part.strip() for part in row.split("|"))
        board = Board.replay(moves)
        assert check_vcf(board, rules, [Point.parse(p) for p in solution.split()]) is None, row
        found = find_vcf(board, rules)
        assert found is not None and check_vcf(board, rules, found) is None, row


# -- the leaves' threats ------------------------------------------------------------------------------


def test_shapes_on_a_line_are_read_off_the_rules_analysis() -> None:
    from engine.search.evaluate import side_shape

    board = Board.replay("h8 a1 i8 a3 j8")  # Black's open three h8 i8 j8 on row 8
    row = board.geometry.line_of[0][Point.parse("h8").index(board.size)]
    fives, straight, fours, _threes = side_shape(board, row, 1, True)
    # g8 and k8 make a straight four; f8 and l8 a four with a gap (f8 _ h8 i8 j8 is completed at g8).
    assert (fives, straight, fours) == (0, 2, 4)
    closed = Board.replay("h8 g8 i8 a3 j8")  # White's g8 closes it: fours at k8 and l8 only, none straight
    assert side_shape(closed, row, 1, True)[:3] == (0, 0, 2)


def test_an_open_three_is_worth_a_move_to_whoever_is_to_move() -> None:
    from engine.search.evaluate import (
        OPEN_THREE_AGAINST,
        OPEN_THREE_TO_MOVE,
        TWO_OPEN_THREES_AGAINST,
        evaluate,
        evaluate_to_move,
    )

    board = Board.replay("h8 a1 i8 a3 j8")  # White to move, facing Black's open three
    lines = evaluate(board)
    assert evaluate_to_move(board, 1, True, False) >= lines + OPEN_THREE_TO_MOVE  # Black to move: a straight four
    assert evaluate_to_move(board, 2, True, False) <= -lines - OPEN_THREE_AGAINST  # White must answer it
    two = Board.replay("h8 a1 i8 o15 j8 a15 l10 o1 l11 h1 l12")  # two open threes; White to move, no four to play
    assert evaluate_to_move(two, 2, True, False) <= -evaluate(two) - TWO_OPEN_THREES_AGAINST
    blocked = Board.replay("h8 g8 i8 k8 j8")  # both ends closed: no threat, the lines alone
    assert abs(evaluate_to_move(blocked, 2, True, False) + evaluate(blocked)) < OPEN_THREE_AGAINST


def test_the_search_answers_an_open_three_it_cannot_outplay() -> None:
    # White to move; Black's h8 i8 j8 is open. White has no fours, so it blocks at g8 or k8 (or f8 / l8).
    board = Board.replay("h8 a1 i8 a3 j8")
    move = ComputerPlayer(Renju(), 3, seed=1).best_move(board)
    assert str(move) in {"g8", "k8", "f8", "l8"}, move


def test_the_collector_is_paused_only_while_the_engine_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from engine.gcpause import paused
    from engine.renju import Judge

    seen: list[bool] = []
    original = Judge._classify

    def spy(self: Judge, index: int, entries: Any) -> int:
        seen.append(gc.isenabled())
        return original(self, index, entries)

    board = Board.replay("h8 h9 i9 g9 j10 i7 k11 k9")  # Black has threes: the map classifies points
    assert gc.isenabled()
    patchable = not hasattr(Judge, "__mypyc_attrs__")  # a compiled class cannot be patched
    if patchable:
        monkeypatch.setattr(Judge, "_classify", spy)
    Judge(board).forbidden_map()
    ComputerPlayer(Renju(), 3, seed=1).best_move(board)
    assert gc.isenabled() and not any(seen)
    assert seen or not patchable  # the spy did look, where it could
    with pytest.raises(RuntimeError), paused():
        assert not gc.isenabled()
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # a caller's own choice is left alone
    finally:
        gc.enable()


def test_the_evaluation_caches_are_emptied_for_a_cold_start() -> None:
    from engine.search import evaluate as evaluation

    board = Board.replay("h8 a1 i8 a3 j8")
    before = evaluation.evaluate_to_move(board, 2, True, False)
    assert evaluation._EVAL_CACHE and evaluation._SHAPE_CACHE and evaluation._LEAF_CACHE
    evaluation.clear_cache()
    assert not (evaluation._EVAL_CACHE or evaluation._SHAPE_CACHE or evaluation._LEAF_CACHE)
    assert evaluation.evaluate_to_move(board, 2, True, False) == before  # recomputed, the same
