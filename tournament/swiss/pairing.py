"""Pairing a Swiss round behind one small interface, so the program doing it can be swapped.

Two texts of FIDE's Dutch system, chosen per stage (``SwissState.rules``): :class:`Dutch2026`, the rules in
force since February 2026 (``tournament/swiss/dutch.py``, ours, over bbpPairings' blossom matcher as
``py4swiss`` compiles it), and :class:`Py4SwissDutch`, the rules in force until January 2026 (``py4swiss``'s
own engine, pinned in requirements.txt), which reads the tournament as a TRF file exactly as JaVaFo and
bbpPairings 5 do. :class:`CaissifyDutch` (``caissify-pairings``, a test requirement only) is a second
opinion the tests compare against. Why these: docs/swiss.md.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tournament.swiss import dutch, trf
from tournament.swiss.state import FIRST, RULES_2017, RULES_2026, SwissState


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


class Isolated:
    """Pair in a child process (``python -m tournament.swiss.pairing``), so a long pairing of a large field
    runs on its own core and never holds the calling process's interpreter (a Celery worker's clock
    threads go on undisturbed). The state goes over as a pickle: the child runs this same code."""

    def __init__(self, inner: Pairer) -> None:
        self.inner = inner
        self.name = inner.name

    def pair(self, state: SwissState) -> list[Board]:
        root = Path(__file__).resolve().parents[2]
        done = subprocess.run(
            [sys.executable, "-m", "tournament.swiss.pairing"],
            input=pickle.dumps(state),
            capture_output=True,
            cwd=root,
            check=False,
        )
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            raise RuntimeError(f"the pairing process failed: {done.stderr[-2000:]!r}") from None
        if "error" in answer:
            raise PairingError(answer["error"])
        return [Board(int(a), None if b is None else int(b)) for a, b in answer["boards"]]


class Dutch2026:
    """FIDE's Dutch system by the rules in force since February 2026 (``tournament/swiss/dutch.py``)."""

    name = "fide-dutch-2026"

    def pair(self, state: SwissState) -> list[Board]:
        try:
            found = dutch.pair(state)
        except dutch.PairingError as exc:
            raise PairingError(str(exc)) from exc
        return [Board(a, b) for a, b in found]


class Py4SwissDutch:
    """FIDE's Dutch system by the rules in force until January 2026: ``py4swiss``'s engine, fed our TRF."""

    name = "py4swiss-dutch"

    def pair(self, state: SwissState) -> list[Board]:
        return pair_trf(trf.write(state))


def pair_trf(text: str) -> list[Board]:
    """The next round of the tournament in ``text`` (TRF), paired by py4swiss's FIDE Dutch engine."""
    from py4swiss.engines import DutchEngine
    from py4swiss.engines.common import PairingError as LibraryError
    from py4swiss.trf import TrfParser

    handle, path = tempfile.mkstemp(suffix=".trf")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:  # py4swiss reads XXS, and refuses bbpPairings' BBx
            out.write("".join(line for line in text.splitlines(keepends=True) if not line.startswith("BB")))
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


PAIRERS: dict[str, type[Dutch2026] | type[Py4SwissDutch] | type[CaissifyDutch]] = {
    Dutch2026.name: Dutch2026,
    Py4SwissDutch.name: Py4SwissDutch,
    CaissifyDutch.name: CaissifyDutch,
}
BY_RULES = {RULES_2026: Dutch2026.name, RULES_2017: Py4SwissDutch.name}


def pairer(rules: str = RULES_2026, *, isolated: bool = False) -> Pairer:
    """The program that pairs by ``rules`` (``state.RULES``); ``isolated``: in a child process."""
    engine: Pairer = PAIRERS[BY_RULES[rules]]()
    return Isolated(engine) if isolated else engine


def _child() -> None:
    """The isolated pairing: a pickled state on stdin, the boards (or the refusal) as JSON on stdout."""
    state = pickle.loads(sys.stdin.buffer.read())
    try:
        found = pairer(state.rules).pair(state)
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


if __name__ == "__main__":
    _child()
