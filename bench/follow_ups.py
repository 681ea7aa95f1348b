"""Benchmark: how long what follows a game's end holds the ender's transaction, beside the result's own write.

A game's end writes the result (games.services.finish._write) and then runs the tournament's follow-up (the
match, the group and the stage re-derived, the boards called) in the same request. When the ender holds a
transaction (a confirmed report, a winning move: the game's row lock, and on SQLite the database's write
lock) the follow-up's time is added to it. This bench plays the seed format through the real services on a
throw-away SQLite database and times both for every game that ends.

Last line: ``follow_ups: players=… games=… write_ms_p50=… follow_ms_p50=… follow_ms_p99=… ratio_p50=…``
(ratio: the follow-up's median ÷ the write's median, measured in the same run).
Run: ``.venv/bin/python bench/follow_ups.py [--players 22 300]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.benchdb import throwaway_django  # noqa: E402 - after the path is set


def _timed(into: list[float], real: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            into.append((time.perf_counter() - started) * 1000)

    return wrapper


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[22, 300])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    throwaway_django()

    from games.services import finish
    from tournament.simulate import simulate

    line = ""
    for players in args.players:
        writes: list[float] = []
        follows: list[float] = []
        real_write, real_follow = finish._write, finish.run_follow_up
        finish._write = _timed(writes, real_write)  # type: ignore[assignment]
        finish.run_follow_up = _timed(follows, real_follow)  # type: ignore[assignment]
        try:
            simulate(players=players, seed=args.seed)
        finally:
            finish._write, finish.run_follow_up = real_write, real_follow  # type: ignore[assignment]
        write50, follow50 = statistics.median(writes), statistics.median(follows)
        line = (
            f"follow_ups: players={players} games={len(follows)} write_ms_p50={write50:.1f} "
            f"follow_ms_p50={follow50:.1f} follow_ms_p99={_p(follows, 0.99):.1f} ratio_p50={follow50 / write50:.1f}"
        )
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
