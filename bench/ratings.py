"""Benchmark: rating lists over a synthetic RenjuNet history of 5,000 players and 100,000 games across
500 tournaments.

A RenjuNet ``.rif`` database is generated (players of hidden strengths, each tournament a sample of 200
of them over a year and a half, results drawn by the Elo expectation with 8 % draws, short move lists),
imported as RenjuNet's database is (``ratings.renjunet.import_database``: checked whole, then written in
batches), then a WHR list (the RIF's parameters) and an Elo list are recomputed from scratch (read the
games, compute, write every rating and its history), and the WHR list's table is read (median of 5 after
one first read). Runs on a throw-away SQLite database in a temporary directory.

Last line: ``ratings: players=5000 games=100000 whr_full_s=… elo_full_s=… import_games_per_s=… list_ms=…``.
Run: ``.venv/bin/python bench/ratings.py [--players 5000 --games 100000 --tournaments 500]``.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.benchdb import throwaway_django  # noqa: E402 - after the path is set


def synthetic_rif(players: int, games: int, tournaments: int, seed: int) -> bytes:
    rng = random.Random(seed)
    strength = [rng.gauss(0, 350) for _ in range(players)]
    out = ['<?xml version="1.0" encoding="utf-8"?>', "<database>", "<countries>"]
    out += [f'<country id="{c}" name="Country {c}" abbr="C{c:02d}"/>' for c in range(1, 31)]
    out += ["</countries>", "<cities>"]
    out += [f'<city id="{c}" country="{c % 30 + 1}" name="City {c}"/>' for c in range(1, 201)]
    out += ["</cities>", '<rules><rule id="1" name="RIF" category="1"/></rules>', "<players>"]
    out += [
        f'<player id="{p}" name="Name{p}" surname="Surname{p}" country="{p % 30 + 1}" city="{p % 200 + 1}" gender="1"/>'
        for p in range(1, players + 1)
    ]
    out += ["</players>", "<tournaments>"]
    start = date(2024, 1, 1)
    for t in range(1, tournaments + 1):
        end = start + timedelta(days=t)
        out.append(
            f'<tournament id="{t}" name="Open {t}" country="{t % 30 + 1}" city="{t % 200 + 1}" '
            f'start="{end - timedelta(days=2)}" end="{end}" rule="1" rated="1"/>'
        )
    out += ["</tournaments>", "<games>"]
    per = games // tournaments
    gid = 0
    for t in range(1, tournaments + 1):
        field = rng.sample(range(1, players + 1), 200)
        for g in range(per):
            gid += 1
            a, b = field[(2 * g) % 200], field[(2 * g + 1 + g // 100) % 200]
            if a == b:
                b = field[(2 * g + 2) % 200]
            expected = 1 / (1 + 10 ** ((strength[b - 1] - strength[a - 1]) / 400))
            roll = rng.random()
            result = "0.5" if roll < 0.08 else ("1" if roll < 0.08 + 0.92 * expected else "0")
            out.append(
                f'<game id="{gid}" tournament="{t}" round="{g // 100 + 1}" rule="1" black="{a}" white="{b}" '
                f'bresult="{result}"><move>h8 h9 i9 j10 g8</move></game>'
            )
    out += ["</games>", "</database>"]
    return "\n".join(out).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--tournaments", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    throwaway_django()

    from ratings.models import RatedGame, RatingList
    from ratings.renjunet import import_database
    from ratings.selectors import list_rows
    from ratings.services import recompute

    data = synthetic_rif(args.players, args.games, args.tournaments, args.seed)
    print(f"  generated {len(data) / 1e6:.1f} MB", flush=True)
    t0 = time.perf_counter()
    report = import_database(io.BytesIO(data))
    import_s = time.perf_counter() - t0
    games = RatedGame.objects.count()
    print(f"  imported players={report.players} games={games} in {import_s:.1f} s", flush=True)
    whr_list = RatingList.objects.create(name="WHR", method="whr", category="renju")
    elo_list = RatingList.objects.create(name="Elo", method="elo", category="renju")
    t0 = time.perf_counter()
    rated = recompute(rating_list=whr_list)
    whr_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    recompute(rating_list=elo_list)
    elo_s = time.perf_counter() - t0
    print(f"  rated {rated} players: whr {whr_s:.1f} s, elo {elo_s:.1f} s", flush=True)
    list_rows(whr_list)
    timings = []
    for _ in range(5):
        t0 = time.perf_counter()
        list_rows(whr_list)
        timings.append((time.perf_counter() - t0) * 1000)
    print(
        f"ratings: players={report.players} games={games} whr_full_s={whr_s:.1f} elo_full_s={elo_s:.1f} "
        f"import_games_per_s={games / import_s:.0f} list_ms={statistics.median(timings):.1f}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
