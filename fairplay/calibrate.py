"""The null model fitted on honest games (no Django): synthetic honest players of each band play each other,
every game is screened at the recorded settings, each player's moves go into their band's table, and ρ (the
correlation of the match and loss z-scores) is measured on the same games. Held-out games, played with other
seeds, say how standard the honest z-scores came out (``summary``). ``manage.py fairplay_calibrate`` runs it
and writes ``fairplay/calibration.json``; run it again when the engine or the settings change."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

from engine.rules import find_rules
from fairplay.screening import SETTINGS, MoveScreen, Settings, screen
from fairplay.stats import MIN_CLASS_MOVES, Band, Calibration, fit_band, fit_rho, judge
from fairplay.synthetic import PROFILES, Honest, Profile, play

RULES = "freestyle"


@dataclass
class Screened:
    """One game screened: both players' moves, by colour."""

    black: list[MoveScreen]
    white: list[MoveScreen]

    def sides(self) -> list[list[MoveScreen]]:
        return [self.black, self.white]


def split(moves: list[MoveScreen]) -> Screened:
    return Screened([m for m in moves if m.color == "black"], [m for m in moves if m.color == "white"])


def honest_game(profile: Profile, seed: int, settings: Settings = SETTINGS) -> Screened:
    """One game between honest players of ``profile`` (seeds ``seed`` and ``seed + 1``), screened."""
    rules = find_rules(RULES)
    stones, times = play(Honest(profile, rules, seed), Honest(profile, rules, seed + 1), rules)
    return split(screen(stones, RULES, times, settings=settings))


def honest_games(
    profile: Profile, count: int, seed: int, settings: Settings = SETTINGS, jobs: int = 1
) -> list[Screened]:
    """``count`` games between honest players of ``profile``, screened (in ``jobs`` processes)."""
    seeds = [seed * 100_003 + 2 * n for n in range(count)]
    if jobs <= 1:
        return [honest_game(profile, s, settings) for s in seeds]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(honest_game, [profile] * count, seeds, [settings] * count))


def band_of(rating: float) -> str:
    """The band of a rating, as the calibration maps ratings to bands (the highest band whose floor it reaches)."""
    return max((p for p in PROFILES.values() if rating >= p.low), key=lambda p: p.low, default=PROFILES["novice"]).name


# Real honest players' moves (a list a player-game) by band and time control's class (fairplay.references).
References = dict[tuple[str, str], list[list[MoveScreen]]]


def fit(
    games: dict[str, list[Screened]],
    settings: Settings = SETTINGS,
    references: References | None = None,
    min_class_moves: int = MIN_CLASS_MOVES,
) -> Calibration:
    """The calibration from each band's honest games: a row for every time control from the synthetic games and
    every real one, and a row of its own for a time control's class with at least ``min_class_moves`` real
    choices in real games of that class (the synthetic players have no clock to be hurried by)."""
    fitted: dict[str, tuple[Band, list[list[MoveScreen]]]] = {}
    classes: list[Band] = []
    for name, screened in games.items():
        real = {tc: sides for (band, tc), sides in (references or {}).items() if band == name}
        sides = [side for game in screened for side in game.sides()] + [s for r in real.values() for s in r]
        fitted[name] = (fit_band(name, PROFILES[name].low, sides), sides)
        for tc, own in sorted(real.items()):
            if tc and sum(1 for side in own for m in side if m.counted) >= min_class_moves:
                classes.append(replace(fit_band(name, PROFILES[name].low, own), time_class=tc))
    bands = [b for b, _s in fitted.values()] + classes
    return Calibration(settings=settings.to_dict(), bands=bands, rho=fit_rho(fitted))


def z_scores(calibration: Calibration, games: dict[str, list[Screened]]) -> list[float]:
    """Each honest player-game's z against its own band."""
    bands = {b.name: b for b in calibration.bands}
    return [
        judge(side, bands[name], calibration.rho).z
        for name, screened in games.items()
        for game in screened
        for side in game.sides()
        if any(m.counted for m in side)
    ]


def reference_z(calibration: Calibration, references: References) -> list[float]:
    """Each real honest player-game's z against its band of ``calibration``."""
    return [
        judge(side, calibration.band_for(PROFILES[name].low, tc), calibration.rho).z
        for (name, tc), sides in references.items()
        for side in sides
        if any(m.counted for m in side)
    ]


def calibrate(
    per_band: int,
    seed: int = 1,
    held_out: int = 0,
    bands: Iterable[str] = tuple(PROFILES),
    jobs: int = 1,
    references: References | None = None,
    settings: Settings = SETTINGS,
) -> Calibration:
    """Fit on ``per_band`` synthetic honest games a band, and on ``references`` (real honest players' moves by
    band: fairplay.references) where there are any; with ``held_out``, measure the honest z on as many more
    synthetic games. Real references are first scored against the synthetic-only fit (``reference_z_*``)."""
    chosen = list(bands)
    references = {key: sides for key, sides in (references or {}).items() if key[0] in chosen}
    synthetic = {name: honest_games(PROFILES[name], per_band, seed, settings, jobs) for name in chosen}
    summary: dict[str, object] = {"games_per_band": per_band, "rules": RULES}
    if references:
        alone = reference_z(fit(synthetic, settings), references)
        summary.update(
            references={"/".join(filter(None, key)): len(sides) for key, sides in sorted(references.items())},
            reference_z_mean=round(statistics.mean(alone), 3) if alone else None,
            reference_z_sd=round(statistics.pstdev(alone), 3) if len(alone) > 1 else None,
        )
    calibration = fit(synthetic, settings, references)
    if held_out:
        later = {name: honest_games(PROFILES[name], held_out, seed + 7_919, settings, jobs) for name in chosen}
        zs = z_scores(calibration, later)
        summary.update(
            held_out_games=held_out, z_mean=round(statistics.mean(zs), 3), z_sd=round(statistics.pstdev(zs), 3)
        )
    calibration.summary = summary
    return calibration
