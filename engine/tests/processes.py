"""Engine processes left behind, for the tests of the engine box."""

from __future__ import annotations

import os

from engine.gomocup import MARKER


def leftovers() -> list[int]:
    """Processes still carrying the marker of an engine run this process started (another test process may be
    running engines of its own at the same time)."""
    needle = f"{MARKER}={os.getpid()}-".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if any(v.startswith(needle) for v in handle.read().split(b"\0")):
                        found.append(int(entry))
            except OSError:
                continue
    return found
