"""A Gomocup engine that misbehaves on purpose, for the manager's tests: ``python misbehaving.py MODE``.

Modes: ``sleep`` (never answers the position), ``crash`` (exits after START), ``occupied`` (plays on a
stone), ``forbidden`` (plays the first point given by ``--point``), ``garbage`` (prints nonsense),
``error`` (answers ERROR), ``chatty`` (MESSAGE lines, then a good move at the first empty point).

Hostile modes, for the box it runs in: ``holder`` (starts a child in a session of its own that keeps the
output pipe open and sleeps, then never answers), ``spawner`` (starts 20 sleeping children, then never
answers), ``flood`` (writes notes without end), ``longline`` (one line without end), ``env`` (answers with
the names of its environment variables as a MESSAGE, then a move), ``hog`` (asks for 4 GB of memory, then
answers).
"""

from __future__ import annotations

import os
import sys
import time


def main() -> int:
    mode = sys.argv[1]
    point = sys.argv[2] if len(sys.argv) > 2 else "7,7"
    size = 15
    stones: list[str] = []
    reading = False
    for raw in sys.stdin:
        line = raw.strip()
        if reading:
            if line.upper() == "DONE":
                reading = False
                answer(mode, stones, point, size)
            else:
                stones.append(",".join(line.split(",")[:2]))
            continue
        word = line.split(" ")[0].upper()
        if word == "START":
            size = int(line.split(" ")[1])
            print("OK", flush=True)
            if mode == "crash":
                return 3
        elif word == "BOARD":
            reading, stones = True, []
        elif word == "END":
            return 0
        elif word == "ABOUT":
            print(f'name="misbehaving-{mode}", version="0"', flush=True)
    return 0


def _daemon() -> None:
    """A grandchild in a new session (out of the engine's process group) that holds stdout and sleeps."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(120)
        os._exit(0)


def answer(mode: str, stones: list[str], point: str, size: int) -> None:
    if mode == "sleep":
        time.sleep(3600)
    elif mode == "holder":
        _daemon()
        time.sleep(3600)
    elif mode == "spawner":
        for _ in range(20):
            if os.fork() == 0:
                time.sleep(120)
                os._exit(0)
        time.sleep(3600)
    elif mode == "flood":
        line = "MESSAGE " + "x" * 1000 + "\n"
        while True:
            sys.stdout.write(line)
    elif mode == "longline":
        while True:
            sys.stdout.write("y" * 65536)
    elif mode == "env":
        print("MESSAGE " + " ".join(sorted(os.environ)), flush=True)
        print(point, flush=True)
    elif mode == "hog":
        try:
            hoard = bytearray(4 << 30)
            hoard[-1] = 1
            print("MESSAGE got 4 GB", flush=True)
        except MemoryError:
            print("MESSAGE no memory", flush=True)
        print(point, flush=True)
    elif mode == "occupied":
        print(stones[0], flush=True)
    elif mode == "forbidden":
        print(point, flush=True)
    elif mode == "garbage":
        print("the best move is obvious", flush=True)
    elif mode == "error":
        print("ERROR out of memory", flush=True)
    elif mode == "chatty":
        print("MESSAGE thinking hard", flush=True)
        print("DEBUG depth 3", flush=True)
        taken = set(stones)
        free = next(f"{x},{y}" for y in range(size) for x in range(size) if f"{x},{y}" not in taken)
        print(free, flush=True)


if __name__ == "__main__":
    sys.exit(main())
