"""Who is here: check-in as arithmetic on the rows, with no service behind it (the draw and the Swiss pairing
read it; :mod:`tournament.registration` changes it).

A tournament asks for check-in before the first round, or before each round of a Swiss stage. An entry
records the round it last checked in for (``checked_in_round``); it is present for round ``n`` when that is
``n`` or more. Those not present are left out of the first draw (withdrawn, "did not check in") or, in a
Swiss, given a zero-point bye for the round (``SwissBye.absent``) and paired again when they check in.
"""

from __future__ import annotations

from django.db.models import QuerySet

from tournament.models import CheckIn, Entry, Round, Stage, Tournament
from tournament.stage_formats import format_of


def check_in_round(tournament: Tournament) -> int | None:
    """The round players check in for now, or None when check-in is off or closed.

    Before the first round: round 1, until the first stage is drawn. Before each round (a format whose players
    sit out a round they are not checked in for, the Swiss system): the next round to pair of the first such
    stage not finished (1 before its draw)."""
    if tournament.check_in == CheckIn.OFF or tournament.status == Tournament.Status.FINISHED:
        return None
    first = Stage.objects.filter(tournament=tournament, order=1).first()
    if first is None:
        return None
    if first.status == Stage.Status.PENDING:
        return 1
    if tournament.check_in != CheckIn.EACH_ROUND:
        return None
    return _next_round_to_pair(tournament)


def _next_round_to_pair(tournament: Tournament) -> int | None:
    for stage in Stage.objects.filter(tournament=tournament).exclude(status=Stage.Status.FINISHED).order_by("order"):
        fmt = format_of(stage)
        if fmt.absences_by_round:
            paired = Round.objects.filter(stage=stage).count()
            return paired + 1 if paired < fmt.planned_rounds(stage) else None
    return None


def present(entry: Entry, number: int) -> bool:
    return entry.checked_in_round >= number


def absent(entries: QuerySet[Entry], number: int) -> QuerySet[Entry]:
    """The entries (not withdrawn) not checked in for round ``number``."""
    return entries.filter(withdrawn=False, checked_in_round__lt=number)
