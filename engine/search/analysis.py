"""Post-game analysis: forced wins missed and forced wins allowed, move by move.

For each stone of a game, in the position before it:

- ``win``: the mover had a forced win, a VCF (always searched) or a VCT
  (within the limits), with its line;
- ``missed``: it had one and the move played does not keep it: not the
  line's first move, not a five, and the solver cannot prove the opponent
  lost after it;
- ``allowed``: after the move the opponent has a forced win (VCF or VCT),
  the mover had none before, and the opponent had not already had one
  (and kept it) on its own last move: the move let it happen.

The limits bound every search; an analysis says what it proved under them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.board import Board
from engine.notation import Move, Point
from engine.rules import Rules
from engine.search.solver import Budget, Solver


@dataclass(frozen=True)
class Limits:
    vcf_depth: int = 30
    vcf_nodes: int = 60_000
    vct_depth: int = 6
    vct_nodes: int = 6_000
    vct_from: int = 7  # stones on the board before VCT is searched


@dataclass
class Win:
    kind: str  # "vcf" or "vct"
    line: list[str]


@dataclass
class MoveNote:
    number: int  # the stone's move number (1 = black's first)
    point: str
    color: str
    win: Win | None = None
    missed: bool = False
    allowed: Win | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def comment(self) -> str:
        """One line for a record: ``missed a VCF: k8 l8 …`` / ``lets White win (VCT): …``."""
        parts = []
        if self.missed and self.win is not None:
            parts.append(f"missed a {self.win.kind.upper()}: {' '.join(self.win.line)}")
        if self.allowed is not None:
            other = "White" if self.color == "black" else "Black"
            parts.append(f"lets {other} win ({self.allowed.kind.upper()}): {' '.join(self.allowed.line)}")
        return "; ".join(parts)


def forced_win(board: Board, rules: Rules, limits: Limits) -> Win | None:
    """The side to move's VCF, else its VCT (from ``limits.vct_from`` stones), else None."""
    size = board.size
    line = Solver(board.copy(), rules, depth=limits.vcf_depth, nodes=limits.vcf_nodes).solve()
    if line is not None:
        return Win("vcf", [str(Point.from_index(i, size)) for i in line])
    if board.stone_count >= limits.vct_from:
        line = Solver(board.copy(), rules, threes=True, depth=limits.vct_depth, nodes=limits.vct_nodes).solve()
        if line is not None:
            return Win("vct", [str(Point.from_index(i, size)) for i in line])
    return None


def keeps_win(board: Board, rules: Rules, point: Point, limits: Limits) -> bool:
    """After the mover plays ``point``: is the opponent lost (five, or every defence fails)?"""
    work = board.copy()
    color = work.turn
    work.place(point.index(work.size), color)
    if rules.makes_five(work, point, color):
        return True
    solver = Solver(work, rules, threes=True, depth=limits.vct_depth, nodes=limits.vct_nodes)
    try:
        return solver.defends_fail(color)
    except Budget:
        return False


def analyse(moves: Iterable[Move | Point | str], rules: Rules, limits: Limits | None = None) -> list[MoveNote]:
    """Notes for every stone of a game (passes are skipped, numbers count them)."""
    limits = limits or Limits()
    board = Board()
    notes: list[MoveNote] = []
    before: Win | None = None  # the forced win of the side to move, computed once per position
    known = False  # whether ``before`` is computed for the current position
    for raw in moves:
        move = raw if isinstance(raw, Move) else Move(raw) if isinstance(raw, Point) else Move.parse(raw)
        if move.point is None:
            board.push(move)
            known = False
            continue
        if rules.outcome(board) is not None:
            break
        color = board.turn
        if not known:
            before = forced_win(board, rules, limits)
        win = before
        note = MoveNote(board.ply + 1, str(move.point), str(color), win=win)
        if win is not None:
            first = Point.parse(win.line[0])
            note.missed = move.point != first and not keeps_win(board, rules, move.point, limits)
        board.push(move)
        if rules.outcome(board) is not None:
            notes.append(note)
            break
        after = forced_win(board, rules, limits)
        previous = notes[-1] if notes else None
        already_lost = previous is not None and previous.win is not None and not previous.missed
        if after is not None and win is None and not already_lost:
            note.allowed = after
        before, known = after, True
        notes.append(note)
    # A win is not missed if the mover has one again at its next turn (the solver could not prove the
    # move played, but the position stayed won).
    for i, note in enumerate(notes):
        if note.missed and i + 2 < len(notes) and notes[i + 2].win is not None:
            note.missed = False
    return notes
