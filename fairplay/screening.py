"""One game screened for engine assistance, move by move, with the rules engine alone (no Django).

For each stone, in the position before it, the mover's situation decides whether the move was a **real
choice**:

- ``opening``: placed under the opening rule (the protocol's stones, the first stone of a free game);
- ``won``: the mover had a five to make, or a forced win by fours (a VCF), or the search sees a win: any
  sensible move wins, so agreeing with an engine says nothing;
- ``block``: the opponent had a five to make, and the mover one point to stop it;
- ``only``: the opponent had a VCF and only one of the candidate moves stops it;
- ``lost``: nothing stops the opponent: every move loses.

Forced moves are shown but not counted. For a real choice, the engine's candidates (the ``candidates`` best
points by the one-ply score, and the move played) are searched at fixed settings (alpha-beta, ``depth``
plies, ``nodes`` nodes — the computer's top level's search — single-threaded, so the result depends on
nothing but the position): the move's
``rank`` among them (1: the engine's choice; ties share a rank), the winning chance it gave up against the
best (``loss``, the search's score mapped to a chance by a logistic of ``scale``), and how many candidates
were within ``margin`` of the best (``near_equal``: an easy position has one, a hard one many), and the move's
rank at each depth the search finished (``depth_ranks``: a move the engine prefers only at its deepest search
is shown to the referees; it is not in the statistics). The think time is stored beside it, for the statistics
(fairplay.stats).

The same record at the same settings gives the same screening, move for move (tested).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from engine.board import Board
from engine.notation import Point
from engine.rules import Rules, find_rules
from engine.search.alphabeta import AlphaBeta
from engine.search.evaluate import WIN, scored_points
from engine.search.solver import find_vcf
from engine.search.threats import Threats

DECIDED = WIN - 100  # a search score this large is a forced result


@dataclass(frozen=True)
class Settings:
    """What a screening was computed with; recorded with it, and with the calibration it is judged by."""

    engine: str = "builtin alpha-beta"
    version: str = "2026.12"
    depth: int = 7  # the computer's top level's search: what a player who asks an engine is shown
    nodes: int = 60_000
    candidates: int = 10
    vcf_depth: int = 12
    vcf_nodes: int = 4_000
    scale: float = 1_000.0  # search score -> winning chance: 1 / (1 + exp(-score / scale)); a middle game spans ±2,000
    margin: float = 0.05  # a candidate within this chance of the best is near-equal

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


SETTINGS = Settings()


@dataclass(frozen=True)
class MoveScreen:
    number: int  # the stone's number (1: black's first)
    point: str
    color: str  # "black" or "white"
    forced: str  # "" for a real choice; else opening, won, block, only, lost
    rank: int = 0  # real choices: 1 is the engine's choice (ties share it)
    candidates: int = 0
    near_equal: int = 0
    loss: float = 0.0  # winning chance given up against the engine's best, 0 to 1
    think_ms: int | None = None
    depth_ranks: tuple[int, ...] = ()  # the move's rank at each depth the search finished (1, 2, … plies)

    @property
    def counted(self) -> bool:
        return not self.forced

    @property
    def matched(self) -> bool:
        return self.rank == 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MoveScreen:
        return cls(**{**data, "depth_ranks": tuple(data.get("depth_ranks", ()))})


def chance(score: int, scale: float) -> float:
    """A search score as the mover's winning chance (0 to 1)."""
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, score / scale))))


def screen(
    stones: list[str],
    rules_name: str,
    think_ms: list[int | None] | None = None,
    fixed: int = 1,
    settings: Settings = SETTINGS,
) -> list[MoveScreen]:
    """Every stone of a game screened: ``stones`` in order (``pass`` allowed), ``think_ms`` each stone's
    think time (None where unknown), ``fixed`` the stones placed under the opening rule."""
    rules = find_rules(rules_name)
    board = Board()
    times = think_ms or [None] * len(stones)
    found = []
    for number, text in enumerate(stones, start=1):
        if text == "pass":
            board.push_pass()
            continue
        point = Point.parse(text)
        color = "black" if number % 2 else "white"
        think = times[number - 1] if number - 1 < len(times) else None
        if number <= fixed:
            found.append(MoveScreen(number, text, color, "opening", think_ms=think))
        else:
            found.append(_screen_move(board, rules, point, number, color, think, settings))
        board.push(point)
    return found


def _screen_move(
    board: Board, rules: Rules, point: Point, number: int, color: str, think: int | None, settings: Settings
) -> MoveScreen:
    size = board.size
    me = 1 if color == "black" else 2
    threats = Threats(board, rules)
    played = point.index(size)

    def forced(kind: str) -> MoveScreen:
        return MoveScreen(number, str(point), color, kind, think_ms=think)

    if threats.fives(me) or find_vcf(board, rules, settings.vcf_depth, settings.vcf_nodes) is not None:
        return forced("won")
    theirs = threats.fives(3 - me)
    if theirs:
        return forced("block" if len(theirs) == 1 else "lost")
    roots = [i for _s, i in scored_points(board, me) if threats.legal(i, me)][: settings.candidates]
    if played not in roots:
        roots.append(played)
    defences = _defences(board, rules, roots, settings)
    if defences is not None:
        if not defences:
            return forced("lost")
        if len(defences) == 1:
            return forced("only")
        roots = [i for i in roots if i in defences or i == played]
    result = AlphaBeta(board.copy(), rules, max_depth=settings.depth, nodes=settings.nodes).run(roots)
    scores = result.scores or {played: 0}
    best = max(scores.values())
    if best >= DECIDED:
        return forced("won")
    if best <= -DECIDED:
        return forced("lost")
    mine = scores.get(played, min(scores.values()))
    depth_ranks = tuple(_rank(found, played) for found in result.by_depth)
    top = chance(best, settings.scale)
    chances = {i: chance(s, settings.scale) for i, s in scores.items()}
    return MoveScreen(
        number,
        str(point),
        color,
        "",
        rank=_rank(scores, played),
        candidates=len(scores),
        near_equal=sum(1 for c in chances.values() if top - c <= settings.margin),
        loss=round(max(0.0, top - chances.get(played, chance(mine, settings.scale))), 6),
        think_ms=think,
        depth_ranks=depth_ranks,
    )


def _rank(scores: dict[int, int], played: int) -> int:
    """The played move's rank among the searched candidates (1: the engine's choice; ties share a rank)."""
    mine = scores.get(played, min(scores.values()))
    return 1 + sum(1 for s in scores.values() if s > mine)


def _defences(board: Board, rules: Rules, roots: list[int], settings: Settings) -> set[int] | None:
    """The candidate moves after which the opponent has no VCF; None when no candidate leaves it one (the
    opponent threatens nothing by fours)."""
    size = board.size
    safe = set()
    for i in roots:
        after = board.copy()
        after.push(Point.from_index(i, size))
        if find_vcf(after, rules, settings.vcf_depth, settings.vcf_nodes) is None:
            safe.add(i)
    return None if len(safe) == len(roots) else safe
