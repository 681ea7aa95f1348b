"""A team stage's settings (``Stage.options``): what they mean, their defaults, and the check that refuses a
wrong one by name in the user's language."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from tournament.errors import TournamentError
from tournament.lots import valid_numbers
from tournament.models import Stage
from tournament.ranking import COMPLETE_TIES
from tournament.swiss.state import PointSystem
from tournament.teams import scoring

SYSTEMS = ("round_robin", "double_round_robin", "swiss")
# Who has black on board 1 of a team match: 猜先 between the captains (recorded by the organizer, or drawn by
# lot with a recorded seed when the boards are made without one), or the team named first by the pairing.
FIRST_COLOURS = ("toss", "pairing")
# How the teams' pairing order (a round robin's numbers) is made: by mean rating, by a recorded lot, or fixed by
# the organizer who published the schedule in advance (``numbers``: the teams' names, number 1 first).
ORDERS = ("rating", "lot", "fixed")


@dataclass(frozen=True)
class TeamOptions:
    """A team stage's settings (``Stage.options``)."""

    system: str = "round_robin"  # round_robin, double_round_robin or swiss
    boards: int = 4
    reserves: int = 2
    rounds: int = 7  # a Swiss of teams
    match_points: tuple[float, float, float] = (2, 1, 0)  # as the regulations give them: 1, 0.5, 0 is the RIF's
    bye: str = "won_drawn"  # what a team that sits out a round scores (scoring.BYES)
    primary: str = "game_points"  # what ranks first: game points (the RIF's) or match points
    tiebreaks: tuple[str, ...] = scoring.RIF_ORDER
    lineup_minutes: int = 15  # from the pairing to the lineup deadline; 0: the standing order at once
    first_colour: str = "toss"  # board 1's black: 猜先 per team match, or the pairing's first-named team
    team_order: tuple[int, ...] = ()  # the teams' pairing order, recorded at the draw
    order: str = "rating"  # how that order is made: by mean rating, or by lot (a round robin's numbers)
    apart_last: int = 0  # a round robin by lot: teams of one country do not meet in the last N rounds
    numbers: tuple[str, ...] = ()  # order "fixed": the teams' names in the order of their numbers
    complete_tie: str = "share"  # teams level on everything: share the place, an extra game, or a lot
    tie_decisions: tuple[tuple[int, ...], ...] = ()  # extra games' outcomes: tied teams, best first
    precise_places: tuple[int, ...] = ()  # with "share": places an extra game decides (the medals: 1, 2, 3)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, stage: Stage) -> TeamOptions:
        o = stage.options
        return cls(
            system=str(o.get("system", cls.system)),
            boards=int(o.get("boards", cls.boards)),
            reserves=int(o.get("reserves", cls.reserves)),
            rounds=int(o.get("rounds", cls.rounds)),
            match_points=tuple(o.get("match_points", cls.match_points)),
            bye=str(o.get("bye", cls.bye)),
            primary=str(o.get("primary", cls.primary)),
            tiebreaks=tuple(o.get("tiebreaks", cls.tiebreaks)),
            lineup_minutes=int(o.get("lineup_minutes", cls.lineup_minutes)),
            first_colour=str(o.get("first_colour", cls.first_colour)),
            team_order=tuple(o.get("team_order", ())),
            order=str(o.get("order", cls.order)),
            apart_last=int(o.get("apart_last", cls.apart_last)),
            numbers=tuple(str(n) for n in o.get("numbers", ())),
            complete_tie=str(o.get("complete_tie", cls.complete_tie)),
            tie_decisions=tuple(tuple(int(t) for t in d) for d in o.get("tie_decisions", ())),
            precise_places=tuple(int(p) for p in o.get("precise_places", ())),
        )

    @property
    def points(self) -> scoring.MatchPoints:
        return scoring.MatchPoints.of(*self.match_points)

    @property
    def pairing_points(self) -> PointSystem:
        """The team Swiss pairs on match points: a won match scores as a player's win, a bye as the event
        scores it (tenths, as the pairing engine counts)."""
        win, draw, loss = (round(10 * p) for p in self.match_points)
        pab = {"drawn": draw, "zero": 0}.get(self.bye, win)
        return PointSystem(win=win, draw=draw, loss=loss, pab=pab, half=draw, full=win, zero=loss)


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """A team stage's options checked; a wrong value is refused in the user's language."""

    def bad(key: str) -> TournamentError:
        return TournamentError("bad_options", _("The team option %(key)s has a wrong value.") % {"key": key})

    known = {
        "system",
        "boards",
        "reserves",
        "rounds",
        "match_points",
        "primary",
        "tiebreaks",
        "lineup_minutes",
        "first_colour",
        "complete_tie",
        "bye",
        "order",
        "apart_last",
        "numbers",
        "precise_places",
    }
    for key in options:
        if key not in known:
            raise TournamentError("bad_options", _("Unknown team option %(key)s.") % {"key": key})
    ranges = {
        "boards": (1, 12),
        "reserves": (0, 6),
        "rounds": (1, 30),
        "lineup_minutes": (0, 24 * 60),
        "apart_last": (0, 30),
    }
    for key, (low, high) in ranges.items():
        if key in options and (type(options[key]) is not int or not low <= options[key] <= high):
            raise bad(key)
    choices = {
        "system": SYSTEMS,
        "primary": scoring.PRIMARY,
        "first_colour": FIRST_COLOURS,
        "complete_tie": COMPLETE_TIES,
        "bye": scoring.BYES,
        "order": ORDERS,
    }
    for key, allowed_values in choices.items():
        if key in options and options[key] not in allowed_values:
            raise bad(key)
    if options.get("apart_last") and (options.get("order") != "lot" or options.get("system") == "swiss"):
        raise bad("apart_last")  # compatriots are kept apart by the lot of a round robin's numbers
    if ("numbers" in options) != (options.get("order") == "fixed"):
        raise bad("numbers")  # a fixed order is given by its numbers, and numbers only make a fixed order
    if "numbers" in options and not valid_numbers(options["numbers"]):
        raise bad("numbers")
    precise = options.get("precise_places", [])
    if not isinstance(precise, list | tuple) or not all(type(p) is int and 1 <= p <= 1000 for p in precise):
        raise bad("precise_places")
    points = options.get("match_points", [2, 1, 0])
    if not (isinstance(points, list | tuple) and len(points) == 3 and all(_half_points(p) for p in points)):
        raise bad("match_points")
    if not points[0] > points[1] >= points[2]:
        raise bad("match_points")
    names = options.get("tiebreaks", list(scoring.RIF_ORDER))
    allowed = scoring.team_tiebreaks()
    if not isinstance(names, list | tuple) or len(set(names)) != len(names) or any(n not in allowed for n in names):
        raise bad("tiebreaks")
    return dict(options)


def _half_points(value: Any) -> bool:
    """A match point value the regulations can give: a number from 0 to 100 in whole or half points."""
    return type(value) in (int, float) and 0 <= value <= 100 and float(2 * value).is_integer()
