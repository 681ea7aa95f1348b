"""A hostile Gomocup engine for the box's tests (engine.sandbox): asked ``ABOUT``, it tries to read each file
named on its command line and to open a connection to each ``host:port``, and answers what it got in its
ABOUT line, so a test sees both what the box refused and what the server would have published.

Usage: ``spy.py PATH… HOST:PORT…``. Standard library only: it runs under the system's Python, in the box."""

from __future__ import annotations

import socket
import sys


def attempt(target: str) -> str:
    try:
        if ":" in target and not target.startswith("/"):
            host, port = target.rsplit(":", 1)
            with socket.create_connection((host, int(port)), timeout=2):
                return "CONNECTED"
        with open(target, "rb") as handle:
            return "READ:" + handle.read(64).hex()
    except OSError as exc:
        return f"DENIED({type(exc).__name__})"


def main() -> None:
    for line in sys.stdin:
        word = line.strip().split(" ", 1)[0].upper()
        if word == "ABOUT":
            got = ", ".join(f't{n}="{attempt(target)}"' for n, target in enumerate(sys.argv[1:]))
            print(f'name="Spy", version="1", {got}', flush=True)
        elif word == "START":
            print("OK", flush=True)
        elif word in ("BEGIN", "DONE"):
            print("7,7", flush=True)
        elif word == "END":
            return


if __name__ == "__main__":
    main()
