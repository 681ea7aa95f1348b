"""A double-elimination bracket as pure arithmetic: the matches, where each one's players come from, and the
state of the bracket given the matches decided so far. No database here (the format reads the stage and
asks these functions).

The bracket of ``n`` players in seeding order has ``P`` places (the next power of two, at least 2); the top
seeds get the byes (seed ``s`` meets seed ``P + 1 - s`` in the winners' first round, the standard order, so
the best two can meet only in the final). A player out of the winners' bracket drops into the losers'
bracket; a second loss ends their event.

- Winners' bracket: rounds ``W1`` … ``Wk`` (``k = log2 P``); ``W{r}-{i}`` takes the winners of
  ``W{r-1}-{2i-1}`` and ``W{r-1}-{2i}``.
- Losers' bracket: ``2k - 2`` rounds. ``L1`` pairs the losers of ``W1``; each even round ``L{2j}`` meets the
  winners of ``L{2j-1}`` with the losers of ``W{j+1}`` dropping in (in reversed order in ``L2``, ``L6`` …,
  their halves swapped in ``L4``, ``L8`` …, so a pair that met in the winners' bracket does not meet again
  at once); each odd round ``L{2j+1}`` pairs the winners of ``L{2j}``.
- ``GF``, the grand final: the winners' champion against the losers' champion; ``GF2``, the bracket reset,
  is played only if the losers' champion wins ``GF`` (both then have one loss).

A bye is a walkover: the player meets nobody and goes on without a game; a match of two byes sends on a bye.
Places: 1 and 2 from the final, 3 the loser of the losers' final, then everyone out in the same losers'
round shares a place (4, 5–6, 7–8, …).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

BYE = 0  # an empty place of the bracket (entries are positive keys)


@dataclass(frozen=True)
class Slot:
    """One match of the bracket: its name, its column, and where its two players come from: ``("seed", s)``
    (1-based seed), ``("winner", name)`` or ``("loser", name)``."""

    name: str
    side: str  # "winners", "losers" or "final"
    round: int  # the column within its side
    sources: tuple[tuple[str, int | str], tuple[str, int | str]]


@dataclass(frozen=True)
class Played:
    """A decided match of the bracket: who played (in the match's order) and who won."""

    first: int
    second: int
    winner: int


def seed_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) in the order of its first round's places:
    1, size, …, 2 — so seed ``s`` meets ``size + 1 - s`` and the top seeds meet as late as possible.

    >>> seed_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        double = 2 * len(order)
        order = [x for s in order for x in (s, double + 1 - s)]
    return order


def bracket_size(players: int) -> int:
    size = 2
    while size < players:
        size *= 2
    return size


def _dropped(count: int, j: int) -> list[int]:
    """The order in which ``count`` losers of the winners' round ``j + 1`` drop into losers' round ``2j``."""
    indices = list(range(count))
    if count == 1:
        return indices
    if j % 2 == 1:
        return indices[::-1]
    half = count // 2
    return indices[half:] + indices[:half]


def slots(players: int) -> list[Slot]:
    """Every match a bracket of ``players`` can have, in the order they can be played (``GF2`` last)."""
    size = bracket_size(players)
    k = size.bit_length() - 1
    order = seed_order(size)
    winners: list[list[Slot]] = []
    first = [
        Slot(f"W1-{i + 1}", "winners", 1, (("seed", order[2 * i]), ("seed", order[2 * i + 1])))
        for i in range(size // 2)
    ]
    winners.append(first)
    for r in range(2, k + 1):
        before = winners[-1]
        winners.append(
            [
                Slot(
                    f"W{r}-{i + 1}", "winners", r, (("winner", before[2 * i].name), ("winner", before[2 * i + 1].name))
                )
                for i in range(len(before) // 2)
            ]
        )
    losers: list[list[Slot]] = []
    if k >= 2:
        w1 = winners[0]
        losers.append(
            [
                Slot(f"L1-{i + 1}", "losers", 1, (("loser", w1[2 * i].name), ("loser", w1[2 * i + 1].name)))
                for i in range(len(w1) // 2)
            ]
        )
        for j in range(1, k):
            before = losers[-1]
            dropping = winners[j]
            drop = _dropped(len(dropping), j)
            even = [
                Slot(
                    f"L{2 * j}-{i + 1}",
                    "losers",
                    2 * j,
                    (("winner", before[i].name), ("loser", dropping[drop[i]].name)),
                )
                for i in range(len(before))
            ]
            losers.append(even)
            if len(even) > 1:
                losers.append(
                    [
                        Slot(
                            f"L{2 * j + 1}-{i + 1}",
                            "losers",
                            2 * j + 1,
                            (("winner", even[2 * i].name), ("winner", even[2 * i + 1].name)),
                        )
                        for i in range(len(even) // 2)
                    ]
                )
    champion_of_losers: tuple[str, int | str] = (
        ("winner", losers[-1][0].name) if losers else ("loser", winners[-1][0].name)
    )
    final = Slot("GF", "final", 1, (("winner", winners[-1][0].name), champion_of_losers))
    reset = Slot("GF2", "final", 2, (("winner", "GF"), ("loser", "GF")))
    ordered = [s for column in winners for s in column] + [s for column in losers for s in column]
    return [*ordered, final, reset]


@dataclass
class State:
    """The bracket given the matches decided so far: each match's two players (an entry, ``BYE``, or None
    while unknown), its winner and loser once known, and which matches are ready to be played."""

    players: dict[str, tuple[int | None, int | None]]
    winner: dict[str, int | None]
    loser: dict[str, int | None]
    ready: list[str]
    complete: bool


def state(seeds: Sequence[int], played: Mapping[str, Played], withdrawn: frozenset[int] = frozenset()) -> State:
    """The bracket of ``seeds`` (entries in seeding order) after the ``played`` matches (by slot name); a
    ``withdrawn`` player loses each match not yet played by walkover."""
    every = slots(len(seeds))
    players: dict[str, tuple[int | None, int | None]] = {}
    winner: dict[str, int | None] = {}
    loser: dict[str, int | None] = {}
    ready: list[str] = []

    def source(kind: str, ref: int | str) -> int | None:
        if kind == "seed":
            assert isinstance(ref, int)
            return seeds[ref - 1] if ref <= len(seeds) else BYE
        table = winner if kind == "winner" else loser
        return table[str(ref)]

    for slot in every:
        a, b = (source(kind, ref) for kind, ref in slot.sources)
        players[slot.name] = (a, b)
        winner[slot.name] = loser[slot.name] = None
        if slot.name == "GF2":
            gf = played.get("GF")
            needed = gf is not None and gf.winner != players["GF"][0]  # the losers' champion won the final
            if not needed:
                winner["GF2"] = loser["GF2"] = BYE if gf is not None else None
                continue
        if a is None or b is None:
            continue
        if a == BYE or b == BYE:  # a walkover
            winner[slot.name], loser[slot.name] = (b, BYE) if a == BYE else (a, BYE)
            continue
        result = played.get(slot.name)
        if result is None and (a in withdrawn or b in withdrawn):  # the one still here goes on without a game
            winner[slot.name], loser[slot.name] = (b, a) if a in withdrawn else (a, b)
            continue
        if result is None:
            ready.append(slot.name)
            continue
        winner[slot.name] = result.winner
        loser[slot.name] = result.second if result.winner == result.first else result.first
    complete = winner["GF2"] is not None
    return State(players, winner, loser, ready, complete)


def champion(found: State) -> int | None:
    """The event's winner once the bracket is complete."""
    if not found.complete:
        return None
    return found.winner["GF"] if found.winner["GF2"] == BYE else found.winner["GF2"]


def places(found: State, seeds: Sequence[int]) -> list[list[int]]:
    """The order of places so far, best first: each block a place shared (those still in the event first,
    as one block, while the bracket is not complete)."""
    out_in: dict[int, str] = {}  # entry -> the match of their second loss
    losses: dict[int, int] = {}
    order = slots(len(seeds))
    for slot in order:
        lost = found.loser[slot.name]
        if lost in (None, BYE):
            continue
        assert lost is not None
        losses[lost] = losses.get(lost, 0) + 1
        if slot.side == "losers" or slot.name == "GF2" or (slot.name == "GF" and found.winner["GF2"] == BYE):
            out_in[lost] = slot.name
    position = {s.name: i for i, s in enumerate(order)}
    blocks: list[list[int]] = []
    alive = [e for e in seeds if e not in out_in]
    if found.complete:
        top = champion(found)
        assert top is not None
        blocks.append([top])
        alive = [e for e in alive if e != top]
    if alive:
        blocks.append(sorted(alive, key=seeds.index))
    by_round: dict[tuple[str, int], list[int]] = {}
    for entry, name in out_in.items():
        slot = order[position[name]]
        by_round.setdefault((slot.side, slot.round), []).append(entry)
    later_first = sorted(by_round, key=lambda key: (key[0] != "final", -key[1]))
    for key in later_first:
        blocks.append(sorted(by_round[key], key=seeds.index))
    return blocks
