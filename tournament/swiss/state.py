"""A Swiss tournament's state, in the terms FIDE's pairing rules use (plain Python, no Django).

Scores are kept in tenths of a point on FIDE's scale (win 1, draw ½, loss 0), as TRF files and pairing
programs count them; a tournament scoring 2/1/0 shows twice these numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FIRST = "w"  # the first-player role: black, or the tentative black of a protocol with a swap
SECOND = "b"

# The texts of FIDE's Dutch system (C.04.3) a tournament can be paired by: the one in force since
# February 2026 (the default), and the one approved in 2016-2017 and in force until January 2026.
RULES_2026 = "2026"
RULES_2017 = "2017"
RULES = (RULES_2026, RULES_2017)
TRF_SYSTEM = {
    RULES_2026: "Individual: Swiss-System (FIDE Dutch, 2026 rules)",
    RULES_2017: "Individual: Swiss-System (FIDE Dutch, rules until January 2026)",
}

# TRF result codes: over the board, forfeits, and rounds without an opponent.
PLAYED = frozenset("10=WDL")
WIN_CODES = frozenset("1W+")
DRAW_CODES = frozenset("=D")
BYE_CODES = frozenset("UHFZ")
UNPLAYED = frozenset("+-UHFZ")
# Rounds a player chose not to play (FIDE tie-break regulations: "voluntarily unplayed rounds").
VOLUNTARY = frozenset("-HZ")
RESULT_CODES = PLAYED | UNPLAYED


@dataclass(frozen=True)
class PointSystem:
    """Points, in tenths, for each TRF result; only the pairing-allocated bye (``U``) is configurable here."""

    win: int = 10
    draw: int = 5
    loss: int = 0
    pab: int = 10  # the pairing-allocated bye
    half: int = 5  # a requested half-point bye
    full: int = 10  # a full-point bye given by the organizer
    zero: int = 0  # a zero-point bye or an absence

    def points(self, code: str) -> int:
        if code in WIN_CODES:
            return self.win
        if code in DRAW_CODES:
            return self.draw
        return {"U": self.pab, "H": self.half, "F": self.full, "Z": self.zero}.get(code, self.loss)


@dataclass
class RoundRecord:
    """One player's round: the opponent's pairing number (None without one), the role, the TRF result code
    (``""`` while the game is still being played)."""

    opponent: int | None
    colour: str | None
    result: str

    @property
    def played(self) -> bool:
        return self.opponent is not None and self.result in PLAYED

    @property
    def paired(self) -> bool:
        """Paired against an opponent, whether the game was played or forfeited."""
        return self.opponent is not None


@dataclass
class SwissPlayer:
    number: int  # the pairing number: by rating, then name
    name: str
    rating: int = 0
    key: int = 0  # the tournament entry this player is (0 when read from a file)
    unit: str = ""
    rounds: list[RoundRecord] = field(default_factory=list)

    def score(self, points: PointSystem, upto: int | None = None) -> int:
        return sum(points.points(r.result) for r in self.rounds[:upto] if r.result)

    def colours(self, upto: int | None = None) -> list[str]:
        """Roles in the games played over the board, oldest first."""
        return [r.colour for r in self.rounds[:upto] if r.played and r.colour]

    def had_bye(self, upto: int | None = None) -> bool:
        """A pairing-allocated bye or a win by forfeit: FIDE gives neither twice."""
        return any(r.result in ("U", "+") for r in self.rounds[:upto])


@dataclass
class SwissState:
    """Everything a pairing program needs to pair the next round."""

    name: str
    total_rounds: int
    players: list[SwissPlayer]
    first_colour: str = FIRST  # the role pairing number 1 has in round 1 (FIDE's initial colour, drawn by lot)
    points: PointSystem = field(default_factory=PointSystem)
    forbidden: set[tuple[int, int]] = field(default_factory=set)  # pairs of pairing numbers, smaller first
    accelerations: dict[int, list[int]] = field(default_factory=dict)  # tenths per round, by pairing number
    absent: set[int] = field(default_factory=set)  # not to be paired in the next round (XXZ)
    preassigned: dict[int, str] = field(default_factory=dict)  # a bye already given for the next round: H, Z, F
    rules: str = RULES_2026  # which text of FIDE's Dutch system pairs it (RULES)

    @property
    def rounds_played(self) -> int:
        return min((len(p.rounds) for p in self.players), default=0)

    @property
    def next_round(self) -> int:
        return self.rounds_played + 1

    def by_number(self) -> dict[int, SwissPlayer]:
        return {p.number: p for p in self.players}

    def pairing_score(self, player: SwissPlayer, round_number: int | None = None) -> int:
        """The score a player is paired on before ``round_number`` (default: the next), virtual points included."""
        round_number = round_number or self.next_round
        extra = self.accelerations.get(player.number, [])
        virtual = extra[round_number - 1] if round_number - 1 < len(extra) else 0
        return player.score(self.points, round_number - 1) + virtual


def pairing_numbers(players: list[tuple[int, str, int]]) -> dict[int, int]:
    """Pairing numbers for ``(key, name, rating)`` triples: rating high to low, then name, then key."""
    ordered = sorted(players, key=lambda p: (-p[2], p[1], p[0]))
    return {key: number for number, (key, _name, _rating) in enumerate(ordered, start=1)}


def baku_accelerations(numbers: list[int], group_a: set[int], total_rounds: int) -> dict[int, list[int]]:
    """FIDE C.04.5.1 (Baku acceleration): the accelerated rounds are the first half (rounded up) of the
    tournament; GA players get one virtual point before the first half (rounded up) of those, half a point
    before the rest; nobody else, and nobody after them, gets any."""
    accelerated = (total_rounds + 1) // 2
    full = (accelerated + 1) // 2
    row = [10] * full + [5] * (accelerated - full) + [0] * (total_rounds - accelerated)
    return {n: list(row) for n in numbers if n in group_a}


def baku_group_a(numbers: list[int]) -> set[int]:
    """GA: the first half of the players by pairing number, rounded up to an even number (2 × ⌈n/4⌉)."""
    size = 2 * -(-len(numbers) // 4)
    return set(sorted(numbers)[:size])
