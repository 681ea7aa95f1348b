"""Tournament arithmetic with no database: group sizes, draws, round robins,
best-of-N matches, standings, tie-breaks and playoffs.

Players are any hashable keys (entry ids in the app). Everything random takes
a ``random.Random`` built from a recorded seed, so a draw can be checked and
re-run.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from tournament import ranking
from tournament.ranking import BlockValues
from tournament.tiebreaks import TIEBREAKS, Bout, Results

K = TypeVar("K", bound=Hashable)
Result = Literal["black", "white", "draw"]


# -- the preliminary draw ---------------------------------------------------------


def group_sizes(n: int) -> list[int]:
    """Groups of 4; leftovers as in the seed: 1 → one group of 5, 2 → a best-of-three pair, 3 → a group of 3."""
    if n < 2:
        raise ValueError("a tournament needs at least two players")
    fours, rest = divmod(n, 4)
    if rest == 1:
        return [4] * (fours - 1) + [5] if fours else [1]
    if rest in (2, 3):
        return [4] * fours + [rest]
    return [4] * fours


@dataclass(frozen=True)
class Entrant(Generic[K]):
    """A player in the draw: the key (an entry id in the app), the unit kept apart, the rating for seeding."""

    key: K
    unit: str = ""
    rating: int | None = None


def draw_groups(
    entrants: Sequence[Entrant[K]],
    sizes: Sequence[int],
    rng: random.Random,
    *,
    by_rating: bool = False,
    units_apart: bool = True,
) -> list[list[K]]:
    """Deal players into groups of the given sizes.

    Random order, or snake order by rating (strongest spread over the
    groups); then, where the numbers allow, swaps between groups of players
    of the same position keep members of one unit apart.
    """
    if sum(sizes) != len(entrants):
        raise ValueError("the group sizes do not add up to the number of players")
    order = list(entrants)
    rng.shuffle(order)
    if by_rating:
        order.sort(key=lambda s: -(s.rating if s.rating is not None else -(10**9)))
    groups: list[list[Entrant[K]]] = [[] for _ in sizes]
    row = 0
    while order:
        indexes = list(range(len(sizes)))
        if row % 2 == 1:
            indexes.reverse()
        for g in indexes:
            if order and len(groups[g]) < sizes[g]:
                groups[g].append(order.pop(0))
        row += 1
    if units_apart:
        _separate_units(groups, rng)
    return [[s.key for s in group] for group in groups]


def _clashes(group: list[Entrant[K]]) -> int:
    units = [s.unit for s in group if s.unit]
    return len(units) - len(set(units))


def _separate_units(groups: list[list[Entrant[K]]], rng: random.Random, rounds: int = 50) -> None:
    """Local search: swap two players of the same position when it lowers the number of unit clashes."""
    for _ in range(rounds):
        improved = False
        for gi, group in enumerate(groups):
            for pi, seat in enumerate(group):
                if not seat.unit or sum(s.unit == seat.unit for s in group) < 2:
                    continue
                options = [(gj, pi) for gj in range(len(groups)) if gj != gi and pi < len(groups[gj])]
                rng.shuffle(options)
                for gj, pj in options:
                    other = groups[gj][pj]
                    before = _clashes(group) + _clashes(groups[gj])
                    group[pi], groups[gj][pj] = other, seat
                    if _clashes(group) + _clashes(groups[gj]) < before:
                        improved = True
                        break
                    group[pi], groups[gj][pj] = seat, other
        if not improved:
            return


# -- round robins -----------------------------------------------------------------


def circle_rounds(players: Sequence[K]) -> list[list[tuple[K, K]]]:
    """Rounds of a single round robin by the circle method; byes dropped.

    For a, b, c, d: a–b, c–d; a–c, b–d; a–d, b–c (the seed's order). Within
    a pair the player listed first in ``players`` is named first.
    """
    items: list[K | None] = list(players)
    if len(items) % 2:
        items.append(None)
    index = {p: i for i, p in enumerate(players)}
    fixed, ring = items[0], items[1:]
    rounds = []
    for _ in range(len(ring)):
        pairs = [(fixed, ring[0])] + [(ring[i], ring[len(ring) - i]) for i in range(1, len(ring) // 2 + 1)]
        named = []
        for x, y in pairs:
            if x is None or y is None:
                continue
            named.append((x, y) if index[x] < index[y] else (y, x))
        rounds.append(named)
        ring = ring[1:] + ring[:1]
    return rounds


def balanced_single_rounds(players: Sequence[K]) -> list[list[tuple[K, K]]]:
    """A single round robin with black (the first of each pair) spread evenly: every player's
    black and white counts differ by at most one.

    The pairs are oriented along an Euler circuit of the complete graph (with
    a dummy player when the count is even, so that every degree is even).
    Players are handled by their index in ``players`` only, so the result does
    not depend on hashing (``PYTHONHASHSEED``) or on the keys' values.
    """
    count = len(players)
    nodes = count + (1 if count % 2 == 0 else 0)  # index ``count`` is the dummy
    adjacency: list[list[int]] = [[w for w in range(nodes) if w != v] for v in range(nodes)]
    first_of: dict[tuple[int, int], int] = {}
    stack = [0]
    while stack:
        v = stack[-1]
        if adjacency[v]:
            w = adjacency[v].pop()
            adjacency[w].remove(v)
            first_of[(min(v, w), max(v, w))] = v
            stack.append(w)
        else:
            stack.pop()
    rounds = []
    for pairs in circle_rounds(list(range(count))):
        rounds.append(
            [
                (players[x], players[y]) if first_of[(min(x, y), max(x, y))] == x else (players[y], players[x])
                for x, y in pairs
            ]
        )
    return rounds


# -- best of N ----------------------------------------------------------------------


@dataclass(frozen=True)
class MatchScore:
    wins: tuple[int, int]
    draws: int
    games: int  # games that count: those up to the decision
    winner: int | None  # 0 or 1 (first or second player), None while undecided
    extra: int = 0  # games played after the decision (after a correction decided it earlier); they do not count
    stalled: bool = False  # ``draw_limit`` drawn games in a row: the tie is decided another way


def best_of(results: Iterable[int | None], n: int = 3, sudden_death: bool = True, *, draw_limit: int = 0) -> MatchScore:
    """Score a best-of-``n`` from game winners (0, 1, or None for a draw).

    A side with ``n // 2 + 1`` wins takes it; when ``n`` games leave it
    undecided (draws), single games continue until one is won (sudden death),
    or, without sudden death, the side with more wins takes it (None if level).
    Games after the decision (a correction can decide a match early) are
    counted in ``extra`` and change nothing. With ``draw_limit``, that many
    drawn games in a row stall the match (``stalled``): no further game is
    played and the tie is decided by lot or by the organizer.

    >>> best_of([0, None, 0]).winner
    0
    >>> best_of([1, 1, 0]).extra
    1
    """
    need = n // 2 + 1
    wins = [0, 0]
    draws = games = extra = run = 0
    winner: int | None = None
    stalled = False
    for r in results:
        if winner is not None or stalled:
            extra += 1
            continue
        games += 1
        if r is None:
            draws += 1
            run += 1
        else:
            wins[r] += 1
            run = 0
        if wins[0] >= need or wins[1] >= need or games >= n and wins[0] != wins[1]:
            winner = 0 if wins[0] > wins[1] else 1
        elif draw_limit and run >= draw_limit:
            stalled = True
    return MatchScore((wins[0], wins[1]), draws, games, winner, extra, stalled)


def match_complete(score: MatchScore, n: int, sudden_death: bool) -> bool:
    """Whether a best-of-``n`` needs no further game."""
    return score.winner is not None or score.stalled or (not sudden_death and score.games >= n)


# -- standings ----------------------------------------------------------------------


@dataclass(frozen=True)
class Scoring:
    win: int = 2
    draw: int = 1
    loss: int = 0


@dataclass(frozen=True)
class Played:
    """One finished game between two players (black and white)."""

    black: Hashable
    white: Hashable
    result: Result


@dataclass
class Row:
    key: Hashable
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    white_wins: int = 0
    tiebreaks: dict[str, int] = field(default_factory=dict)  # Sonneborn-Berger and wins with white, as shown


SHOWN = ("sonneborn_berger", "white_wins")  # the tie-breaks a group's table shows (and its CSV)


def table(
    players: Iterable[Hashable],
    games: Iterable[Played],
    scoring: Scoring = Scoring(),
    rests: Mapping[Any, int] | None = None,
) -> dict[Hashable, Row]:
    """Each player's games, wins, draws, losses, points, Sonneborn-Berger and wins with white; ``rests``: the
    points a player scored by resting (a round robin with an odd number, as its stage scores a rest), in the
    points only."""
    rows = {p: Row(p, points=(rests or {}).get(p, 0)) for p in players}
    for g in games:
        if g.black not in rows or g.white not in rows:
            continue
        for me, colour in ((g.black, "black"), (g.white, "white")):
            row = rows[me]
            row.played += 1
            if g.result == "draw":
                row.draws += 1
                row.points += scoring.draw
            elif g.result == colour:
                row.wins += 1
                row.points += scoring.win
                row.white_wins += colour == "white"
            else:
                row.losses += 1
                row.points += scoring.loss
    view = group_results(rows, games, scoring)
    for key, row in rows.items():
        row.tiebreaks = {name: TIEBREAKS[name].value(view, key) for name in SHOWN}
    return rows


def group_results(rows: Mapping[Hashable, Row], games: Iterable[Played], scoring: Scoring) -> Results:
    """A group's games as the tie-breaks see them: each game a bout against the opponent's points (rests
    included), weighted 2 for a win and 1 for a draw (Sonneborn-Berger doubled, to stay an integer); what each
    took from each in the group's points (a mini league)."""
    bouts: dict[Hashable, list[Bout]] = {p: [] for p in rows}
    met: dict[tuple[Hashable, Hashable], int] = defaultdict(int)
    for g in games:
        if g.black not in rows or g.white not in rows:
            continue
        for me, other, colour in ((g.black, g.white, "black"), (g.white, g.black, "white")):
            won, drawn = g.result == colour, g.result == "draw"
            bouts[me].append(
                Bout(other, rows[other].points, 2 if won else int(drawn), won=won, white=colour == "white")
            )
            met[(me, other)] += scoring.win if won else scoring.draw if drawn else scoring.loss
    return Results(bouts, dict(met))


# -- tie-breaks: each a class of tournament.tiebreaks; a group offers these ------------------------------------

GROUP_TIEBREAKS = ("mini_league", "wins", "sonneborn_berger", "white_wins")


def group_tiebreaks() -> list[str]:
    return list(GROUP_TIEBREAKS)


def ranked_blocks(
    players: Sequence[Hashable],
    games: Sequence[Played],
    scoring: Scoring = Scoring(),
    tiebreaks: Sequence[str] = (),
    rests: Mapping[Any, int] | None = None,
) -> list[list[Hashable]]:
    """Players in order, as blocks of players still level (by points, then each tie-break in turn): the one
    ranking's blocks (tournament.ranking), which a playoff settles later."""
    rows = table(players, games, scoring, rests)
    view = group_results(rows, games, scoring)

    def criterion(name: str) -> BlockValues[Hashable]:
        if name not in GROUP_TIEBREAKS:
            raise ValueError(f"unknown tie-break {name!r}")
        metric = TIEBREAKS[name]
        return lambda block: metric.compute(view, block)

    criteria = [("points", lambda block: lambda p: rows[p].points), *((n, criterion(n)) for n in tiebreaks)]
    return ranking.blocks(players, criteria)[0]


def straddling(blocks: Sequence[Sequence[Hashable]], cut: int) -> list[Hashable] | None:
    """The block of level players that the cut (the number who advance) runs through, if any."""
    place = 0
    for block in blocks:
        if place < cut < place + len(block):
            return list(block)
        place += len(block)
    return None


def places(blocks: Sequence[Sequence[Hashable]]) -> dict[Hashable, int]:
    """Shared places: a block of level players shares its best place."""
    out: dict[Hashable, int] = {}
    place = 1
    for block in blocks:
        for p in block:
            out[p] = place
        place += len(block)
    return out


def apply_playoff(
    blocks: list[list[Hashable]], tied: Sequence[Hashable], playoff_blocks: Sequence[Sequence[Hashable]]
) -> list[list[Hashable]]:
    """Replace the tied block by the order the playoff produced (its own blocks)."""
    target = set(tied)
    out: list[list[Hashable]] = []
    for block in blocks:
        if set(block) == target:
            out += [list(b) for b in playoff_blocks]
        else:
            out.append(list(block))
    return out


# -- knockout pairing ----------------------------------------------------------------


def knockout_pairs(players: Sequence[K], rng: random.Random) -> tuple[list[tuple[K, K]], list[K]]:
    """Draw qualifiers into pairs; with an odd number the last three form a group (returned separately)."""
    order = list(players)
    rng.shuffle(order)
    if len(order) % 2 == 1 and len(order) >= 3:
        trio = order[-3:]
        order = order[:-3]
    else:
        trio = []
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)], trio


def seeded_pairs(ranked: Sequence[K]) -> tuple[list[tuple[K, K]], list[K]]:
    """Qualifiers in their order of merit (from a Swiss): first against last, second against second-last,
    …; with an odd number the bottom three form a group (returned separately)."""
    order = list(ranked)
    trio = order[-3:] if len(order) % 2 == 1 and len(order) >= 3 else []
    if trio:
        order = order[:-3]
    return [(order[i], order[len(order) - 1 - i]) for i in range(len(order) // 2)], trio


def guessed_right(count: int, guess: str) -> bool:
    """猜先: one player grabs ``count`` stones, the other guesses ``odd`` or ``even``; right plays black."""
    return (count % 2 == 1) == (guess == "odd")


def guess_colours(rng: random.Random) -> dict[str, int | str]:
    """猜先 by lot: a grab of 1-20 stones and an odd/even guess; the right guess plays black."""
    count = rng.randint(1, 20)
    guess = rng.choice(["odd", "even"])
    return {
        "grabber": rng.randint(0, 1),
        "count": count,
        "guess": guess,
        "guess_right": int(guessed_right(count, guess)),
    }


def toss_at_table(grabber: int, count: int, guess: str) -> dict[str, int | str | bool]:
    """猜先 as recorded at the table: side ``grabber`` (0 the first-named, 1 the other) grabbed ``count`` stones
    and the other side guessed; ``black`` is the side that plays black (the guesser if right)."""
    right = guessed_right(count, guess)
    return {
        "grabber": grabber,
        "count": count,
        "guess": guess,
        "guess_right": int(right),
        "black": 1 - grabber if right else grabber,
        "recorded": True,
    }


def toss_by_lot(seed: str) -> dict[str, int | str | bool]:
    """猜先 drawn by lot from a recorded seed (so it can be re-run), in the same form as one at the table."""
    lot = guess_colours(random.Random(seed))
    return {**toss_at_table(int(lot["grabber"]), int(lot["count"]), str(lot["guess"])), "recorded": False, "seed": seed}
