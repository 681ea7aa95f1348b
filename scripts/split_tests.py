"""Run the test suite as separate pytest processes side by side, one per group of test folders, and fail
if any of them fails.

``make test`` uses it to use both cores of the machine. Each process is a whole pytest session of its own
(its own in-memory database, its own Redis, Celery workers and browser on free ports), as two people running
``pytest`` on one machine would be: nothing is shared between the groups but the files under ``var/``,
which name themselves after the test. Each group's output is written to ``var/test-logs/<group>.log`` and
printed once the group is done, whole, so the two do not interleave.

Usage: ``python scripts/split_tests.py [pytest options]`` (the options go to every group).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# About the same time each on the 2-core machine (measured: make test's figures in the README): the
# tournament's browser tests go with the other apps, and the API's fuzzing (about 230 s) with the tournament;
# fair play (about 170 s) with the other apps (2026-12-07: 785 s against 571 s before it moved); the venue test
# (about 30 s) with the tournament's once its hash-seed simulations stopped migrating each time (2026-12-07:
# 1,063 s and 1,061 s before that; with the backup tests moved too, 1,074 s and 968 s).
BROWSER = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tournament" / "tests").glob("test_browser*.py"))
MOVED = ["config/tests/test_fuzz.py", "config/tests/test_venue.py"]
GROUPS = {
    "tournament": [
        "tournament/tests",
        "relay/tests",
        *MOVED,
        *(f"--deselect={path}" for path in BROWSER),
    ],
    "browser-engine-games-ratings-config": [
        *BROWSER,
        "engine/tests",
        "games/tests",
        "ratings/tests",
        "config/tests",
        "fairplay/tests",
        *(f"--deselect={path}" for path in MOVED),
    ],
}


def main(options: list[str]) -> int:
    logs = ROOT / "var" / "test-logs"
    logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    running = {}
    for name, folders in GROUPS.items():
        log = (logs / f"{name}.log").open("w")
        # a temporary folder of its own (pytest empties it first) and no shared cache file
        basetemp = ROOT / "var" / "test-tmp" / name
        basetemp.parent.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--basetemp={basetemp}",
            "--durations=25",  # the slowest tests in each group's log, for balancing the groups
            *options,
            *folders,
        ]
        running[name] = (subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT), log)
    failed = []
    for name, (process, log) in running.items():
        code = process.wait()
        log.close()
        print(f"==== {name}: exit {code} after {time.monotonic() - started:.0f} s ====", flush=True)
        print((logs / f"{name}.log").read_text(errors="replace")[-20000:], flush=True)
        if code != 0:
            failed.append(name)
    print(f"==== groups failed: {', '.join(failed) or 'none'} ({time.monotonic() - started:.0f} s) ====")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
