"""Checking a claimed forced win move by move, by brute force.

Independent of the solver's threat reading: five points are found by trying
every empty point with :meth:`engine.rules.Rules.makes_five`, legality by the
rules' forbidden-move verdict. Used by the tests and by the benchmark to check
every VCF position of the public set.
"""

from __future__ import annotations

from engine.board import Board
from engine.notation import Color, Point
from engine.rules import Rules


def five_points(board: Board, rules: Rules, color: Color) -> list[Point]:
    """Every empty point where ``color`` would complete a winning five."""
    found = []
    for point in board.empty_points():
        index = point.index(board.size)
        board.place(index, color)
        try:
            if rules.makes_five(board, point, color):
                found.append(point)
        finally:
            board.remove(index)
    return found


def check_vcf(board: Board, rules: Rules, line: list[Point], fours_only: bool = True) -> str | None:
    """None if ``line`` is a forced win by continuous fours for the side to move, else what is wrong.

    The line alternates attacker and defender and ends with the attacker: every
    attacker move is legal and threatens five (``fours_only``), every defender
    move is its only way to stop the five, and at the end the attacker has a
    five, or two five points, or one the renju defender may not take.
    """
    work = board.copy()
    attacker = work.turn
    if not line:
        return "empty line"
    for number, point in enumerate(line):
        wrong, made_five = _one_move(work, rules, attacker, number, point)
        if wrong:
            return wrong
        mover = work.turn
        work.push(point)
        if made_five:
            return None if mover is attacker and number == len(line) - 1 else f"move {number + 1} ends the game early"
        if mover is attacker and fours_only and not five_points(work, rules, attacker):
            return f"move {number + 1} ({point}) is not a four"
    return _won_at_the_end(work, rules, attacker)


def _one_move(work: Board, rules: Rules, attacker: Color, number: int, point: Point) -> tuple[str | None, bool]:
    """What is wrong with the line's move ``number`` (before it is played), and whether it makes five."""
    mover, defender = work.turn, attacker.other
    if not work.is_empty(point):
        return f"move {number + 1} ({point}) is on an occupied point", False
    made_five = _five(work, rules, point)
    if mover is Color.BLACK and rules.forbidden_reason(work, point) is not None and not made_five:
        return f"move {number + 1} ({point}) is forbidden to Black", made_five
    if mover is defender:
        threats = five_points(work, rules, attacker)
        if point not in threats:
            return f"move {number + 1} ({point}) was not forced (the attacker threatened {threats})", made_five
    if mover is attacker and not made_five:
        counter = five_points(work, rules, defender)
        if counter and counter != [point]:
            return f"move {number + 1} ({point}) leaves the defender's five at {counter[0]}", made_five
    return None, made_five


def _won_at_the_end(work: Board, rules: Rules, attacker: Color) -> str | None:
    """The attacker moved last without a five: the defender must be unable to stop it."""
    defender = attacker.other
    if work.turn is not defender:
        return "the line does not end with the attacker's move"
    if five_points(work, rules, defender):
        return "the defender completes a five first"
    threats = five_points(work, rules, attacker)
    if len(threats) >= 2:
        return None
    if len(threats) == 1 and defender is Color.BLACK and rules.forbidden_reason(work, threats[0]) is not None:
        return None
    return "the line ends without a win"


def _five(board: Board, rules: Rules, point: Point) -> bool:
    color = board.turn
    index = point.index(board.size)
    board.place(index, color)
    try:
        return rules.makes_five(board, point, color)
    finally:
        board.remove(index)
