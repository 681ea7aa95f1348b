"""A Gomocup engine that misbehaves on purpose, for the manager's tests: ``python misbehaving.py MODE``.

Modes: ``sleep`` (never answers the position), ``crash`` (exits after START), ``occupied`` (plays on a
stone), ``forbidden`` (plays the first point given by ``--point``), ``garbage`` (prints nonsense),
``error`` (answers ERROR), ``chatty`` (MESSAGE lines, then a good move at the first empty point).
"""

from __future__ import annotations

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


def answer(mode: str, stones: list[str], point: str, size: int) -> None:
    if mode == "sleep":
        time.sleep(3600)
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
