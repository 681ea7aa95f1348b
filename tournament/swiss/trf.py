"""FIDE's Tournament Report File (TRF16) with the extensions pairing programs read (JaVaFo's and
bbpPairings' ``XX`` lines): write a :class:`SwissState` and read one back.

Player lines (``001``) are fixed columns, counted in characters: pairing number 5–8, name 15–47,
rating 49–52, points 81–84, rank 86–89, then one block of ten per round from column 92
(``oooo c r``: the opponent's pairing number, ``w``/``b``, the result code). Extensions: ``XXR`` rounds,
``XXC white1``/``black1`` the initial colour, ``XXS`` non-standard points (JaVaFo's), ``BBW``/``BBD``/
``BBL``/``BBZ``/``BBF``/``BBU`` the same for bbpPairings (which reads no ``XXS``: a half- or zero-point
pairing-allocated bye written only as ``XXS`` is scored as a win there), ``XXA`` virtual points of an
accelerated pairing, ``XXP`` a prohibited pair, ``XXZ`` players not paired in the next round.

Lines end with CR (as TRF-16 and TRF-2026 define, and bbpPairings writes), LF or CR LF: all are read. The
pairing numbers are the file's own; a program given this file pairs the players by them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tournament.swiss.state import (
    FIRST,
    RESULT_CODES,
    RULES_2017,
    RULES_2026,
    SECOND,
    TRF_SYSTEM,
    PointSystem,
    RoundRecord,
    SwissPlayer,
    SwissState,
)

ROUNDS_AT = 91
BLOCK = 10


class TrfError(ValueError):
    """A TRF that cannot be read: ``line`` is its 1-based line number (0: the file as a whole)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.message = message
        self.line = line


def _tenths(value: int) -> str:
    return f"{value // 10}.{value % 10}"


def _round_block(record: RoundRecord) -> str:
    opponent = "0000" if record.opponent is None else f"{record.opponent:4d}"
    colour = record.colour or "-"
    return f"  {opponent} {colour} {record.result or ' '}"


def round_block(record: RoundRecord | None) -> str:
    """One round's ten columns; None: a round the player sat out of a team event (left blank)."""
    return " " * BLOCK if record is None else _round_block(record)


def player_line(
    player: SwissPlayer,
    points: PointSystem,
    rank: int,
    extra: str = "",
    ascii_names: bool = False,
    blocks: str | None = None,
) -> str:
    """A ``001`` line; ``blocks`` replaces the rounds' columns (a team event's rounds, some left blank)."""
    rating = f"{player.rating:4d}" if player.rating else "    "
    total = player.score(points) + (points.points(extra) if extra else 0)
    name = player.name[:33]
    if ascii_names and not name.isascii():
        name = f"Player {player.number}"  # a program that counts columns in bytes reads every field right
    head = f"001 {player.number:4d}      {name:<33} {rating} {'':3} {'':11} {'':10} {_tenths(total):>4} {rank:4d}"
    if blocks is not None:
        return (head + blocks).rstrip()
    blocks = "".join(_round_block(r) for r in player.rounds)
    if extra:
        blocks += _round_block(RoundRecord(None, None, extra))
    return head + blocks


def write(
    state: SwissState,
    *,
    ranks: dict[int, int] | None = None,
    meta: dict[str, str] | None = None,
    ascii_names: bool = False,
) -> str:
    """The state as TRF text; requested byes for the next round are written as that round's results.

    Columns are counted in characters, as the FIDE layout and JaVaFo count them. ``ascii_names``: names
    with other characters (Chinese names) become ``Player N``, for programs that count columns in bytes
    (bbpPairings), where a UTF-8 name would shift every later field."""
    meta = meta or {}
    lines = [f"012 {state.name[:200]}"]
    for code, key in (("022", "city"), ("042", "start"), ("052", "end"), ("102", "arbiter")):
        if meta.get(key):
            lines.append(f"{code} {meta[key]}")
    lines += [
        f"062 {len(state.players)}",
        f"092 {TRF_SYSTEM[state.rules]}",
        f"XXR {state.total_rounds}",
        f"XXC {'white1' if state.first_colour == FIRST else 'black1'}",
    ]
    lines += point_lines(state.points)
    for number in sorted(state.accelerations):
        values = " ".join(f"{_tenths(v):>4}" for v in state.accelerations[number])
        lines.append(f"XXA {number:4d} {values}")
    lines += [f"XXP {a} {b}" for a, b in sorted(state.forbidden)]
    if state.absent:
        lines.append("XXZ " + " ".join(str(n) for n in sorted(state.absent)))
    ranks = ranks or {}
    for player in sorted(state.players, key=lambda p: p.number):
        lines.append(
            player_line(
                player,
                state.points,
                ranks.get(player.number, player.number),
                # not paired next: a bye asked for, or (withdrawn) a zero for the round, as JaVaFo and
                # bbpPairings read a result already entered for the round they pair; XXZ says it too
                state.preassigned.get(player.number, "Z" if player.number in state.absent else ""),
                ascii_names=ascii_names,
            )
        )
    return "\n".join(lines) + "\n"


# JaVaFo's XXS codes for each field of the point system, and bbpPairings' BBx line for it (None: it has
# none — a requested bye is scored there as a draw or a win).
_XXS = {
    "win": ("WW", "BW", "FW"),
    "draw": ("WD", "BD"),
    "loss": ("WL", "BL", "FL"),
    "pab": ("PAB",),
    "half": ("HPB",),
    "full": ("FPB",),
    "zero": ("ZPB",),
}
_BB = {"win": "BBW", "draw": "BBD", "loss": "BBL", "zero": "BBZ", "pab": "BBU"}


def point_lines(points: PointSystem) -> list[str]:
    """The ``XXS`` line and the ``BBx`` lines for every point that is not FIDE's standard one (none if all
    are). A forfeit loss scores as a loss here, so ``BBF`` goes with ``BBL``; ``BBU`` is written whenever
    the bye's points are not the standard 1, since bbpPairings takes the win's points for it otherwise."""
    standard = PointSystem()
    changed = [f for f in _XXS if getattr(points, f) != getattr(standard, f)]
    if not changed:
        return []
    lines = ["XXS " + " ".join(f"{code}={_tenths(getattr(points, f))}" for f in changed for code in _XXS[f])]
    for f in changed:
        if f in _BB:
            lines.append(f"{_BB[f]} {_tenths(getattr(points, f)):>4}")
    if "loss" in changed:
        lines.append(f"BBF {_tenths(points.loss):>4}")
    if "pab" not in changed:
        lines.append(f"BBU {_tenths(points.pab):>4}")
    return lines


_READ_XXS = {code: f for f, codes in _XXS.items() for code in codes} | {"W": "win", "D": "draw", "L": "loss"}
_READ_BB = {code: f for f, code in _BB.items()} | {"BBF": "loss"}


def as_file(text: str) -> str:
    """TRF text as a file: each line ended by CR, as TRF-16 and TRF-2026 define it, followed by LF so that
    every editor and mail program shows the lines too (programs that split on CR see an empty line, which
    the format ignores)."""
    return re.sub(r"\r\n|\r|\n", "\r\n", text)


def _int(text: str, what: str, line: int) -> int:
    text = text.strip()
    if not text:
        return 0
    try:
        return int(text)
    except ValueError:
        raise TrfError(f"{what} {text!r} is not a number", line) from None


def _decimal_tenths(text: str, what: str, line: int) -> int:
    text = text.strip()
    try:
        whole, _, frac = text.partition(".")
        return int(whole or 0) * 10 + int((frac or "0")[:1])
    except ValueError:
        raise TrfError(f"{what} {text!r} is not a number", line) from None


@dataclass
class _Reading:
    """What the lines of a TRF file have said so far."""

    name: str = ""
    total_rounds: int = 0
    first: str = FIRST
    rules: str = RULES_2026
    points: PointSystem = field(default_factory=PointSystem)
    accelerations: dict[int, list[int]] = field(default_factory=dict)
    forbidden: set[tuple[int, int]] = field(default_factory=set)
    absent: set[int] = field(default_factory=set)
    players: list[SwissPlayer] = field(default_factory=list)
    bye_points_given: bool = False

    def colours(self, rest: str) -> None:
        for word in rest.split():
            if word in ("white1", "black1"):
                self.first = FIRST if word == "white1" else SECOND

    def javafo_points(self, rest: str, number: int) -> None:
        values = {}
        for part in rest.split():
            key, _, value = part.partition("=")
            if key in _READ_XXS:
                values[_READ_XXS[key]] = _decimal_tenths(value, "points", number)
        self.points = PointSystem(**{**self.points.__dict__, **values})

    def bbp_points(self, code: str, rest: str, number: int) -> None:
        field_name = _READ_BB[code]
        value = _decimal_tenths(rest, "points", number)
        changes = {field_name: value}
        if field_name == "pab":
            self.bye_points_given = True
        elif field_name == "win" and not self.bye_points_given:
            changes["pab"] = value  # bbpPairings: the bye scores a win unless BBU says otherwise
        self.points = PointSystem(**{**self.points.__dict__, **changes})

    def acceleration(self, rest: str, number: int) -> None:
        parts = rest.split()
        if parts:
            self.accelerations[_int(parts[0], "a pairing number", number)] = [
                _decimal_tenths(p, "virtual points", number) for p in parts[1:]
            ]

    def prohibited(self, rest: str, number: int) -> None:
        pair = [_int(p, "a pairing number", number) for p in rest.split()]
        if len(pair) != 2 or pair[0] == pair[1]:
            raise TrfError("a prohibited pair names two different players", number)
        self.forbidden.add((min(pair), max(pair)))

    def line(self, line: str, number: int) -> None:
        code, rest = line[:3], line[4:]
        if code == "012":
            self.name = rest.strip()
        elif code == "092":
            self.rules = RULES_2017 if "until" in rest or "2017" in rest else RULES_2026
        elif code == "XXR":
            self.total_rounds = _int(rest, "the number of rounds", number)
        elif code == "XXC":
            self.colours(rest)
        elif code == "XXS":
            self.javafo_points(rest, number)
        elif code in _READ_BB:
            self.bbp_points(code, rest, number)
        elif code == "XXA":
            self.acceleration(rest, number)
        elif code == "XXP":
            self.prohibited(rest, number)
        elif code == "XXZ":
            self.absent |= {_int(p, "a pairing number", number) for p in rest.split()}
        elif code == "001":
            self.players.append(_player(line, number))


def read(text: str) -> SwissState:
    """A TRF file as a state. Rounds of one player that run past the others' are requested byes for the
    next round; unknown lines are skipped, malformed player lines are refused with their line number."""
    reading = _Reading()
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        reading.line(line, number)
    players = reading.players
    if not players:
        raise TrfError("no player lines (001)")
    if len({p.number for p in players}) != len(players):
        raise TrfError("a pairing number is used twice")
    preassigned = _requested_byes(players)
    for number in reading.absent:  # a withdrawn player's zero for the next round is the absence, not a bye asked
        if preassigned.get(number) == "Z":
            del preassigned[number]
    return SwissState(
        name=reading.name,
        total_rounds=reading.total_rounds or min(len(p.rounds) for p in players) + 1,
        players=sorted(players, key=lambda p: p.number),
        first_colour=reading.first,
        points=reading.points,
        forbidden=reading.forbidden,
        accelerations=reading.accelerations,
        absent=reading.absent,
        preassigned=preassigned,
        rules=reading.rules,
    )


def _requested_byes(players: list[SwissPlayer]) -> dict[int, str]:
    """Both sides of every game checked; a round one player has beyond the others' is a bye they asked for
    (H, Z or F), taken off their record and returned."""
    played = min(len(p.rounds) for p in players)
    preassigned: dict[int, str] = {}
    by_number = {p.number: p for p in players}
    for player in players:
        for index, record in enumerate(player.rounds):
            if record.opponent is None:
                continue
            if record.opponent not in by_number:
                raise TrfError(f"player {player.number} meets {record.opponent}, who is not in the file")
            _check_both_sides(player, index, record, by_number[record.opponent])
        if len(player.rounds) > played:
            extra = player.rounds[played:]
            if len(extra) > 1 or extra[0].opponent is not None or extra[0].result not in ("H", "Z", "F"):
                raise TrfError(f"player {player.number} has rounds the others have not played")
            preassigned[player.number] = extra[0].result
            del player.rounds[played:]
    return preassigned


# the result each side of one game must show: a win against a loss, a draw against a draw, forfeits
OTHER_SIDE: dict[str, set[str]] = {
    "1": {"0"},
    "0": {"1"},
    "=": {"="},
    "W": {"L"},
    "L": {"W"},
    "D": {"D"},
    "+": {"-"},
    "-": {"+", "-"},  # both sides may have forfeited
    "": {""},  # a game still being played
}


def _check_both_sides(player: SwissPlayer, index: int, record: RoundRecord, opponent: SwissPlayer) -> None:
    """Round ``index + 1`` as the opponent's line has it must be the same game seen from the other side."""
    theirs = opponent.rounds[index] if index < len(opponent.rounds) else None
    agrees = (
        theirs is not None
        and theirs.opponent == player.number
        and theirs.colour is not None
        and theirs.colour != record.colour
        and theirs.result in OTHER_SIDE.get(record.result, set())
    )
    if not agrees:
        raise TrfError(
            f"round {index + 1}: player {player.number} and player {opponent.number} do not record the same game"
        )


def _player(line: str, number: int) -> SwissPlayer:
    pairing_number = _int(line[4:8], "the pairing number", number)
    if pairing_number <= 0:
        raise TrfError("a player line without a pairing number", number)
    player = SwissPlayer(
        number=pairing_number,
        name=line[14:47].strip(),
        rating=_int(line[48:52], "the rating", number),
    )
    at = ROUNDS_AT
    while at < len(line) and line[at:].strip():
        block = line[at : at + 8].ljust(8)
        opponent_text, colour, result = block[0:4], block[5], block[7]
        opponent = _int(opponent_text, "an opponent's number", number) if opponent_text.strip() else 0
        if result not in RESULT_CODES and result != " ":
            raise TrfError(f"unknown result {result!r} in column {at + 8}", number)
        role = colour if colour in (FIRST, SECOND) else None
        if opponent and role is None:
            raise TrfError(f"a game without a colour in column {at + 6}", number)
        player.rounds.append(RoundRecord(opponent or None, role, result.strip()))
        at += BLOCK
    return player
