"""Tie-breaks, one class each (Tabbycat's metric annotators are the model): its key, its short name and title,
its unit, and one computation over a format-neutral view of the results (:class:`Results`), so Buchholz,
Sonneborn-Berger and the rest exist once whoever is ranked — a round-robin group's players, a Swiss stage's
players, a team event's teams. A format builds the view from its own results (``tournament.formats`` for the
groups, :mod:`tournament.swiss.tiebreaks`, :mod:`tournament.teams.scoring`), lists the tie-breaks it offers,
and ranks by them with :mod:`tournament.ranking`.

Values are integers in the view's units (``Results.unit`` to a point: a Swiss stage's tenths, a team event's
halves, a group's points as they are); a tie-break's ``power`` says how many of those units its value
multiplies (Buchholz adds scores: 1; Sonneborn-Berger multiplies a score by a score: 2; a count: 0), so it
is shown divided by ``unit ** power``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

Value = Callable[[Hashable], int]


@dataclass(frozen=True)
class Bout:
    """One round (or game) of a competitor as the tie-breaks see it."""

    opponent: Hashable | None  # None: not played over the board (a bye, a forfeit, an absence)
    opponent_score: int  # what this round adds to a Buchholz: the opponent's score, or a dummy's when unplayed
    taken: int  # what the competitor took from it, in the weight Sonneborn-Berger gives a result
    voluntary: bool = False  # voluntarily unplayed (a forfeit loss, a requested bye): cut first
    won: bool = False
    white: bool = False  # played with white
    second: bool = False  # played over the board with the second move


@dataclass
class Results:
    """The format-neutral view of a stage's results: each competitor's bouts in order, what each took from
    each opponent it met (``met[(a, b)]``, in the score's units), ratings, the values a format keeps itself
    (a team's game points, match points and boards), and how many units make a point."""

    bouts: dict[Hashable, list[Bout]]
    met: dict[tuple[Hashable, Hashable], int] = field(default_factory=dict)
    ratings: dict[Hashable, int] = field(default_factory=dict)
    kept: dict[Hashable, dict[str, int]] = field(default_factory=dict)
    unit: int = 1


class TieBreak:
    """A tie-break: for a block of level competitors, the value that orders them (higher first)."""

    key: ClassVar[str]
    short: ClassVar[str]
    title: ClassVar[str | Promise]
    power: ClassVar[int] = 0
    among: ClassVar[bool] = False  # computed among the level competitors only (shown as computed for them)

    def compute(self, results: Results, block: Sequence[Hashable]) -> Value:
        """The values of a block of level competitors."""
        return lambda competitor: self.value(results, competitor)

    def value(self, results: Results, competitor: Hashable) -> int:
        raise NotImplementedError(self.key)

    def shown(self, results: Results, value: int) -> float:
        """A value in points (or a count) as a person reads it."""
        return value / int(results.unit**self.power)


def _cut(bouts: Sequence[Bout], low: int, high: int = 0) -> int:
    """A Buchholz without its ``low`` lowest rounds (voluntarily unplayed ones first) and ``high`` highest."""
    ordered = sorted(bouts, key=lambda b: (not b.voluntary, b.opponent_score))
    kept = sorted(ordered[low:], key=lambda b: b.opponent_score)
    if high:
        kept = kept[:-high] if len(kept) > high else []
    return sum(b.opponent_score for b in kept)


class Buchholz(TieBreak):
    key, short, title, power = "buchholz", "BH", _("Buchholz"), 1

    def value(self, results: Results, competitor: Hashable) -> int:
        return sum(b.opponent_score for b in results.bouts[competitor])


class BuchholzCut1(TieBreak):
    key, short, title, power = "buchholz_cut1", "BH-C1", _("Buchholz cut 1"), 1

    def value(self, results: Results, competitor: Hashable) -> int:
        return _cut(results.bouts[competitor], 1)


class MedianBuchholz(TieBreak):
    key, short, title, power = "median_buchholz", "BH-M1", _("median Buchholz"), 1

    def value(self, results: Results, competitor: Hashable) -> int:
        return _cut(results.bouts[competitor], 1, 1)


class SonnebornBerger(TieBreak):
    """Each opponent's score times what the competitor took from them (a win whole, a draw half)."""

    key, short, title, power = "sonneborn_berger", "SB", _("Sonneborn-Berger"), 2

    def value(self, results: Results, competitor: Hashable) -> int:
        return sum(b.opponent_score * b.taken for b in results.bouts[competitor])


class Progressive(TieBreak):
    """The sum of the running score after each round."""

    key, short, title, power = "progressive", "PS", _("progressive score"), 1

    def value(self, results: Results, competitor: Hashable) -> int:
        running = total = 0
        for bout in results.bouts[competitor]:
            running += bout.taken
            total += running
        return total


class Wins(TieBreak):
    key, short, title = "wins", "WIN", _("number of wins")

    def value(self, results: Results, competitor: Hashable) -> int:
        return sum(1 for b in results.bouts[competitor] if b.won)


class WhiteWins(TieBreak):
    key, short, title = "white_wins", "WW", _("wins with white")

    def value(self, results: Results, competitor: Hashable) -> int:
        return sum(1 for b in results.bouts[competitor] if b.won and b.white)


class BlackGames(TieBreak):
    key, short, title = "black_games", "BPG", _("games played second")

    def value(self, results: Results, competitor: Hashable) -> int:
        return sum(1 for b in results.bouts[competitor] if b.second)


class AverageRating(TieBreak):
    """The opponents' average rating, over the games played against a rated opponent."""

    key, short, title = "average_rating", "ARO", _("average rating of opponents")

    def value(self, results: Results, competitor: Hashable) -> int:
        rated = [results.ratings.get(b.opponent, 0) for b in results.bouts[competitor] if b.opponent is not None]
        rated = [r for r in rated if r]
        return round(sum(rated) / len(rated)) if rated else 0


class MiniLeague(TieBreak):
    """Points in a table of the games among the level competitors only (a cycle of three is judged by all)."""

    key, short, title, power, among = "mini_league", "ML", _("mini league"), 1, True

    def compute(self, results: Results, block: Sequence[Hashable]) -> Value:
        return lambda c: sum(results.met.get((c, other), 0) for other in block if other != c)


class DirectEncounter(TieBreak):
    """What each took from the others in the block, if every pair of them met; otherwise nothing separates them."""

    key, short, title, power, among = "direct_encounter", "DE", _("direct encounter"), 1, True

    def compute(self, results: Results, block: Sequence[Hashable]) -> Value:
        if any((a, b) not in results.met for a in block for b in block if a != b):
            return lambda _c: 0
        return MiniLeague().compute(results, block)


class Kept(TieBreak):
    """A value the format keeps itself (a team's game points, match points, a board's points)."""

    power = 1

    def value(self, results: Results, competitor: Hashable) -> int:
        return results.kept.get(competitor, {}).get(self.key, 0)


class GamePoints(Kept):
    key, short, title = "game_points", "GP", _("game points")


class MatchPoints(Kept):
    key, short, title = "match_points", "MP", _("match points")


def _board(number: int) -> type[Kept]:
    return type(f"Board{number}", (Kept,), {"key": f"board_{number}", "short": f"B{number}", "title": _("board")})


TIEBREAKS: dict[str, TieBreak] = {
    t.key: t
    for t in (
        MiniLeague(),
        Wins(),
        SonnebornBerger(),
        WhiteWins(),
        Buchholz(),
        BuchholzCut1(),
        MedianBuchholz(),
        Progressive(),
        DirectEncounter(),
        BlackGames(),
        AverageRating(),
        GamePoints(),
        MatchPoints(),
        *(_board(n)() for n in (1, 2, 3)),
    )
}


def tiebreak(key: str) -> TieBreak:
    """The tie-break ``key`` (a board beyond those listed is kept by the format like the others)."""
    found = TIEBREAKS.get(key)
    if found is None and key.startswith("board_") and key.removeprefix("board_").isdigit():
        return _board(int(key.removeprefix("board_")))()
    if found is None:
        raise ValueError(f"unknown tie-break {key!r}")
    return found
