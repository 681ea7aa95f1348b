"""What a round-by-round format decides for its next round, and the organizer's changes to a draft: pure,
the services write them (:mod:`tournament.services.rounds`, and a format's own package for its extras)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.errors import TournamentError

Rows = list[list[int | None]]  # boards as [first entry, second entry or None for a bye]


@dataclass(frozen=True)
class RoundPlan:
    """A round as the format pairs it: the boards in order, by whom (``engine``), why each board is paired so,
    and what the pairing had to relax; the round's number if the format counts it (a Swiss state's next round),
    and for a plan made outside the lock what it was made from (``StageFormat.plan_fingerprint``)."""

    boards: Rows
    engine: str
    why: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    number: int | None = None
    fingerprint: str = ""


def edited(rows: Rows, action: str, first: int, second: int | None) -> Rows:
    """The draft's boards after ``swap`` (two players on different boards, or one with the bye) or ``flip``
    (the roles on ``first``'s board); refused with a TournamentError when the change makes no sense."""
    rows = [list(pair) for pair in rows]
    where = {e: (i, j) for i, pair in enumerate(rows) for j, e in enumerate(pair) if e is not None}
    if first not in where:
        raise TournamentError("not_paired", _("That player is not paired in this round."))
    if action == "flip":
        i, _j = where[first]
        if rows[i][1] is None:
            raise TournamentError("bye_board", _("The bye has no roles to flip."))
        rows[i] = [rows[i][1], rows[i][0]]
    elif action == "swap":
        if second is None or second not in where or second == first:
            raise TournamentError("not_paired", _("Name two different players paired in this round."))
        (i, j), (k, m) = where[first], where[second]
        if i == k:
            raise TournamentError("same_board", _("The two players are on the same board; flip the roles instead."))
        rows[i][j], rows[k][m] = second, first
    else:
        raise TournamentError("bad_action", _("The change is swap or flip."))
    return rows


def edit_record(
    actor: Any, action: str, first: int, second: int | None, reason: str, warnings: list[dict[str, Any]]
) -> dict[str, Any]:
    """One manual change as a draft round keeps it (and its audit shows it): when, by whom, what, why, and the
    warnings it raised."""
    return {
        "at": timezone.now().isoformat(),
        "actor": getattr(actor, "username", "") or "",
        "action": action,
        "entries": [first] + ([second] if second is not None else []),
        "reason": reason[:500],
        "warnings": warnings,
    }
