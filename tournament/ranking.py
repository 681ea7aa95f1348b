"""One ranking for every table the tournament shows: a round-robin group's players, a Swiss stage's players,
a team event's teams.

Competitors are ordered by a list of criteria, the first the primary score: blocks of competitors still level
are split criterion by criterion, each criterion's value asked of the block (so one that depends on who is
level, such as the direct encounter, sees exactly them). A block level on every criterion is settled by the
caller's rule (a recorded lot, an extra game, a shared place, a playoff later). Each competitor is told
what decided its place against a neighbour on the same primary score."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

BlockValues = Callable[[list[K]], Callable[[K], int]]
"""A criterion: given a block of level competitors, each one's value (higher first)."""

Settle = Callable[[list[K], int], tuple[list[list[K]], str]]
"""A complete tie's rule: given the block and the first place it holds, the block as ordered parts (a part of
several shares a place) and its word."""


def split(block: Sequence[K], value: Callable[[K], int]) -> list[list[K]]:
    """``block`` in order of ``value``, highest first, as runs of equal value (each in the block's order)."""
    ordered = sorted(block, key=lambda k: -value(k))
    out: list[list[K]] = []
    for k in ordered:
        if out and value(out[-1][0]) == value(k):
            out[-1].append(k)
        else:
            out.append([k])
    return out


def blocks(competitors: Sequence[K], criteria: Sequence[tuple[str, BlockValues[K]]]) -> tuple[list[list[K]], list[str]]:
    """The competitors as blocks of those level on every criterion, best first, and for each block the
    criterion that separated it from the block above ("" where the primary score did, or at the top)."""
    found: list[list[K]] = [list(competitors)]
    labels = [""]
    for index, (name, values) in enumerate(criteria):
        refined: list[list[K]] = []
        new_labels: list[str] = []
        for block, label in zip(found, labels, strict=True):
            parts = [block] if len(block) == 1 else split(block, values(block))
            refined += parts
            new_labels += [label] + [name if index else ""] * (len(parts) - 1)
        found, labels = refined, new_labels
    return found, labels


def lot(seed: str, block: Sequence[K]) -> list[K]:
    """A recorded lot: the same order on every machine for the same seed and the same competitors."""
    shuffled = sorted(block)  # type: ignore[type-var]
    random.Random(f"{seed}-{'-'.join(map(str, shuffled))}").shuffle(shuffled)
    return shuffled


def by_lot(seed: str) -> Settle[K]:
    """Settle a complete tie by a recorded lot, one place each."""
    return lambda block, _place: ([[k] for k in lot(seed, block)], "lot")


def shared(block: list[K], place: int = 1) -> tuple[list[list[K]], str]:
    """Settle nothing: the block shares its best place."""
    return [block], "shared"


def crosses(precise: Sequence[int], place: int, size: int) -> bool:
    """Does a block of ``size`` from ``place`` hold a place that must be precise (a medal, a qualifying spot):
    a cut after place p (p in ``precise``) falling inside it?"""
    return any(place <= p < place + size - 1 for p in precise)


@dataclass
class Place(Generic[K]):
    competitor: K
    place: int  # competitors sharing a place have the same one
    decided_by: str  # what put it where it is against a neighbour on the same primary score; "" if none


def rank(
    competitors: Sequence[K],
    criteria: Sequence[tuple[str, BlockValues[K]]],
    settle: Settle[K] = shared,
    primary: Callable[[K], int] | None = None,
) -> list[Place[K]]:
    """Everyone in order. ``criteria[0]`` is the primary score (``primary``: its value, to tell neighbours on
    the same score); a block level on everything is ``settle``'d. A competitor level with the one above on
    the primary score is decided by what separated them; the first of such a run by what separated it
    from the one below."""
    found, labels = blocks(competitors, criteria)
    parts: list[list[K]] = []
    part_labels: list[str] = []
    tied: dict[K, str] = {}
    for block, label in zip(found, labels, strict=True):
        if len(block) == 1:
            parts.append(block)
            part_labels.append(label)
            continue
        settled, how = settle(block, 1 + sum(len(part) for part in parts))
        tied.update(dict.fromkeys(block, how))
        parts += settled
        part_labels += [label] + [how] * (len(settled) - 1)
    score = primary or criteria[0][1](list(competitors))
    out: list[Place[K]] = []
    place = 1
    for index, (part, label) in enumerate(zip(parts, part_labels, strict=True)):
        above = parts[index - 1][0] if index else None
        below = parts[index + 1][0] if index + 1 < len(parts) else None
        level_above = above is not None and score(above) == score(part[0])
        level_below = below is not None and score(below) == score(part[0])
        for k in part:
            if len(part) > 1:
                decided = tied[k]
            elif level_above:
                decided = label
            elif level_below:
                decided = part_labels[index + 1]
            else:
                decided = ""
            out.append(Place(k, place, decided))
        place += len(part)
    return out


# How a complete tie is settled: the competitors share the place (the RIF's rule), an extra game decides it when a
# precise place is needed, or a recorded lot.
COMPLETE_TIES = ("share", "extra_game", "lot")


@dataclass(frozen=True)
class CompleteTie:
    """What to do with competitors level on every criterion (``COMPLETE_TIES``), the same for every format:
    share the place; or wait for an extra game whose order the organizer records (``decisions``: lists of
    competitors, best first) — every tie (``extra_game``), or with ``share`` only a tie that holds one of the
    ``precise`` places and the one after it (the medals: 1, 2, 3); or a recorded lot."""

    how: str
    lot_seed: str
    decisions: Sequence[Sequence[Hashable]] = ()
    precise: Sequence[int] = ()

    def settle(self, block: list[K], place: int = 1) -> tuple[list[list[K]], str]:
        """The tied block (holding places from ``place`` on) as ordered parts (one part: a shared place) and
        the word for how."""
        if self.how == "lot":
            return [[k] for k in lot(self.lot_seed, block)], "lot"
        if self.how == "extra_game" or crosses(self.precise, place, len(block)):
            for decided in self.decisions:
                if set(decided) == set(block):
                    return [[k for k in block if k == d] for d in decided], "extra_game"
            return [sorted(block)], "extra_game_due"  # type: ignore[type-var]
        return [sorted(block)], "shared"  # type: ignore[type-var]
