"""Fair-play screening measured: how often honest players are flagged, and how often cheaters are caught.

No server: the screening (fairplay.screening) and the null model (fairplay.stats, the repository's
``fairplay/calibration.json``) run in this process and ``--jobs`` workers.

- **Honest players**: synthetic players of the three bands (fairplay.synthetic: the computer's levels 2, 3
  and 4 with human-like noise) playing each other, with seeds the calibration never saw (held out).
- **Cheaters**: club players (level 3 with noise) who take the strong engine's move — the computer's top
  level, or with ``--engine CMD`` any Gomocup engine (Rapfi …) through the protocol — on a fraction f of their
  real choices: 100 %, 50 %, 20 %; and ``critical2``: only two sharp positions a game. Each plays an honest
  club player, black and white in turn.
- **Events**: a player's 1, 3 or 9 games of one kind, drawn from the screened games (with replacement), judged
  together; 2,000 events of each kind and length by default.

Figures: ``fp_rate`` (honest events, every band and length, with z above the threshold: the target is at
most 1 in 1,000), ``detect_<kind>_<n>game(s)`` (cheater events above it), ``honest_z_mean`` and
``honest_z_sd`` (one honest player-game's z: standard normal under the null model), ``cpu_s_per_game`` (the
screening's CPU per game, one thread), and the ROC of 3-game events (threshold: honest above, full
assistance above, half above).

Last line: ``fairplay: fp_rate=… detect_full_1game=… detect_full_3games=… detect_half_3games=…
detect_fifth_9games=… detect_critical2_9games=… honest_z_mean=… honest_z_sd=… cpu_s_per_game=…``.
Run: ``.venv/bin/python bench/fairplay.py [--honest 60] [--cheaters 24] [--events 2000] [--jobs 2]
[--engine CMD]`` (about 15 minutes on two cores: a game's screening searches each real choice as the computer's
top level does).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.board import Board  # noqa: E402
from engine.notation import Point  # noqa: E402
from engine.rules import find_rules  # noqa: E402
from fairplay.calibrate import RULES, Screened, split  # noqa: E402
from fairplay.screening import MoveScreen, screen  # noqa: E402
from fairplay.stats import THRESHOLD, Band, Calibration, judge, load  # noqa: E402
from fairplay.synthetic import PROFILES, Cheater, Honest, play, strong_engine  # noqa: E402

KINDS = {"full": (1.0, 0), "half": (0.5, 0), "fifth": (0.2, 0), "critical2": (1.0, 2)}
LENGTHS = (1, 3, 9)


def _outside(command: str) -> Any:
    from engine.gomocup import EngineSpec, engine_move

    spec = EngineSpec.from_command(command, turn_ms=2_000)
    rules = find_rules(RULES)

    def move(board: Board) -> Point:
        return engine_move(spec, board, rules).point

    return move


def honest_game(band: str, seed: int) -> tuple[str, Screened, float]:
    rules = find_rules(RULES)
    stones, times = play(Honest(PROFILES[band], rules, seed), Honest(PROFILES[band], rules, seed + 1), rules)
    started = time.process_time()
    screened = split(screen(stones, RULES, times))
    return band, screened, time.process_time() - started


def cheater_game(kind: str, seed: int, engine: str) -> tuple[str, list[MoveScreen], float]:
    """A club cheater against an honest club player; the cheater's moves."""
    rules = find_rules(RULES)
    fraction, critical = KINDS[kind]
    strong = _outside(engine) if engine else strong_engine(rules, seed)
    cheater = Cheater(PROFILES["club"], rules, seed, strong, fraction, critical)
    honest = Honest(PROFILES["club"], rules, seed + 1)
    black_is_cheater = seed % 2 == 0
    stones, times = play(cheater, honest, rules) if black_is_cheater else play(honest, cheater, rules)
    started = time.process_time()
    screened = split(screen(stones, RULES, times))
    return kind, screened.black if black_is_cheater else screened.white, time.process_time() - started


def events(games: list[list[MoveScreen]], length: int, count: int, rng: random.Random) -> list[list[MoveScreen]]:
    return [[m for g in rng.choices(games, k=length) for m in g] for _ in range(count)]


def rate(zs: list[float], threshold: float = THRESHOLD) -> float:
    return sum(1 for z in zs if z > threshold) / max(1, len(zs))


def beside_depth(
    by_band: dict[str, list[list[MoveScreen]]],
    by_kind: dict[str, list[list[MoveScreen]]],
    bands: dict[str, Band],
    rho: float,
    count: int,
    rng: random.Random,
) -> str:
    """What the deep-only matches (shown beside z on the case page, never in it) would add if they were in it:
    z and z_deep together, (z + z_deep) / sqrt(2 + 2r) with r their correlation in honest 3-game events, caught
    at the threshold, and the honest events it would flag."""

    def pairs(games: list[list[MoveScreen]], band: Band, length: int) -> list[tuple[float, float]]:
        found = [judge(e, band, rho) for e in events(games, length, count // len(by_band), rng)]
        return [(s.z, s.z_deep) for s in found if s.z_deep is not None]

    honest = {n: [p for b, g in by_band.items() for p in pairs(g, bands[b], n)] for n in LENGTHS}
    if len(honest[3]) < 10 or not all(b.deep for b in bands.values()):
        return "depth beside z: not measured (a calibration without the deep-only share)"
    r = statistics.correlation([a for a, _b in honest[3]], [b for _a, b in honest[3]])

    def combined(found: list[tuple[float, float]]) -> list[float]:
        return [(a + b) / math.sqrt(2 + 2 * r) for a, b in found]

    caught = " ".join(
        f"{kind}_{n}={rate(combined(pairs(by_kind[kind], bands['club'], n))):.3f}"
        for kind in ("full", "half", "fifth")
        for n in (3, 9)
    )
    flagged = rate([z for n in LENGTHS for z in combined(honest[n])])
    zd = [b for _a, b in honest[1]]
    return (
        f"depth beside z (not in it): honest z_deep mean {statistics.mean(zd):.2f} sd {statistics.pstdev(zd):.2f}, "
        f"r={r:.2f}; z and z_deep together: honest flagged {flagged:.4f}, caught {caught}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=60, help="held-out honest games per band")
    parser.add_argument("--cheaters", type=int, default=24, help="cheater games per kind")
    parser.add_argument("--events", type=int, default=2000, help="events of each kind and length")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--engine", default="", help="a Gomocup engine's command for the cheaters (Rapfi …)")
    parser.add_argument("--seed", type=int, default=424_242)
    args = parser.parse_args()
    calibration: Calibration = load()
    bands = {b.name: b for b in calibration.bands}
    started = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        honest = [
            pool.submit(honest_game, band, args.seed + 1_000 * k + 2 * n)
            for k, band in enumerate(PROFILES)
            for n in range(args.honest)
        ]
        cheats = [
            pool.submit(cheater_game, kind, args.seed + 500_000 + 1_000 * k + 2 * n, args.engine)
            for k, kind in enumerate(KINDS)
            for n in range(args.cheaters)
        ]
        honest_done = [f.result() for f in honest]
        cheat_done = [f.result() for f in cheats]
    cpu = [c for _b, _s, c in honest_done] + [c for _k, _m, c in cheat_done]
    by_band: dict[str, list[list[MoveScreen]]] = {}
    for band, screened, _cpu in honest_done:
        by_band.setdefault(band, []).extend(side for side in screened.sides() if any(m.counted for m in side))
    by_kind: dict[str, list[list[MoveScreen]]] = {}
    for kind, moves, _cpu in cheat_done:
        by_kind.setdefault(kind, []).append(moves)

    single = [judge(g, bands[band], calibration.rho).z for band, games in by_band.items() for g in games]
    rng = random.Random(args.seed)
    honest_z: dict[int, list[float]] = {}
    for length in LENGTHS:
        honest_z[length] = [
            judge(e, bands[band], calibration.rho).z
            for band, games in by_band.items()
            for e in events(games, length, args.events // len(by_band), rng)
        ]
    cheat_z = {
        (kind, length): [judge(e, bands["club"], calibration.rho).z for e in events(games, length, args.events, rng)]
        for kind, games in by_kind.items()
        for length in LENGTHS
    }
    depth = beside_depth(by_band, by_kind, bands, calibration.rho, args.events, random.Random(args.seed + 1))
    fp = rate([z for zs in honest_z.values() for z in zs])
    print(f"  {len(honest_done)} honest games, {len(cheat_done)} cheater games, {time.time() - started:.0f} s")
    print(f"  calibration: {calibration.summary} rho={calibration.rho}")
    for length in LENGTHS:
        line = " ".join(f"{kind}={rate(cheat_z[(kind, length)]):.3f}" for kind in KINDS)
        print(f"  {length} game(s): honest above {THRESHOLD}: {rate(honest_z[length]):.4f}; caught: {line}")
    print("  ROC of 3-game events (threshold: honest, full, half above):")
    for threshold in (1.5, 2.0, 2.5, 3.09, 3.5, 4.0, 5.0):
        full, half = rate(cheat_z[("full", 3)], threshold), rate(cheat_z[("half", 3)], threshold)
        print(f"    z>{threshold}: {rate(honest_z[3], threshold):.4f} {full:.3f} {half:.3f}")
    print(f"  {depth}")
    print(
        f"fairplay: fp_rate={fp:.4f} detect_full_1game={rate(cheat_z[('full', 1)]):.3f} "
        f"detect_full_3games={rate(cheat_z[('full', 3)]):.3f} detect_half_3games={rate(cheat_z[('half', 3)]):.3f} "
        f"detect_fifth_9games={rate(cheat_z[('fifth', 9)]):.3f} "
        f"detect_critical2_9games={rate(cheat_z[('critical2', 9)]):.3f} "
        f"honest_z_mean={statistics.mean(single):.3f} honest_z_sd={statistics.pstdev(single):.3f} "
        f"cpu_s_per_game={statistics.mean(cpu):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
