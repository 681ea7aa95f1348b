"""Pairing a Swiss round behind one small interface, so the program doing it can be swapped.

:class:`Py4SwissDutch` is the one the system uses: the FIDE Dutch system of ``py4swiss`` (pinned in
requirements.txt), which reads the tournament as a TRF file exactly as JaVaFo and bbpPairings do, so an
exported TRF re-paired by one of those gives the same round. :class:`CaissifyDutch` (``caissify-pairings``,
a test requirement only) is the second opinion the tests compare against. Why that choice: docs/swiss.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tournament.swiss import trf
from tournament.swiss.state import FIRST, SwissState


class PairingError(Exception):
    """The round cannot be paired under the absolute rules (no rematch, prohibited pairs, one bye each)."""


@dataclass(frozen=True)
class Board:
    """One board of a round: ``first`` has the first-player role; ``second`` is None for the bye."""

    first: int
    second: int | None


class Pairer(Protocol):
    name: str

    def pair(self, state: SwissState) -> list[Board]:
        """The next round's boards, in FIDE's board order, the pairing-allocated bye (if any) last."""
        ...


class Py4SwissDutch:
    """``isolated``: pair in a child process (``python -m tournament.swiss.pairing``), so a long pairing of
    a large field runs on its own core and never holds the calling process's interpreter (a Celery
    worker's clock threads go on undisturbed)."""

    name = "py4swiss-dutch"

    def __init__(self, isolated: bool = False) -> None:
        self.isolated = isolated

    def pair(self, state: SwissState) -> list[Board]:
        text = trf.write(state)
        if not self.isolated:
            return pair_trf(text)
        root = Path(__file__).resolve().parents[2]
        done = subprocess.run(
            [sys.executable, "-m", "tournament.swiss.pairing"],
            input=text,
            capture_output=True,
            text=True,
            cwd=root,
            check=False,
        )
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            raise RuntimeError(f"the pairing process failed: {done.stderr[-2000:]}") from None
        if "error" in answer:
            raise PairingError(answer["error"])
        return [Board(int(a), None if b is None else int(b)) for a, b in answer["boards"]]


def pair_trf(text: str) -> list[Board]:
    """The next round of the tournament in ``text`` (TRF), paired by py4swiss's FIDE Dutch engine."""
    from py4swiss.engines import DutchEngine
    from py4swiss.engines.common import PairingError as LibraryError
    from py4swiss.trf import TrfParser

    handle, path = tempfile.mkstemp(suffix=".trf")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        parsed = TrfParser.parse(Path(path), strict=True)
        try:
            pairings = DutchEngine.generate_pairings(parsed)
        except LibraryError as exc:
            raise PairingError(str(exc)) from exc
    finally:
        os.unlink(path)
    boards = [Board(p.white, p.black or None) for p in pairings]
    return sorted(boards, key=lambda b: b.second is None)  # stable: the bye after the games


class CaissifyDutch:
    """The second opinion: caissify-pairings' Dutch engine, fed the same state.

    It knows no prohibited pairs, so they are passed as games already played (the same absolute rule);
    players not to be paired are left out; its acceleration is its own (rounds 1-2 only), so accelerated
    states are compared only there.
    """

    name = "caissify-dutch"

    def pair(self, state: SwissState) -> list[Board]:
        from caissify_pairings import generate_pairings

        played = state.rounds_played
        absent = state.absent | set(state.preassigned)
        players = []
        previous: set[tuple[int, int]] = set(state.forbidden)
        numbers = state.by_number()
        for p in state.players:
            scores = [p.score(state.points, r) for r in range(played + 1)]
            floats = []
            for r, record in enumerate(p.rounds):
                if record.played and record.opponent is not None:
                    previous.add((min(p.number, record.opponent), max(p.number, record.opponent)))
                    mine = state.pairing_score(p, r + 1)
                    theirs = state.pairing_score(numbers[record.opponent], r + 1)
                    floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
                elif record.result in ("U", "+"):
                    floats.append("down")
                else:
                    floats.append("none")
            if p.number in absent:
                continue
            players.append(
                {
                    "id": p.number,
                    "name": p.name,
                    "score": scores[-1] / 10,
                    "rating": p.rating,
                    "starting_number": p.number,
                    "color_hist": [
                        ("white" if r.colour == FIRST else "black") if r.played else "none" for r in p.rounds
                    ],
                    "float_history": floats,
                    "bye_count": sum(1 for r in p.rounds if r.result in ("U", "+")),
                }
            )
        out = generate_pairings(
            "dutch",
            players,
            previous,
            state.next_round,
            state.total_rounds,
            initial_color="white" if state.first_colour == FIRST else "black",
            accelerated=bool(state.accelerations),
            bye_value=state.points.pab / 10,
        )
        boards = [Board(o["white_id"], o.get("black_id")) for o in out]
        return sorted(boards, key=lambda b: b.second is None)


PAIRERS: dict[str, type[Py4SwissDutch] | type[CaissifyDutch]] = {
    Py4SwissDutch.name: Py4SwissDutch,
    CaissifyDutch.name: CaissifyDutch,
}
DEFAULT = Py4SwissDutch.name


def pairer(name: str = DEFAULT, *, isolated: bool = False) -> Pairer:
    if name == Py4SwissDutch.name:
        return Py4SwissDutch(isolated=isolated)
    return PAIRERS[name]()


if __name__ == "__main__":  # the isolated pairing: a TRF on stdin, the boards as JSON on stdout
    try:
        found = pair_trf(sys.stdin.read())
        print(json.dumps({"boards": [[b.first, b.second] for b in found]}))
    except PairingError as exc:
        print(json.dumps({"error": str(exc)}))


def unit_prohibitions(units: Iterable[tuple[int, str]]) -> set[tuple[int, int]]:
    """Every pair of players of the same unit (club, city, family), as pairs of pairing numbers."""
    by_unit: dict[str, list[int]] = {}
    for number, unit in units:
        if unit.strip():
            by_unit.setdefault(unit.strip(), []).append(number)
    return {(a, b) for members in by_unit.values() for a in members for b in members if a < b}
