"""A round robin's numbers drawn by lot, with compatriots kept apart at the end, or fixed in advance by the
organizer who published the schedule (no database).

The RIF World Championship final (renju.net, *Comments on playing rules*): the numbers of the round robin are
drawn by lot, and players of one country do not meet in its last rounds (three since 2007; two in 2005). The
lot is drawn again, from the same recorded generator, until the schedule keeps the rule, so every order the
rule allows is equally likely. When no draw within the tries keeps it (too many of one country), the draw that
breaks it least is taken and the rounds where the rule gave way are named.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.utils.translation import gettext as _

from tournament.errors import TournamentError

K = TypeVar("K", bound=Hashable)

TRIES = 5000  # draws tried before the rule gives way (a field the rule allows is found in a few dozen)


@dataclass(frozen=True)
class Lot(Generic[K]):
    """The drawn order (number 1 first), and the compatriots who meet in the protected rounds anyway:
    ``gave_way`` as (round, first, second), empty when the rule held."""

    order: list[K]
    gave_way: list[tuple[int, K, K]] = field(default_factory=list)
    draws: int = 1


def compatriots_meeting(
    rounds: Sequence[Sequence[tuple[K, K]]], unit_of: Callable[[K], str], last: int
) -> list[tuple[int, K, K]]:
    """The pairs of one country (a non-empty unit) among the last ``last`` rounds: (round number, a, b)."""
    start = max(0, len(rounds) - last)
    return [
        (number, a, b)
        for number, pairs in enumerate(rounds[start:], start=start + 1)
        for a, b in pairs
        if unit_of(a) and unit_of(a) == unit_of(b)
    ]


def drawn_apart(
    keys: Sequence[K],
    unit_of: Callable[[K], str],
    last: int,
    schedule: Callable[[list[K]], Sequence[Sequence[tuple[K, K]]]],
    rng: random.Random,
    tries: int = TRIES,
) -> Lot[K]:
    """The numbers by lot (``rng``, seeded from the recorded draw seed), drawn again until no two keys of one
    unit meet in the last ``last`` rounds of ``schedule(order)``; ``last`` 0: one plain lot."""
    best: Lot[K] | None = None
    for draw in range(1, max(1, tries) + 1):
        order = list(keys)
        rng.shuffle(order)
        if last <= 0:
            return Lot(order, [], draw)
        meeting = compatriots_meeting(schedule(order), unit_of, last)
        if not meeting:
            return Lot(order, [], draw)
        if best is None or len(meeting) < len(best.gave_way):
            best = Lot(order, meeting, draw)
    assert best is not None
    return Lot(best.order, best.gave_way, tries)


def valid_numbers(value: Any) -> bool:
    """A fixed schedule's numbers as an option gives them: two or more distinct names, none empty."""
    return (
        isinstance(value, list | tuple)
        and len(value) >= 2
        and all(isinstance(n, str) and n.strip() and len(n) <= 100 for n in value)
        and len({n.strip() for n in value}) == len(value)
    )


def fixed_order(keys: Sequence[K], name_of: Callable[[K], str], numbers: Sequence[str]) -> list[K]:
    """The order the organizer fixed in advance (``numbers``: the names, number 1 first), refused by name
    unless it names everyone in the field exactly once."""
    by_name: dict[str, list[K]] = {}
    for key in keys:
        by_name.setdefault(name_of(key).strip(), []).append(key)
    wanted = [n.strip() for n in numbers]
    problems = []
    if unknown := [n for n in wanted if n not in by_name]:
        problems.append(_("not entered: %(names)s") % {"names": ", ".join(unknown)})
    if missing := [n for n in by_name if n not in wanted]:
        problems.append(_("left out: %(names)s") % {"names": ", ".join(missing)})
    if twice := [n for n, found in by_name.items() if len(found) > 1]:
        problems.append(_("one name for two in the field: %(names)s") % {"names": ", ".join(twice)})
    if problems:
        raise TournamentError(
            "bad_numbers",
            _("The fixed numbers must name everyone in the field exactly once (%(problems)s).")
            % {"problems": "; ".join(problems)},
        )
    return [by_name[n][0] for n in wanted]
