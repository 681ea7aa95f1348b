"""Ratings from dated results, with no database: Whole-History Rating as the RIF computes its list, and Elo
as clubs and national lists do.

WHR (Rémi Coulom) through the ``whr`` package (its C++ core is by the author of the RIF's own list,
wind23/whr_renju), with that list's parameters: w² (rating variance per day, in Elo²) 19.3 for renju and
10.7 for gomoku since 1 April 2024 (12.9 for both from August 2021 to March 2024), two virtual draws
against a 0-rated player on each player's first day, and ratings shown as 1900 + the WHR Elo. Each game is
dated at its tournament's end, as the RIF list dates them.

Elo's K (:class:`EloRule`) is read from the number of rated games a player had **before the day** a game is
dated (its tournament's end): every game of that day uses the same K, and the day's changes are added
together after it (a tournament's games all count from the ratings it started with). A player with 29 games
who plays 7 on one day has K 40 for all 7; from the next day on, with 36, K 20.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

EPOCH = date(1970, 1, 1)
RIF_W2 = {"renju": 19.3, "gomoku": 10.7}  # since 1 April 2024
RIF_W2_2021 = 12.9  # August 2021 to March 2024, both categories
RIF_VIRTUAL_GAMES = 2
RIF_OFFSET = 1900.0


@dataclass(frozen=True)
class Result:
    """One rated game: who had black and white, the result (``B``, ``W`` or ``D``) and its day."""

    black: str
    white: str
    result: str
    day: int


def day_of(when: date) -> int:
    """A game's time step: days since 1970-01-01."""
    return (when - EPOCH).days


def date_of(day: int) -> date:
    return date.fromordinal(EPOCH.toordinal() + day)


@dataclass(frozen=True)
class Point:
    """A player's rating on a day, with its uncertainty (WHR's standard deviation; 0 for Elo)."""

    day: int
    rating: float
    deviation: float = 0.0


def whr_ratings(
    results: Iterable[Result],
    *,
    w2: float,
    virtual_games: int = RIF_VIRTUAL_GAMES,
    offset: float = RIF_OFFSET,
) -> dict[str, list[Point]]:
    """Every player's rating history by WHR, iterated until it converges (``w2``: the category's, see RIF_W2)."""
    import whr

    base = whr.Base(config={"w2": w2, "virtual_games": virtual_games})
    rated = list(results)
    if not rated:
        return {}
    base.create_games([[r.black, r.white, r.result, r.day, 0.0] for r in rated])
    base.iterate_until_converge(verbose=False)
    players = {name for r in rated for name in (r.black, r.white)}
    return {
        name: [Point(int(day), offset + float(elo), float(sd)) for day, elo, sd in base.ratings_for_player(name)]
        for name in sorted(players)
    }


@dataclass(frozen=True)
class EloRule:
    """K by experience, as FIDE and many clubs set it: ``k_new`` for a player's first ``new_games`` games,
    ``k`` after, ``k_top`` once the rating has reached ``top``; newcomers start at ``initial``."""

    initial: float = 1500.0
    k_new: float = 40.0
    new_games: int = 30
    k: float = 20.0
    k_top: float = 10.0
    top: float = 2400.0

    def k_for(self, games: int, rating: float, peak: float) -> float:
        if games < self.new_games:
            return self.k_new
        return self.k_top if peak >= self.top else self.k


def expected(rating: float, other: float) -> float:
    """Elo's expected score of a player rated ``rating`` against ``other``."""
    return 1.0 / (1.0 + 10 ** ((other - rating) / 400.0))


def elo_ratings(results: Sequence[Result], rule: EloRule | None = None) -> dict[str, list[Point]]:
    """Every player's rating after each day, games of a day rated from the ratings before it (a
    tournament's games all count from the ratings it started with)."""
    rule = rule or EloRule()
    rating: dict[str, float] = {}
    games: dict[str, int] = {}
    peak: dict[str, float] = {}
    history: dict[str, list[Point]] = {}
    by_day: dict[int, list[Result]] = {}
    for r in results:
        by_day.setdefault(r.day, []).append(r)
    for day in sorted(by_day):
        before = dict(rating)
        change: dict[str, float] = {}
        played: dict[str, int] = {}
        for r in by_day[day]:
            b, w = before.get(r.black, rule.initial), before.get(r.white, rule.initial)
            score = {"B": 1.0, "W": 0.0, "D": 0.5}[r.result]
            for name, own, other, s in ((r.black, b, w, score), (r.white, w, b, 1.0 - score)):
                k = rule.k_for(games.get(name, 0), own, peak.get(name, own))
                change[name] = change.get(name, 0.0) + k * (s - expected(own, other))
                played[name] = played.get(name, 0) + 1
        for name, delta in change.items():
            rating[name] = before.get(name, rule.initial) + delta
            games[name] = games.get(name, 0) + played[name]
            peak[name] = max(peak.get(name, rating[name]), rating[name])
            history.setdefault(name, []).append(Point(day, rating[name]))
    return history
