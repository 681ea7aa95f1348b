"""The Gomocup protocol both ways: ``python -m engine pbrain`` answering every command, a whole game between
two such processes through a small manager, and our manager (engine/gomocup.py) facing engines that sleep,
crash, answer nonsense or play an illegal point."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Board, Color, ForbiddenReason, Point, find_rules
from engine.gomocup import EngineFailure, EngineSpec, about, engine_move
from engine.pbrain import Brain, board_from, from_xy, rules_for, to_xy

ROOT = Path(__file__).resolve().parents[2]
OURS = (sys.executable, "-m", "engine", "pbrain")
MISBEHAVING = str(Path(__file__).parent / "engines" / "misbehaving.py")


def brain_says(*lines: str, level: int = 2) -> list[str]:
    out = io.StringIO()
    brain = Brain(out, level=level)
    for line in lines:
        if not brain.handle(line):
            break
    return out.getvalue().splitlines()


# -- the protocol's coordinates and positions ---------------------------------------------------------------


def test_coordinates_count_rows_from_the_top_as_piskvork_does() -> None:
    assert to_xy(Point.parse("a1"), 15) == "0,14"
    assert to_xy(Point.parse("h8"), 15) == "7,7"
    assert to_xy(Point.parse("o15"), 15) == "14,0"
    assert from_xy("0,14", 15) == Point.parse("a1") and from_xy(" 3,2 ", 15) == Point.parse("d13")
    assert from_xy("2,0", 20) == Point(2, 19)
    for bad in ("15,0", "-1,3", "a,b", "7"):
        with pytest.raises(ValueError):
            from_xy(bad, 15)


def test_a_board_command_gives_black_to_the_side_with_more_stones_or_to_us_when_level() -> None:
    h8, h9, j8 = Point.parse("h8"), Point.parse("h9"), Point.parse("j8")
    as_white = board_from([h9], [h8, j8], 15)  # they have two, we have one: they are Black, we are White
    assert as_white.turn is Color.WHITE and as_white.color_at(h8) is Color.BLACK
    as_black = board_from([h8], [h9], 15)
    assert as_black.turn is Color.BLACK and as_black.color_at(h9) is Color.WHITE
    with pytest.raises(ValueError):
        board_from([h8, j8], [h9], 15)  # we cannot be to move with more stones than they have


def test_the_rule_bits_choose_renju_exact_five_or_free_style() -> None:
    assert (rules_for(4).name, rules_for(1).name, rules_for(0).name, rules_for(5).name) == (
        "renju",
        "standard",
        "freestyle",
        "renju",
    )


# -- our engine answering every command ----------------------------------------------------------------------


def test_every_command_in_one_session_of_the_command_line_engine() -> None:
    script = "\n".join(
        [
            "ABOUT",
            "START 15",
            "INFO timeout_turn 1000",
            "INFO rule 4",
            "INFO max_node 300",
            "INFO max_memory 83886080",  # known to the protocol, nothing to do here
            "BEGIN",
            "TURN 7,6",
            "TURN 7,7",  # occupied (our first stone)
            "TURN 15,2",  # off the board
            "FOO",
            "RESTART",
            "PLAY 1,1",  # the manager's move for us (an opening it sets), echoed
            "TAKEBACK 1,1",
            "BOARD",
            "7,7,2",
            "8,8,1",
            "7,6,2",
            "DONE",
            "END",
            "ABOUT",  # never read: the engine has gone
        ]
    )
    done = subprocess.run([*OURS, "--level", "3"], input=script + "\n", capture_output=True, text=True, cwd=ROOT)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr[-2000:]
    assert lines[0].startswith('name="') and "version=" in lines[0]
    assert lines[1] == "OK"
    assert lines[2] == "7,7"  # Black begins at the centre
    assert Board.replay([from_xy("7,7", 15), from_xy("7,6", 15)]).is_empty(from_xy(lines[3], 15))
    assert lines[4].startswith("ERROR") and "occupied" in lines[4]
    assert lines[5].startswith("ERROR") and "off the" in lines[5]
    assert lines[6] == "UNKNOWN FOO"
    assert lines[7] == "OK"  # RESTART: an empty board
    assert lines[8] == "1,1" and lines[9] == "OK"
    after = board_from([from_xy("8,8", 15)], [from_xy("7,7", 15), from_xy("7,6", 15)], 15)
    assert after.is_empty(from_xy(lines[10], 15))
    assert len(lines) == 11  # END: nothing after


def test_takeback_removes_the_last_stone_only() -> None:
    said = brain_says("START 15", "PLAY 7,7", "TAKEBACK 6,6", "TAKEBACK 7,7", "TAKEBACK 7,7")
    assert said[:2] == ["OK", "7,7"]
    assert said[2].startswith("ERROR") and said[3] == "OK" and said[4].startswith("ERROR")


def test_renju_black_never_answers_a_forbidden_point_and_free_style_black_may() -> None:
    # Black's only win is h8 (7,7): a double four (e8 f8 g8 closed by d8; h9 h10 h11 closed by h12).
    position = Board.replay("e8 d8 f8 h12 g8 a1 h9 a3 h10 o1 h11 o3")
    assert find_rules("renju").forbidden_points(position) == {Point.parse("h8"): ForbiddenReason.DOUBLE_FOUR}
    own = [m.point for m in position.move_stack[0::2] if m.point]
    theirs = [m.point for m in position.move_stack[1::2] if m.point]
    board_lines = ["BOARD", *(f"{to_xy(p, 15)},1" for p in own), *(f"{to_xy(p, 15)},2" for p in theirs), "DONE"]
    renju = brain_says("START 15", "INFO rule 4", *board_lines, level=3)
    free = brain_says("START 15", "INFO rule 0", *board_lines, level=3)
    assert renju[1] != "7,7" and position.is_empty(from_xy(renju[1], 15))
    assert free[1] == "7,7"  # the double four wins in free-style, and the engine takes it


def test_the_move_budget_is_a_fifth_of_the_turn_and_of_the_time_left_spread_over_the_moves_to_come() -> None:
    brain = Brain(io.StringIO())
    brain.handle("START 15")
    brain.handle("INFO timeout_turn 5000")
    assert brain.budget() == pytest.approx(1.0)
    brain.handle("INFO time_left 20000")  # 225 empty points: about 56 moves to come
    assert brain.budget() == pytest.approx(20.0 / 56 / 5)
    brain.handle("INFO timeout_turn 100")
    assert brain.budget() == pytest.approx(0.05)  # never below 50 ms
    brain.handle("INFO level 9")  # refused: levels are 1-5
    assert brain.settings.level == 5


# -- a whole game between two engine processes --------------------------------------------------------------


class Manager:
    """A small Gomocup manager: two engine processes, BEGIN to Black, each answer sent to the other as TURN."""

    def __init__(self, black: list[str], white: list[str], rule: int) -> None:
        self.procs = [
            subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, bufsize=1)
            for cmd in (black, white)
        ]
        for proc in self.procs:
            self.send(proc, "START 15")
            assert self.read(proc) == "OK"
            self.send(proc, "INFO timeout_turn 2000")
            self.send(proc, f"INFO rule {rule}")

    @staticmethod
    def send(proc: subprocess.Popen[str], line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    @staticmethod
    def read(proc: subprocess.Popen[str]) -> str:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline().strip()
            if not line.startswith(("MESSAGE", "DEBUG")):
                return line

    def play(self, rules_name: str, limit: int = 225) -> tuple[Board, Color | None]:
        rules = find_rules(rules_name)
        board = Board()
        self.send(self.procs[0], "BEGIN")
        while board.stone_count < limit:
            mover = self.procs[0 if board.turn is Color.BLACK else 1]
            point = from_xy(self.read(mover), 15)
            assert board.is_empty(point)
            outcome = rules.move_outcome(board, point)
            assert outcome is None or outcome.winner is board.turn, "an engine played a forbidden point"
            board.push(point)
            if outcome is not None:
                return board, outcome.winner
            other = self.procs[0 if board.turn is Color.BLACK else 1]
            self.send(other, f"TURN {to_xy(point, 15)}")
        return board, None

    def close(self) -> None:
        for proc in self.procs:
            self.send(proc, "END")
            assert proc.wait(timeout=30) == 0
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()


@pytest.mark.parametrize(("rule", "rules_name"), [(4, "renju"), (0, "freestyle")])
def test_a_whole_game_between_two_command_line_engines_ends_in_a_five(rule: int, rules_name: str) -> None:
    manager = Manager([*OURS, "--level", "2", "--seed", "1"], [*OURS, "--level", "1", "--seed", "2"], rule)
    try:
        board, winner = manager.play(rules_name)
    finally:
        manager.close()
    assert winner is not None  # levels 2 and 1 do not play 225 stones without a five
    assert find_rules(rules_name).outcome(board) is not None


# -- our manager facing engines -------------------------------------------------------------------------------


def test_our_manager_gets_a_checked_move_from_our_own_engine_and_its_about_line() -> None:
    spec = EngineSpec(OURS, turn_ms=1000, level=2)
    board = Board.replay("h8 h9")
    move = engine_move(spec, board, find_rules("renju"))
    assert board.is_empty(move.point) and move.seconds < 5
    assert about(spec).startswith('name="gomoku-tournament engine"')


def misbehaving(mode: str, *extra: str, turn_ms: int = 300) -> EngineSpec:
    return EngineSpec((sys.executable, MISBEHAVING, mode, *extra), turn_ms=turn_ms)


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("sleep", "timeout"), ("crash", "crash"), ("occupied", "illegal"), ("garbage", "garbage"), ("error", "garbage")],
)
def test_a_misbehaving_engine_is_a_failure_of_its_kind_and_never_hangs(mode: str, kind: str) -> None:
    board = Board.replay("h8 h9 j10")
    with pytest.raises(EngineFailure) as failure:
        engine_move(misbehaving(mode), board, find_rules("freestyle"))
    assert failure.value.kind == kind
    assert failure.value.code == f"engine_{kind}"


def test_a_forbidden_point_is_illegal_for_renju_black_and_a_move_in_free_style() -> None:
    board = Board.replay("g8 a1 i8 a3 h9 a5 h10 a7")
    with pytest.raises(EngineFailure) as failure:
        engine_move(misbehaving("forbidden", "7,7"), board, find_rules("renju"))
    assert failure.value.kind == "illegal" and "forbidden" in str(failure.value)
    assert engine_move(misbehaving("forbidden", "7,7"), board, find_rules("freestyle")).point == Point.parse("h8")


def test_notes_are_kept_and_an_engine_that_cannot_start_is_a_crash() -> None:
    move = engine_move(misbehaving("chatty"), Board.replay("a15"), find_rules("freestyle"))
    assert move.point == Point.parse("b15") and move.messages == ("MESSAGE thinking hard", "DEBUG depth 3")
    with pytest.raises(EngineFailure) as failure:
        engine_move(EngineSpec(("/nonexistent/engine",)), Board(), find_rules("renju"))
    assert failure.value.kind == "crash"
