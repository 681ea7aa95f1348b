"""Swiss tie-breaks as FIDE's Tie-Break Regulations (C.07, 2023) define them, on a :class:`SwissState`.

Unplayed rounds are counted the FIDE way (article 16): for a player's own Buchholz, each round without a
game over the board (a bye, a forfeit, an absence) counts as a game against a dummy opponent with the
player's own score; when a player's score enters someone else's Buchholz, each of their voluntarily
unplayed rounds (a forfeit loss, a requested bye, an absence) counts as a draw; low cuts remove those
voluntarily unplayed rounds first (14.6). Values are integers in tenths of a point (Sonneborn-Berger in
hundredths). Rounds still being played count for nothing yet.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from tournament.ranking import BlockValues, Settle, by_lot, rank
from tournament.swiss.state import PLAYED, SECOND, VOLUNTARY, WIN_CODES, SwissState
from tournament.tiebreaks import TIEBREAKS as REGISTRY
from tournament.tiebreaks import Bout, Results

DEFAULT_ORDER = ["buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter", "wins"]
# The tie-breaks a Swiss stage offers (FIDE C.07; each a class of tournament.tiebreaks).
TIEBREAKS = [
    "wins",
    "sonneborn_berger",
    "buchholz",
    "buchholz_cut1",
    "median_buchholz",
    "progressive",
    "direct_encounter",
    "black_games",
    "average_rating",
]


@dataclass
class Standing:
    number: int
    score: int  # tenths
    values: dict[str, int]
    rank: int = 0
    decided_by: str = ""  # on equal points, the tie-break (or "lot") that placed this player; "" when not tied


def scores(state: SwissState) -> tuple[dict[int, int], dict[int, int]]:
    """Each player's score, and the score that enters someone else's Buchholz (each voluntarily unplayed
    round counted as a draw), in tenths."""
    points = state.points
    score, adjusted = {}, {}
    for p in state.players:
        known = [r for r in p.rounds if r.result]
        score[p.number] = sum(points.points(r.result) for r in known)
        adjusted[p.number] = sum(points.draw if r.result in VOLUNTARY else points.points(r.result) for r in known)
    return score, adjusted


def results(state: SwissState) -> Results:
    """The Swiss stage as the tie-breaks see it (tournament.tiebreaks): a bout per round with a result, the
    opponent's adjusted score, or the player's own for a round without a game over the board (a dummy);
    what each took from each opponent (played or forfeited), for the direct encounter; the ratings."""
    score, adjusted = scores(state)
    points = state.points
    bouts: dict[Hashable, list[Bout]] = {}
    met: dict[tuple[Hashable, Hashable], int] = {}
    for p in state.players:
        own = []
        for r in p.rounds:
            if not r.result:
                continue
            taken = points.points(r.result)
            won = r.result in WIN_CODES or r.result in ("U", "F")
            if r.opponent is not None:
                met[(p.number, r.opponent)] = met.get((p.number, r.opponent), 0) + taken
            if r.played and r.opponent is not None:
                second = r.colour == SECOND and r.result in PLAYED
                own.append(Bout(r.opponent, adjusted[r.opponent], taken, won=won, second=second))
            else:
                own.append(Bout(None, score[p.number], taken, voluntary=r.result in VOLUNTARY, won=won))
        bouts[p.number] = own
    return Results(bouts, met, {p.number: p.rating for p in state.players}, unit=10)


def standings(
    state: SwissState, order: list[str], lot_seed: str = "", settle: Settle[int] | None = None
) -> list[Standing]:
    """Everyone ranked by score, then the chosen tie-breaks in order (each computed by its class), then
    ``settle`` (``ranking.CompleteTie``), by default a recorded lot (seeded by ``lot_seed`` and the tied players'
    numbers, so the same standings come out on every machine). A tie-break computed among the level players
    (the direct encounter) is shown as it was computed for them."""
    view = results(state)
    score, _adjusted = scores(state)
    each = [REGISTRY[name] for name in TIEBREAKS if not REGISTRY[name].among]
    rows = {
        p.number: Standing(p.number, score[p.number], {t.key: t.value(view, p.number) for t in each})
        for p in state.players
    }

    def criterion(name: str) -> BlockValues[int]:
        metric = REGISTRY[name]

        def among(block: list[int]) -> Callable[[int], int]:
            value = metric.compute(view, block)
            if metric.among:
                for n in block:
                    rows[n].values[name] = value(n)
            return value

        return among

    criteria = [("score", lambda block: lambda n: rows[n].score), *((name, criterion(name)) for name in order)]
    out = []
    for placed in rank(sorted(rows), criteria, settle or by_lot(lot_seed), primary=lambda n: rows[n].score):
        row = rows[placed.competitor]
        row.rank, row.decided_by = placed.place, placed.decided_by
        out.append(row)
    return out
