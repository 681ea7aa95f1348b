"""Swiss tie-breaks as FIDE's Tie-Break Regulations (C.07, 2023) define them, on a :class:`SwissState`.

Unplayed rounds are counted the FIDE way (article 16): for a player's own Buchholz, each round without a
game over the board (a bye, a forfeit, an absence) counts as a game against a dummy opponent with the
player's own score; when a player's score enters someone else's Buchholz, each of their voluntarily
unplayed rounds (a forfeit loss, a requested bye, an absence) counts as a draw; low cuts remove those
voluntarily unplayed rounds first (14.6). Values are integers in tenths of a point (Sonneborn-Berger in
hundredths). Rounds still being played count for nothing yet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tournament.formats import TIEBREAKS as REGISTRY
from tournament.formats import TableMetric, computes, swiss_tiebreaks
from tournament.ranking import BlockValues, Settle, by_lot, rank
from tournament.swiss.state import PLAYED, SECOND, VOLUNTARY, WIN_CODES, SwissPlayer, SwissState

DEFAULT_ORDER = ["buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter", "wins"]


@dataclass
class Standing:
    number: int
    score: int  # tenths
    values: dict[str, int]
    rank: int = 0
    decided_by: str = ""  # on equal points, the tie-break (or "lot") that placed this player; "" when not tied


@dataclass
class _Table:
    state: SwissState
    score: dict[int, int] = field(default_factory=dict)
    adjusted: dict[int, int] = field(default_factory=dict)

    numbers: dict[int, SwissPlayer] = field(default_factory=dict)
    _computed: dict[int, dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.numbers = self.state.by_number()  # once: looked up for every opponent of every player
        points = self.state.points
        for p in self.state.players:
            known = [r for r in p.rounds if r.result]
            self.score[p.number] = sum(points.points(r.result) for r in known)
            self.adjusted[p.number] = sum(
                points.draw if r.result in VOLUNTARY else points.points(r.result) for r in known
            )

    def values(self, number: int) -> dict[str, int]:
        """Every tie-break's value for player ``number`` (computed once; the direct encounter is added by its
        computation, among the players it separates)."""
        found = self._computed.get(number)
        if found is None:
            found = self._computed[number] = _values(self, self.numbers[number])
        return found

    def contributions(self, p: SwissPlayer) -> list[tuple[bool, int, int]]:
        """(voluntarily unplayed?, the opponent's score for Buchholz, the points this player took) per round."""
        own = self.score[p.number]
        out = []
        for r in p.rounds:
            if not r.result:
                continue
            taken = self.state.points.points(r.result)
            if r.played and r.opponent is not None:
                out.append((False, self.adjusted[r.opponent], taken))
            else:
                out.append((r.result in VOLUNTARY, own, taken))
        return out


def _cut(values: list[tuple[bool, int, int]], low: int, high: int = 0) -> int:
    ordered = sorted(values, key=lambda v: (not v[0], v[1]))  # voluntarily unplayed rounds are cut first
    kept = ordered[low:]
    kept = sorted(kept, key=lambda v: v[1])
    if high:
        kept = kept[:-high] if len(kept) > high else []
    return sum(v[1] for v in kept)


def _values(table: _Table, p: SwissPlayer) -> dict[str, int]:
    c = table.contributions(p)
    points = table.state.points
    running, progressive = 0, 0
    for r in p.rounds:
        if r.result:
            running += points.points(r.result)
            progressive += running
    opponents = [table.numbers[r.opponent].rating for r in p.rounds if r.played and r.opponent]
    rated = [x for x in opponents if x]
    return {
        "buchholz": sum(v[1] for v in c),
        "buchholz_cut1": _cut(c, 1),
        "median_buchholz": _cut(c, 1, 1),
        "sonneborn_berger": sum(v[1] * v[2] for v in c),
        "progressive": progressive,
        "wins": sum(1 for r in p.rounds if r.result in WIN_CODES or r.result in ("U", "F")),
        "black_games": sum(1 for r in p.rounds if r.played and r.colour == SECOND and r.result in PLAYED),
        "average_rating": round(sum(rated) / len(rated)) if rated else 0,
    }


def _direct_encounter(state: SwissState, block: list[int]) -> dict[int, int]:
    """Points scored in games among the tied players, if they all met; otherwise nothing separates them."""
    members = set(block)
    numbers = state.by_number()
    met = {(p, r.opponent) for p in block for r in numbers[p].rounds if r.opponent in members and r.result}
    if any((a, b) not in met for a in block for b in block if a != b):
        return {p: 0 for p in block}
    return {
        p: sum(state.points.points(r.result) for r in numbers[p].rounds if r.opponent in members and r.result)
        for p in block
    }


def _read(name: str) -> TableMetric:
    return lambda table, block: lambda n: table.values(n)[name]


def _among(table: _Table, block: list[int]) -> Callable[[int], int]:
    """The direct encounter among the level players, shown as it was computed: among those it separated."""
    values = _direct_encounter(table.state, block)
    for n in block:
        table.values(n)["direct_encounter"] = values[n]
    return values.__getitem__


for _name in (
    "buchholz",
    "buchholz_cut1",
    "median_buchholz",
    "sonneborn_berger",
    "progressive",
    "wins",
    "black_games",
    "average_rating",
):
    computes(_name, swiss=_read(_name))
computes("direct_encounter", swiss=_among)
TIEBREAKS = swiss_tiebreaks()  # the names a Swiss stage computes (the registry: tournament.formats.TIEBREAKS)


def standings(
    state: SwissState, order: list[str], lot_seed: str = "", settle: Settle[int] | None = None
) -> list[Standing]:
    """Everyone ranked by score, then the chosen tie-breaks in order (each computed by its record in the
    registry), then ``settle`` (``ranking.CompleteTie``), by default a recorded lot (seeded by ``lot_seed``
    and the tied players' numbers, so the same standings come out on every machine)."""
    table = _Table(state)
    rows = {p.number: Standing(p.number, table.score[p.number], table.values(p.number)) for p in state.players}

    def score(n: int) -> int:
        return rows[n].score

    def criterion(name: str) -> BlockValues[int]:
        metric = REGISTRY[name].swiss
        assert metric is not None, name
        return lambda block: metric(table, block)

    criteria = [("score", lambda block: score), *((name, criterion(name)) for name in order)]
    out = []
    for placed in rank(sorted(rows), criteria, settle or by_lot(lot_seed), primary=score):
        row = rows[placed.competitor]
        row.rank, row.decided_by = placed.place, placed.decided_by
        out.append(row)
    return out
