"""Command line: ``python -m engine forbidden|check|opening|record|vcf|best|pbrain|native``.

The output formats are contracts other tools rely on; keep them exact.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from engine.board import Board, IllegalMoveError
from engine.notation import InvalidMoveError, parse_moves
from engine.rules import RULES, find_rules


def _rules_name(args: argparse.Namespace) -> str:
    if args.rule == "renju" and args.three_reading == "legal":
        return "renju-a"
    return str(args.rule)


def cmd_forbidden(args: argparse.Namespace) -> int:
    """One line in, one line out: Black's forbidden points, sorted by column then row."""
    rules = find_rules(_rules_name(args))
    status = 0
    out = sys.stdout
    for raw in sys.stdin:
        line = raw.strip()
        try:
            board = Board.replay(parse_moves(line))
            points = rules.forbidden_points(board)
        except (InvalidMoveError, IllegalMoveError) as exc:
            out.write(f"error: {exc}\n")
            status = 1
            continue
        if args.explain:
            out.write(" ".join(f"{point}:{reason}" for point, reason in points.items()) + "\n")
        else:
            out.write(" ".join(str(point) for point in points) + "\n")
    out.flush()
    return status


def cmd_check(args: argparse.Namespace) -> int:
    """What the last move did: ``five black``, ``forbidden double-three``, ``none`` …"""
    rules = find_rules(_rules_name(args))
    try:
        board = Board.replay(parse_moves(" ".join(args.moves)), size=args.size)
    except (InvalidMoveError, IllegalMoveError) as exc:
        print(f"error: {exc}")
        return 2
    outcome = rules.outcome(board)
    print(str(outcome) if outcome else "none")
    return 0


def cmd_opening(args: argparse.Namespace) -> int:
    """``3 3D 疏星 Sosei`` for the three stones, or an error."""
    from engine.openings import identify

    try:
        moves = parse_moves(" ".join(args.moves))
    except InvalidMoveError as exc:
        print(f"error: {exc}")
        return 2
    stones = [m.point for m in moves if m.point is not None]
    if len(moves) != 3 or len(stones) != 3:
        print("error: an opening is three stones, black 1, white 2, black 3 (like h8 h9 j10)")
        return 2
    if len(set(stones)) != 3:
        print("error: the three stones must be on different points")
        return 2
    found = identify(stones)
    if found is None:
        wider = identify(stones, include_52=True)
        if wider is not None:
            print(f"error: not one of the 26 openings (52-opening extension: {wider.opening.summary()})")
        else:
            print("error: not one of the 26 openings (black 1 on h8, white 2 next to it, black 3 in the 5x5)")
        return 1
    print(found.opening.summary())
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    """Read and check the game records on stdin (plain or ``.rif``): one line per game.

    ``ok stones=37 opening=3D end=five-black result=1-0 reason=five`` (``opening=-`` outside the 52,
    ``end=open`` when the board did not end the game, ``result=*`` when none is given), or
    ``error: <what and where>``; the status is 1 when any game fails.
    """
    from engine.errors import EngineError
    from engine.protocols import Options, start
    from engine.records import check_record, parse_actions, read_records, replay_actions, replay_record
    from engine.records import result_from_code as read_result

    try:
        records = read_records(sys.stdin.read())
    except EngineError as exc:
        print(f"error: {exc}")
        return 1
    status = 0
    for record in records:
        header = record.header
        try:
            rules = header.get("Rule", "renju") or "renju"
            protocol = header.get("Protocol", "") or "none"
            options = Options(**json.loads(header.get("Options", "") or "{}"))
            start(protocol, options)
            stones = record.moves
            if "{" in record.moves:
                stones = replay_actions(protocol, options, parse_actions(record.moves)).stones
            result, reason = read_result(header.get("Result", "")), header.get("Reason", "")
            replay = replay_record(stones, rules)
            checked = reason or _reason_on_board(replay, result)
            if result and checked:
                replay = check_record(stones, rules, header.get("Forbidden", "claim"), result, checked)
        except EngineError as exc:
            print(f"error: {exc}")
            status = 1
            continue
        except (ValueError, TypeError) as exc:  # a malformed Options header
            print(f"error: bad header: {exc}")
            status = 1
            continue
        print(_record_line(replay, result, reason))
    return status


def _reason_on_board(replay: Any, result: str) -> str:
    """What the board says ended the game, for a record without a Reason (empty: a referee's matter)."""
    if replay.end is not None:
        return "five" if replay.end[1].winner else "full-board"
    last = len(replay.board.move_stack)
    if result == "white" and replay.fouls and replay.fouls[-1].move_number == last:
        return "forbidden"
    return ""


def _record_line(replay: Any, result: str, reason: str) -> str:
    from engine.openings import identify

    placed = [m.point for m in replay.board.move_stack if m.point is not None]
    found = identify(placed[:3], include_52=True) if len(placed) >= 3 else None
    if replay.end is not None:
        outcome = replay.end[1]
        end = f"five-{outcome.winner}" if outcome.winner else outcome.termination.value
    elif replay.fouls and replay.fouls[-1].move_number == len(replay.board.move_stack):
        end = f"forbidden-{replay.fouls[-1].kind}"
    else:
        end = "open"
    code = {"black": "1-0", "white": "0-1", "draw": "1/2-1/2"}.get(result, "*")
    line = f"ok stones={len(placed)} opening={found.opening.code if found else '-'} end={end} result={code}"
    return line + (f" reason={reason}" if reason else "")


def _board_or_error(args: argparse.Namespace) -> Board | None:
    try:
        return Board.replay(parse_moves(" ".join(args.moves)), size=args.size)
    except (InvalidMoveError, IllegalMoveError) as exc:
        print(f"error: {exc}")
        return None


def cmd_vcf(args: argparse.Namespace) -> int:
    """The side to move's forced win as moves of both sides (``k8 l8 k7 k6 k11``), or ``none``."""
    from engine.search import find_vcf, find_vct

    board = _board_or_error(args)
    if board is None:
        return 2
    rules = find_rules(_rules_name(args))
    if rules.outcome(board) is not None:
        print("error: the game is already over")
        return 2
    if args.vct:
        line = find_vct(board, rules, depth=args.depth or 8, nodes=args.nodes)
    else:
        line = find_vcf(board, rules, depth=args.depth or 30, nodes=args.nodes)
    print(" ".join(str(p) for p in line) if line else "none")
    return 0


def cmd_best(args: argparse.Namespace) -> int:
    """A move for the side to move at the given level (``h8``)."""
    from engine.errors import EngineError
    from engine.search.players import ComputerPlayer

    board = _board_or_error(args)
    if board is None:
        return 2
    rules = find_rules(_rules_name(args))
    if rules.outcome(board) is not None or board.is_full():
        print("error: the game is already over")
        return 2
    try:
        player = ComputerPlayer(rules, args.level, seed=args.seed, seconds=args.seconds)
    except EngineError as exc:
        print(f"error: {exc}")
        return 2
    try:
        print(player.best_move(board))
    except EngineError as exc:
        if exc.code != "no_legal_move":
            raise
        print("pass")  # every empty point is forbidden to Black: passing is the only move
    return 0


def cmd_native(args: argparse.Namespace) -> int:
    """The compiled build (engine/native.py): say which one runs, or make one."""
    from engine import native

    return native.main((["build"] if args.build else []) + (["--optional"] if args.optional else []))


def cmd_pbrain(args: argparse.Namespace) -> int:
    """The Gomocup engine protocol on stdin/stdout, for Piskvork and other managers (engine/pbrain.py)."""
    from engine.pbrain import serve

    return serve(level=args.level, seed=args.seed)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Gomoku and renju rules.")
    sub = parser.add_subparsers(dest="command", required=True)

    def add_rule_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rule", default="renju", choices=sorted(RULES), help="rule set (default: renju)")
        p.add_argument(
            "--three-reading",
            default="rif",
            choices=["rif", "legal"],
            help="decision D1: a three whose straight-four point also makes five is no three "
            "(rif, default) or a real three (legal)",
        )

    forbidden = sub.add_parser("forbidden", help="black's forbidden points for each move list on stdin")
    forbidden.add_argument("--explain", action="store_true", help="follow each point with :kind")
    add_rule_options(forbidden)
    forbidden.set_defaults(func=cmd_forbidden)

    check = sub.add_parser("check", help="what the last move of a move list did")
    check.add_argument("moves", nargs="+")
    check.add_argument("--size", type=int, default=15)
    add_rule_options(check)
    check.set_defaults(func=cmd_check)

    opening = sub.add_parser("opening", help="name the opening of three stones")
    opening.add_argument("moves", nargs="+")
    opening.set_defaults(func=cmd_opening)

    record = sub.add_parser("record", help="read and check the game records on stdin (plain or .rif)")
    record.set_defaults(func=cmd_record)

    vcf = sub.add_parser("vcf", help="a forced win by continuous fours for the side to move, or none")
    vcf.add_argument("moves", nargs="*")
    vcf.add_argument("--size", type=int, default=15)
    vcf.add_argument("--vct", action="store_true", help="also threes (victory by continuous threats)")
    vcf.add_argument("--depth", type=int, default=0, help="attacker moves at most (default 30, VCT 8)")
    vcf.add_argument("--nodes", type=int, default=200_000, help="positions searched at most")
    add_rule_options(vcf)
    vcf.set_defaults(func=cmd_vcf)

    best = sub.add_parser("best", help="the computer's move for the side to move")
    best.add_argument("moves", nargs="*")
    best.add_argument("--level", type=int, default=3, help="1 (beginner) to 5 (master)")
    best.add_argument("--seed", type=int, default=0)
    best.add_argument("--seconds", type=float, default=None, help="a time limit for the search")
    best.add_argument("--size", type=int, default=15)
    add_rule_options(best)
    best.set_defaults(func=cmd_best)

    pbrain = sub.add_parser("pbrain", help="speak the Gomocup engine protocol on stdin and stdout")
    pbrain.add_argument("--level", type=int, default=5, choices=range(1, 6), help="1 to 5 (INFO level changes it)")
    pbrain.add_argument("--seed", type=int, default=0)
    pbrain.set_defaults(func=cmd_pbrain)
    native = sub.add_parser("native", help="which build runs (compiled or pure); --build compiles this source")
    native.add_argument("--build", action="store_true", help="compile the hot modules with mypyc")
    native.add_argument("--optional", action="store_true", help="with --build: a failed build is not an error")
    native.set_defaults(func=cmd_native)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
