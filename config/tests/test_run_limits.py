"""``make run`` (scripts/run.py) and the benches lift their open-files limit for the servers they start
(devtools.processes.open_files_as_allowed): each socket is a file."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOW = 256
_SOFT, HARD = resource.getrlimit(resource.RLIMIT_NOFILE)

PROBE = """
import runpy, subprocess
run = runpy.run_path("scripts/run.py", run_name="probe")
print(run["open_files_as_allowed"]())
print(subprocess.run(["sh", "-c", "ulimit -n"], capture_output=True, text=True).stdout.strip())
"""


@pytest.mark.skipif(
    HARD != resource.RLIM_INFINITY and HARD <= LOW,
    reason=f"this machine's hard open-files limit ({HARD}) is no higher than the low soft limit the test sets",
)
def test_the_servers_make_run_starts_may_hold_as_many_sockets_as_the_hard_limit_allows() -> None:
    def low_soft_limit() -> None:  # as Debian's default of 1,024, lower still
        resource.setrlimit(resource.RLIMIT_NOFILE, (LOW, HARD))

    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, preexec_fn=low_soft_limit, capture_output=True, text=True, check=True
    )
    raised, child = (int(line) for line in done.stdout.split())
    wanted = HARD if HARD != resource.RLIM_INFINITY else 1 << 20
    assert raised == wanted > LOW
    assert child == raised  # a server started from it inherits the limit
