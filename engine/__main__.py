"""Command line: ``python -m engine forbidden|check|opening``.

The output formats are contracts other tools rely on; keep them exact.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
