"""Benchmark: what the outside engines' box (engine.sandbox) costs a move.

Every move of an outside engine starts its program afresh (engine.gomocup). This starts a small Gomocup engine
(``engine/tests/engines/misbehaving.py``, in a private engines folder, run by the system's Python) for one move
``--moves`` times boxed and as many times unboxed, interleaved, and prints the median time from start to answer
for each and their ratio. The built-in levels are not boxed and are not measured here (``bench/ai.py``).

Last line: ``engine_box: moves=… unboxed_ms_p50=… boxed_ms_p50=… ratio=…``.
Run: ``.venv/bin/python bench/engine_box.py [--moves 40]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import Board  # noqa: E402
from engine.gomocup import EngineSpec, engine_move  # noqa: E402
from engine.rules import find_rules  # noqa: E402
from engine.sandbox import Box, unavailable  # noqa: E402

ENGINE = ROOT / "engine" / "tests" / "engines" / "misbehaving.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()
    missing = unavailable()
    if missing:
        sys.exit(f"engine_box: no box on this machine: {missing}")
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "/usr/bin/python3"
    with tempfile.TemporaryDirectory(prefix="engines-") as folder:
        shutil.copy(ENGINE, Path(folder) / "engine.py")
        command = (python, str(Path(folder) / "engine.py"), "chatty")  # the first free point, at once
        specs = {
            "unboxed": EngineSpec(command, turn_ms=2000, cwd=folder),
            "boxed": EngineSpec(command, turn_ms=2000, cwd=folder, box=Box(read=(folder,))),
        }
        board, rules = Board.replay("h8"), find_rules("freestyle")
        times: dict[str, list[float]] = {name: [] for name in specs}
        for _ in range(args.moves):
            for name, spec in specs.items():
                started = time.perf_counter()
                engine_move(spec, board, rules)
                times[name].append((time.perf_counter() - started) * 1000)
    unboxed, boxed = (statistics.median(times[n]) for n in ("unboxed", "boxed"))
    print(
        f"engine_box: moves={args.moves} unboxed_ms_p50={unboxed:.1f} boxed_ms_p50={boxed:.1f} "
        f"ratio={boxed / unboxed:.2f}"
    )


if __name__ == "__main__":
    main()
