"""What the Dutch pairing knows of a player, the float directions, and the speed shortcuts."""

from __future__ import annotations

from dataclasses import dataclass

from tournament.swiss.state import FIRST, SECOND

NONE, DOWN, UP = 0, 1, 2  # float directions


class PairingError(Exception):
    """No round pairing satisfies the absolute criteria."""


@dataclass(frozen=True)
class Shortcuts:
    """The ways round pairing is made fast without changing a single pairing (each is checked and falls
    back to the full method). :data:`NO_SHORTCUTS` is bbpPairings' method as it is written."""

    # A bracket with at least ``window_below`` players below its next score group is solved over
    # ``window_stand_ins`` stand-ins for them (more when players float down), then checked against them.
    window_below: int = 60
    window_stand_ins: int = 12
    # S1 players given their opponents at once (by one matching, their orders weighted lexicographically).
    s1_chunk: int = 8
    # A bracket without moved-down players skips the matching that only counts its pairs (checked after).
    guess_pairs: bool = True
    # S1 players' opponents settled on counts of kinds where that applies (transport.py), with at most
    # ``kinds_at_most`` kinds (each shortest path costs a few passes over kinds squared).
    by_kind: bool = True
    kinds_at_most: int = 260
    # Round 1 read off the ranking when nothing forbids it.
    read_round_one: bool = True


SHORTCUTS = Shortcuts()
NO_SHORTCUTS = Shortcuts(window_below=10**9, s1_chunk=1, guess_pairs=False, by_kind=False, read_round_one=False)


@dataclass
class Player:
    """One player to be paired, with everything the criteria read."""

    number: int
    score: int  # tenths, virtual points included (FIDE's pairing score)
    raw: int  # tenths, without virtual points (board order)
    pref: str | None  # FIRST, SECOND or None
    imbalance: int  # |games as first - games as second|
    strong: bool
    absolute: bool
    repeated: str | None  # the role of the last two games when they were alike
    played: int
    eligible: bool  # may receive the pairing-allocated bye (C.2)
    float1: int
    float2: int
    history: list[str]  # roles in games played, oldest first

    @property
    def kind(self) -> tuple[object, ...]:
        """Everything the quality criteria read of a player (not who they are)."""
        return (
            self.score,
            self.pref,
            self.imbalance,
            self.strong,
            self.absolute,
            self.repeated,
            self.played,
            self.eligible,
            self.float1,
            self.float2,
        )

    @property
    def absolute_imbalance(self) -> bool:
        return self.imbalance > 1


def stand_in(k: int, score: int) -> Player:
    """A stand-in for a player of the next score group (``score``) or further down: anyone may meet them."""
    return Player(-1 - k, score, 0, None, 0, False, False, None, 0, True, NONE, NONE, [])


def invert(colour: str | None) -> str | None:
    return None if colour is None else (SECOND if colour == FIRST else FIRST)


def compatible_prefs(a: str | None, b: str | None) -> bool:
    return a != b or a is None or b is None


def bits(value: int) -> int:
    return max(1, int(value).bit_length())
