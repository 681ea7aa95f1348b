"""A team event's arithmetic, with no database: each team match's game points and match points, the
standings and their tie-breaks (the RIF Team World Championship's order by default).

Points are counted in halves, so a draw is 1 and a won board 2; shown as 1, ½, 0 per board. Match points are
counted in halves too, so the regulations' 1 / ½ / 0 are kept exactly (2 / 1 / 0 here) and shown as 6½.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from tournament.ranking import BlockValues, CompleteTie, rank
from tournament.tiebreaks import TIEBREAKS, Bout, Results, tiebreak

# The RIF Team World Championship (Sport Commission rules, 4.5): game points, team match points, Buchholz and
# Berger on game points, the match between the tied teams, then the results of boards 1, 2 and 3.
RIF_ORDER = ("match_points", "buchholz", "sonneborn_berger", "direct_encounter", "board_1", "board_2", "board_3")
PRIMARY = ("game_points", "match_points")


@dataclass(frozen=True)
class MatchPoints:
    """Team match points for a won, drawn and lost match, in halves (2/1/0 by default: 4/2/0 here)."""

    win: int = 4
    draw: int = 2
    loss: int = 0

    @classmethod
    def of(cls, win: float, draw: float, loss: float) -> MatchPoints:
        """From the points as the regulations give them (1, 0.5, 0 or 3, 1, 0): each a multiple of ½."""
        return cls(*(round(2 * p) for p in (win, draw, loss)))


# What a team that sits out a round (an odd number of teams) scores: a match won with every board (``won_all``),
# a match won with every board drawn (``won_drawn``, the default), a drawn match (``drawn``), or nothing: no game
# points, no match points, not a match played (``zero``, as the Team World Championship 2008 scored its rest).
BYES = ("won_drawn", "won_all", "drawn", "zero")


@dataclass(frozen=True)
class TeamResult:
    """One team match as the boards stand: ``boards[b]`` = (home's points, away's points) in halves for each
    finished board (forfeits included), board 1 first; ``away`` None for a bye; ``complete`` when every board
    has its result; ``match`` the team match it is."""

    home: int
    away: int | None
    boards: dict[int, tuple[int, int]]
    complete: bool
    match: int = 0  # the team match's id: results are read by match, never by team


@dataclass
class TeamRow:
    team: int
    game_points: int = 0  # halves
    match_points: int = 0
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    values: dict[str, int] = field(default_factory=dict)
    rank: int = 0
    decided_by: str = ""


def match_outcome(result: TeamResult, boards: int, bye: str = "won_drawn") -> tuple[int, int]:
    """(home, away) game points in halves; a bye as the event scores it (``BYES``: the bye's side is the
    second number, compared with the first for won, drawn or lost)."""
    if result.away is None:
        return {"won_all": (2 * boards, 0), "won_drawn": (boards, 0), "drawn": (boards, boards)}.get(bye, (0, 0))
    home = sum(h for h, _a in result.boards.values())
    away = sum(a for _h, a in result.boards.values())
    return home, away


def standings(
    teams: Sequence[int],
    results: Sequence[TeamResult],
    *,
    boards: int,
    points: MatchPoints = MatchPoints(),
    bye: str = "won_drawn",
    primary: str = "game_points",
    order: Sequence[str] = RIF_ORDER,
    lot_seed: str = "",
    complete_tie: str = "share",
    decisions: Sequence[Sequence[int]] = (),
    precise: Sequence[int] = (),
) -> list[TeamRow]:
    """Every team ranked by ``primary`` (game or match points), then the tie-breaks in ``order``. Teams level
    on all of them (a complete tie) share the place (``complete_tie`` "share"), wait for an extra game whose
    order the organizer records (``decisions``: lists of team ids, best first) — with "share", only where
    the tie holds a place in ``precise`` and the one after it (a medal, a qualifying spot) —, or are ordered
    by a recorded lot (seeded by ``lot_seed`` and the tied teams' ids): ``ranking.CompleteTie``. Only complete
    team matches count; a bye scores as ``bye`` says, and is a match played unless it scores nothing."""
    rows = {t: TeamRow(t) for t in teams}
    opponents: dict[int, list[tuple[int, int]]] = defaultdict(list)  # team -> (opponent, own game points there)
    met: dict[tuple[int, int], int] = defaultdict(int)  # (team, opponent) -> match points taken
    by_board: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for result in results:
        if not result.complete or (result.away is None and bye == "zero"):
            continue
        home, away = match_outcome(result, boards, bye)
        sides = [(result.home, result.away, home, away)]
        if result.away is not None:
            sides.append((result.away, result.home, away, home))
        for team, other, mine, theirs in sides:
            row = rows[team]
            row.game_points += mine
            row.played += 1
            won = mine > theirs
            drawn = mine == theirs
            row.won, row.drawn, row.lost = row.won + won, row.drawn + drawn, row.lost + (not won and not drawn)
            taken = points.win if won else points.draw if drawn else points.loss
            row.match_points += taken
            if other is not None:
                opponents[team].append((other, mine))
                met[(team, other)] += taken
                for board, (h, a) in result.boards.items():
                    by_board[team][board] += h if team == result.home else a
    view = Results(
        {t: [Bout(o, rows[o].game_points, mine) for o, mine in opponents[t]] for t in rows},
        {pair: taken for pair, taken in met.items()},
        kept={
            t: {
                "game_points": row.game_points,
                "match_points": row.match_points,
                **{f"board_{b}": by_board[t][b] for b in range(1, boards + 1)},
            }
            for t, row in rows.items()
        },
        unit=2,
    )
    shown = ("game_points", "match_points", "buchholz", "sonneborn_berger")
    for team, row in rows.items():
        row.values = {
            **{name: TIEBREAKS[name].value(view, team) for name in shown},
            **{f"board_{b}": by_board[team][b] for b in range(1, boards + 1)},
        }
    tie = CompleteTie(complete_tie, lot_seed, decisions, precise)
    return _ranked(rows, primary, [n for n in order if n != primary], view, tie)


def _ranked(
    rows: dict[int, TeamRow], primary: str, order: Sequence[str], view: Results, tie: CompleteTie
) -> list[TeamRow]:
    """The one ranking (tournament.ranking): the primary score, the tie-breaks (each computed by its class of
    tournament.tiebreaks on the team view), then the complete tie's rule."""

    def criterion(name: str) -> BlockValues[int]:
        metric = tiebreak(name)
        return lambda block: metric.compute(view, block)

    criteria = [(name, criterion(name)) for name in (primary, *order)]
    out = []
    for placed in rank(sorted(rows), criteria, tie.settle):
        row = rows[placed.competitor]
        row.rank, row.decided_by = placed.place, placed.decided_by
        out.append(row)
    return out


def unit(name: str) -> int:
    """How many of a stored value make one point of what is shown: halves to a point, so Berger (game points
    times game points) in quarters (its class's power)."""
    return int(2 ** tiebreak(name).power)


def points_value(name: str, value: int) -> float | int:
    """A stored value in the points it is shown in: a whole number when it is one (13), else exact (6.5,
    355.25: halves and quarters are binary fractions)."""
    whole, part = divmod(value, unit(name))
    return value / unit(name) if part else whole


_FRACTIONS = {0: "", 1: "¼", 2: "½", 3: "¾"}


def value_text(name: str, value: int) -> str:
    """A value as a person reads it: whole points and ¼, ½ or ¾ (6½ game points, Buchholz 18½)."""
    whole, part = divmod(value * (4 // unit(name)), 4)
    text = _FRACTIONS[part]
    return f"{whole}{text}" if whole or not text else text


# The tie-breaks a team event offers (each a class of tournament.tiebreaks).
TEAM_TIEBREAKS = (
    "sonneborn_berger",
    "buchholz",
    "direct_encounter",
    "game_points",
    "match_points",
    "board_1",
    "board_2",
    "board_3",
)


def team_tiebreaks() -> list[str]:
    """The names a team event can order by."""
    return list(TEAM_TIEBREAKS)


def board_colours(boards: int, home_first: bool) -> list[bool]:
    """For each board (1 first): does the first-named team's player have the first move (black)? Colours
    alternate board by board; ``home_first`` is board 1's (by the pairing's role, or a recorded lot)."""
    return [home_first if b % 2 == 0 else not home_first for b in range(boards)]
