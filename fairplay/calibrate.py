"""The null model fitted on honest games (no Django): synthetic honest players of each band play each other,
every game is screened at the recorded settings, each player's moves go into their band's table, and ρ (the
correlation of the match and loss z-scores) is measured on the same games. Held-out games, played with other
seeds, say how standard the honest z-scores came out (``summary``). ``manage.py fairplay_calibrate`` runs it
and writes ``fairplay/calibration.json``; run it again when the engine or the settings change."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from engine.rules import find_rules
from fairplay.screening import SETTINGS, MoveScreen, Settings, screen
from fairplay.stats import Band, Calibration, fit_band, fit_rho, judge
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


def fit(games: dict[str, list[Screened]], settings: Settings = SETTINGS) -> Calibration:
    """The calibration from each band's honest games."""
    fitted: dict[str, tuple[Band, list[list[MoveScreen]]]] = {}
    for name, screened in games.items():
        sides = [side for game in screened for side in game.sides()]
        fitted[name] = (fit_band(name, PROFILES[name].low, sides), sides)
    return Calibration(settings=settings.to_dict(), bands=[b for b, _s in fitted.values()], rho=fit_rho(fitted))


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


def calibrate(
    per_band: int, seed: int = 1, held_out: int = 0, bands: Iterable[str] = tuple(PROFILES), jobs: int = 1
) -> Calibration:
    """Fit on ``per_band`` honest games a band; with ``held_out``, measure the honest z on as many more."""
    chosen = list(bands)
    calibration = fit({name: honest_games(PROFILES[name], per_band, seed, jobs=jobs) for name in chosen})
    summary: dict[str, object] = {"games_per_band": per_band, "rules": RULES}
    if held_out:
        later = {name: honest_games(PROFILES[name], held_out, seed + 7_919, jobs=jobs) for name in chosen}
        zs = z_scores(calibration, later)
        summary.update(
            held_out_games=held_out, z_mean=round(statistics.mean(zs), 3), z_sd=round(statistics.pstdev(zs), 3)
        )
    calibration.summary = summary
    return calibration
