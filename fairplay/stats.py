"""A player's screened moves against a null model: how often an honest player of that strength matches the
engine's choice, and how much winning chance one gives up, in positions as hard as these (no Django).

The method is Regan's (the expected agreement of an honest player of the rating, on the moves that were real
choices, and a z-score of the observed against it), in a simple form: the null model is a table, for each
strength band and each position's difficulty (how many candidates were near-equal: one, two, three, four,
five or six, seven or more), of the chance that an honest player's move was the engine's choice and of the
mean and variance of the chance given up. It is fitted on honest games (fairplay.synthetic: the computer's
own levels with human-like noise; where they exist, over-the-board games entered as records) and stored in
``fairplay/calibration.json`` with the screening's settings; ``manage.py fairplay_calibrate`` refits it.

- ``z_match``: (matches − Σp) / √Σp(1−p), over the real choices;
- ``z_loss``: (Σmean − the chance given up) / √Σvariance: positive when the player gives up less than an
  honest player of the band would;
- ``z``: the two together, (z_match + z_loss) / √(2 + 2ρ), ρ their correlation in the honest games: under the
  null model, standard normal. A case is opened above ``THRESHOLD`` (one honest player-event in 1,000);
  between ``UNCLEAR`` and it the result is "unclear" and opens nothing.

Think times are reported beside, never in ``z``: their correlation with the position's difficulty (honest
players slow down on hard moves and answer forced ones fast) and their regularity (coefficient of variation).
What the numbers cannot show is said in docs/fair-play.md.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fairplay.screening import MoveScreen

BUCKETS = (1, 2, 3, 4, 6)  # near-equal candidates: 1, 2, 3, 4, 5–6, and 7 or more
THRESHOLD = 3.09  # one-sided: one honest player-event in 1,000 above it
SHALLOW = 3  # a match is "deep only" when the move was not the engine's choice at any of the first SHALLOW depths
TIME_CLASSES = {"fast": 15 * 60, "rapid": 60 * 60}  # a player's time for a 30-move game below these seconds
MIN_CLASS_MOVES = 300  # a time control's own row is fitted only on at least this many real choices
UNCLEAR = 2.0
CALIBRATION = Path(__file__).resolve().parent / "calibration.json"
VARIANCE_FLOOR = 1e-4


def bucket(near_equal: int) -> int:
    for n, top in enumerate(BUCKETS):
        if near_equal <= top:
            return n
    return len(BUCKETS)


@dataclass
class Band:
    """One strength band's honest play, per difficulty bucket."""

    name: str
    low: int  # the lowest rating of the band
    match: list[float]
    loss_mean: list[float]
    loss_var: list[float]
    moves: int = 0  # real choices it was fitted on
    time_class: str = ""  # "": every time control; else fast, rapid or classical (real games of that class)
    deep: float = 0.0  # the share of an honest player's matches found only by the deeper search (0: not fitted)

    @property
    def label(self) -> str:
        return f"{self.name} · {self.time_class}" if self.time_class else self.name


@dataclass
class Calibration:
    settings: dict[str, Any]
    bands: list[Band]
    rho: float
    summary: dict[str, Any] = field(default_factory=dict)

    def band_for(self, rating: float | None, time_class: str = "") -> Band:
        """The band of a rating (the lowest band below every band's floor, and without a rating), in its row for
        the time control's class where the calibration has one (fitted on real games of that class), else its
        row for every time control."""
        ordered = sorted((b for b in self.bands if not b.time_class), key=lambda b: b.low)
        found = ordered[0]
        for band in ordered:
            if rating is not None and rating >= band.low:
                found = band
        own = [b for b in self.bands if time_class and b.name == found.name and b.time_class == time_class]
        return own[0] if own else found

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        return cls(
            settings=data["settings"],
            bands=[Band(**b) for b in data["bands"]],
            rho=data["rho"],
            summary=data.get("summary", {}),
        )

    def save(self, path: Path = CALIBRATION) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def time_class(main_s: float, increment_s: float, move_s: float, overtime_s: float) -> str:
    """The class of a time control by a player's time for a 30-move game: ``fast`` below 15 minutes (the
    seed's quick play: 5 minutes and 8 stones at 30 s), ``rapid`` below an hour, else ``classical``; ``""``
    untimed. ``move_s`` counts only without a main time (a limit per move is then the whole budget)."""
    budget = main_s + 30 * increment_s + overtime_s + (30 * move_s if not main_s else 0)
    if budget <= 0:
        return ""
    return next((name for name, below in TIME_CLASSES.items() if budget < below), "classical")


def load(path: Path = CALIBRATION) -> Calibration:
    return Calibration.from_dict(json.loads(path.read_text(encoding="utf-8")))


@dataclass
class Stats:
    choices: int  # real choices counted
    forced: int  # moves shown but not counted
    matched: int
    expected_match: float
    z_match: float
    loss: float  # winning chance given up, summed over the real choices
    expected_loss: float
    z_loss: float
    z: float
    think_corr: float | None  # think time against difficulty (Spearman); honest play: positive
    think_cv: float | None  # think times' spread / their mean; an engine's relay: low
    deep_only: int = 0  # matches the search found only from depth SHALLOW + 1 on (beside z, never in it)
    deep_matches: int = 0  # matches with their ranks by depth
    deep_expected: float | None = None  # how many of those an honest player of the band finds only deep
    z_deep: float | None = None

    @property
    def verdict(self) -> str:
        """``case`` (above the threshold: a case for the referees), ``unclear``, or ``clear``."""
        return "case" if self.z > THRESHOLD else "unclear" if self.z > UNCLEAR else "clear"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "verdict": self.verdict}


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 5 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return statistics.correlation(_ranks(xs), _ranks(ys))


def difficulty(move: MoveScreen) -> int:
    """How hard the position was: 0 for a forced move, else its near-equal candidates."""
    return 0 if move.forced else move.near_equal


def judge(moves: Iterable[MoveScreen], band: Band, rho: float) -> Stats:
    """One player's moves (one game or an event's) against the band's honest play."""
    moves = list(moves)
    counted = [m for m in moves if m.counted]
    matched = sum(1 for m in counted if m.matched)
    p = [band.match[bucket(m.near_equal)] for m in counted]
    mean = [band.loss_mean[bucket(m.near_equal)] for m in counted]
    var = [max(VARIANCE_FLOOR, band.loss_var[bucket(m.near_equal)]) for m in counted]
    expected, spread = sum(p), math.sqrt(sum(q * (1 - q) for q in p))
    loss = sum(m.loss for m in counted)
    z_match = (matched - expected) / spread if spread > 0 else 0.0
    z_loss = (sum(mean) - loss) / math.sqrt(sum(var)) if var else 0.0
    z = (z_match + z_loss) / math.sqrt(2 + 2 * rho) if counted else 0.0
    deep = deep_counts(counted)
    deep_expected = deep_z = None
    if band.deep > 0 and deep[1]:
        deep_expected = deep[1] * band.deep
        deep_z = binomial_z(deep[0], deep[1], band.deep)
    timed = [m for m in moves if m.think_ms is not None]
    times = [float(m.think_ms or 0) for m in timed]
    cv = statistics.pstdev(times) / statistics.mean(times) if len(times) >= 5 and statistics.mean(times) > 0 else None
    return Stats(
        choices=len(counted),
        forced=len(moves) - len(counted),
        matched=matched,
        expected_match=round(expected, 3),
        z_match=round(z_match, 3),
        loss=round(loss, 4),
        expected_loss=round(sum(mean), 4),
        z_loss=round(z_loss, 3),
        z=round(z, 3),
        think_corr=None if (c := spearman([difficulty(m) for m in timed], times)) is None else round(c, 3),
        think_cv=None if cv is None else round(cv, 3),
        deep_only=deep[0],
        deep_matches=deep[1],
        deep_expected=None if deep_expected is None else round(deep_expected, 3),
        z_deep=None if deep_z is None else round(deep_z, 3),
    )


def binomial_z(k: int, n: int, p: float) -> float:
    """``k`` successes in ``n`` trials of chance ``p`` as a z-score: the exact upper tail (mid-p: P(X > k) plus
    half P(X = k)) turned into the standard normal's quantile. A normal approximation's tail is far too heavy for
    a rare event in few trials (three deep-only matches in ten where 0.05 are expected)."""
    mass = [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]
    tail = sum(mass[k + 1 :]) + mass[k] / 2
    return -statistics.NormalDist().inv_cdf(min(1 - 1e-12, max(1e-12, tail)))


def deep_counts(moves: Iterable[MoveScreen]) -> tuple[int, int]:
    """Of the matches whose ranks by depth are known: how many the search found only past its first
    ``SHALLOW`` depths (a move an engine finds and a player rarely does), and how many there are."""
    known = [m for m in moves if m.counted and m.matched and len(m.depth_ranks) > SHALLOW]
    return sum(1 for m in known if all(r > 1 for r in m.depth_ranks[:SHALLOW])), len(known)


def fit_band(name: str, low: int, games: Iterable[list[MoveScreen]]) -> Band:
    """The band's table from honest players' moves (each list: one player's moves in one game)."""
    games = list(games)
    width = len(BUCKETS) + 1
    hits, seen = [0] * width, [0] * width
    losses: list[list[float]] = [[] for _ in range(width)]
    deep = deep_counts(m for moves in games for m in moves)
    for moves in games:
        for m in moves:
            if m.counted:
                b = bucket(m.near_equal)
                seen[b] += 1
                hits[b] += m.matched
                losses[b].append(m.loss)
    return Band(
        name=name,
        low=low,
        match=[round((hits[b] + 1) / (seen[b] + 2), 4) for b in range(width)],  # a Laplace prior: never 0 or 1
        loss_mean=[round(statistics.mean(x), 5) if x else 0.05 for x in losses],
        loss_var=[round(max(VARIANCE_FLOOR, statistics.pvariance(x)), 6) if len(x) > 1 else 0.01 for x in losses],
        moves=sum(seen),
        deep=round((deep[0] + 0.5) / (deep[1] + 1), 4) if deep[1] else 0.0,  # half a match's prior: never 0
    )


def fit_rho(bands: dict[str, tuple[Band, list[list[MoveScreen]]]]) -> float:
    """The correlation of z_match and z_loss over honest player-games (0 when it cannot be measured)."""
    pairs = [(s.z_match, s.z_loss) for band, games in bands.values() for g in games if (s := judge(g, band, 0)).choices]
    if len(pairs) < 10:
        return 0.0
    return round(statistics.correlation([a for a, _b in pairs], [b for _a, b in pairs]), 4)
