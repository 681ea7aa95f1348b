"""Game records: the plain format and RenjuNet-style ``.rif``, read, written and checked.

The plain format is a PGN-like header of ``[Key "value"]`` lines and the
game's actions: stones as points, ``pass``, and the opening protocol's other
actions in braces (the swap decisions, Yamaguchi's declaration, the
fifth-move offers and the choice among them, Swap2's colour choice)::

    [Event "校际赛"]
    [Round "1.2.1"]
    [Black "Li Lei (No. 1 Middle School)"]
    [White "Han Meimei"]
    [Date "2026-11-30"]
    [Rule "renju"]
    [Protocol "rif"]
    [Opening "3D 疏星 Sosei"]
    [TimeControl "quick"]
    [Times "0.0 2.1 3.5 1.2 …"]
    [Result "1-0"]
    [Reason "five"]

    h8 h9 j10 {no-swap} h6 {offer g8 j11} g8 {chosen} k11 …

``Times`` gives the seconds each action took, ``-`` where unknown. A record
of stones only (no braces) is read as before: the stones as settled.

The ``.rif`` export follows the XML of the RenjuNet database as far as it
is publicly described (a ``<database>`` with ``<players>``, ``<rules>``,
``<openings>`` and ``<games>``; each ``<game>`` carries its players,
``bresult`` (1 black win, 0.5 draw, 0 white win), opening and rule as
attributes and its stones in a ``<move>`` element). We add ``round``,
``btime``/``wtime`` (seconds used by the black and the white stones),
``swap`` (the swap decisions in order, 1 swapped, 0 not) and ``alt`` (the
fifth-move offers), and, for a complete round trip, ``protocol``,
``options``, ``reason``, ``event``, ``times`` and an ``<actions>`` element with the
plain format's action list. No formal schema is published, so readers may
want more attributes than we write.

Every error is a :class:`RecordError` with a code (see :mod:`engine.errors`);
``move_number`` names the move (0 for the header).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

from engine.board import Board, IllegalMoveError
from engine.errors import EngineError
from engine.notation import Color, InvalidMoveError, Point, parse_moves
from engine.openings import identify
from engine.protocols import Action, Kind, OpeningState, Options, ProtocolError, apply, start
from engine.protocols import Player as Seat
from engine.rules import Outcome, Termination, find_rules

RESULT_CODES = {"black": "1-0", "white": "0-1", "draw": "1/2-1/2"}
RIF_RESULTS = {"black": "1", "white": "0", "draw": "0.5"}
TAG = re.compile(r'^\[(?P<key>[A-Za-z][A-Za-z0-9_]*)\s+"(?P<value>(?:[^"\\]|\\.)*)"\]$')


class RecordError(EngineError):
    """A record that cannot stand: ``move_number`` names the move (0 for the header), the code the fault."""

    @property
    def move_number(self) -> int:
        return int(self.params.get("n", 0))


def _located(exc: EngineError, code: str, prefix: str, **params: Any) -> RecordError:
    return RecordError(f"{prefix}: {exc}", code, inner=exc, **params)


@dataclass
class Foul:
    move_number: int
    point: Point
    kind: str


@dataclass
class RecordReplay:
    """A record replayed move by move: the board, the fouls, and how it ended."""

    board: Board
    fouls: list[Foul] = field(default_factory=list)
    end: tuple[int, Outcome] | None = None  # (move number, five / full board / two passes)


def replay_record(text: str, rules_name: str) -> RecordReplay:
    """Replay a move list; illegal moves and moves after a five are refused."""
    rules = find_rules(rules_name)
    try:
        moves = parse_moves(text)
    except InvalidMoveError as exc:
        raise RecordError(str(exc), exc.code, **exc.params) from None
    replay = RecordReplay(Board())
    board = replay.board
    for number, move in enumerate(moves, start=1):
        if replay.end is not None:
            ended_at, outcome = replay.end
            raise RecordError(
                f"move {number} is played after the game ended at move {ended_at} ({outcome})",
                "after_end",
                n=number,
                m=ended_at,
                termination=outcome.termination.value,
                winner=str(outcome.winner) if outcome.winner else "",
            )
        try:
            board.push(move)
        except IllegalMoveError as exc:
            raise _located(exc, "at_move", f"move {number}", n=number) from None
        now = rules.outcome(board)  # a five counts before a foul made with it
        if now is not None and now.termination is Termination.FORBIDDEN:
            assert move.point is not None and now.reason is not None
            replay.fouls.append(Foul(number, board.to_point(move.point), now.reason.value))
        elif now is not None:
            replay.end = (number, now)
    return replay


def check_record(text: str, rules_name: str, forbidden_mode: str, result: str, reason: str) -> RecordReplay:
    """Refuse a record that contradicts the reported ``result`` (black, white, draw) and ``reason``.

    Under ``auto`` the first foul ends the game as a white win; under
    ``block`` no foul can be on the record; under ``claim`` fouls stand
    unless claimed, so a ``forbidden`` result needs one on the record.
    """
    replay = replay_record(text, rules_name)
    last = len(replay.board.move_stack)
    first_foul = replay.fouls[0] if replay.fouls else None
    if first_foul is not None and forbidden_mode != "claim":
        decided = result == "white" and reason == "forbidden"
        if forbidden_mode == "block" or not decided or first_foul.move_number != last:
            raise RecordError(
                f"move {first_foul.move_number} ({first_foul.point}) is a forbidden {first_foul.kind}: "
                "the game ends there as a white win",
                "foul_on_record",
                n=first_foul.move_number,
                point=str(first_foul.point),
                kind=first_foul.kind,
            )
    if replay.end is not None:
        number, outcome = replay.end
        if outcome.termination is Termination.FIVE:
            if result != str(outcome.winner) or reason != "five":
                raise RecordError(
                    f"the record ends with a five by {outcome.winner} at move {number}, which the report does not say",
                    "unreported_five",
                    n=number,
                    color=str(outcome.winner),
                )
        elif result != "draw":
            raise RecordError(f"the record ends in a draw at move {number}", "unreported_draw", n=number)
    elif reason == "five":
        raise RecordError("the record has no five", "no_five", n=last)
    if reason == "forbidden" and first_foul is None:
        raise RecordError("the record has no forbidden move by black", "no_foul", n=last)
    return replay


def opening_name(stones: list[Point]) -> str:
    """``3D 疏星 Sosei`` when the first three stones form a standard opening, else empty."""
    if len(stones) < 3:
        return ""
    found = identify(stones[:3], include_52=True)
    return found.opening.summary() if found else ""


# -- the plain format ----------------------------------------------------------


@dataclass
class PlainRecord:
    header: dict[str, str]
    moves: str


def format_plain(header: dict[str, str], moves: str) -> str:
    lines = [f'[{key} "{_escape(value)}"]' for key, value in header.items() if value != ""]
    return "\n".join(lines) + "\n\n" + moves.strip() + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def parse_plain(text: str) -> PlainRecord:
    """Read the plain format back; the header is optional, the moves follow it."""
    header: dict[str, str] = {}
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if body:
                message = f"line {number}: header lines come before the moves"
                raise RecordError(message, "header_after_moves", line=number)
            match = TAG.match(line)
            if match is None:
                raise RecordError(f'line {number}: a header line reads [Key "value"]', "bad_header", line=number)
            header[match["key"]] = re.sub(r"\\(.)", r"\1", match["value"])
        else:
            body.append(line)
    return PlainRecord(header, " ".join(body))


ACTION_TOKEN = re.compile(r"\{(?P<action>[^{}]*)\}|(?P<word>[^\s{}]+)|(?P<bad>[{}])")


CHOSEN = "{chosen}"  # the note after a stone chosen among the fifth-move offers


def format_actions(actions: list[str]) -> str:
    """A record's actions in the plain format: ``h8 h9 j10 {swap} … pass …``.

    Every stone is in the move list, as in PGN: the fifth stone chosen among the offers is written as a
    stone followed by the note ``{chosen}`` (``{offer g8 j11} g8 {chosen}``), so a reader that skips the
    notes still has every stone."""
    tokens = []
    for text in actions:
        kind, _space, rest = text.partition(" ")
        if kind == "choose":
            tokens += [rest, CHOSEN]
        else:
            tokens.append(rest if kind == "place" else "pass" if kind == "pass" else "{" + text + "}")
    return " ".join(tokens)


def parse_actions(body: str) -> list[str]:
    """The actions of a plain record body (see :func:`format_actions`), as ``place h8``, ``swap`` …
    (``g8 {chosen}`` and the older ``{choose g8}`` both read as ``choose g8``)."""
    actions: list[str] = []
    for match in ACTION_TOKEN.finditer(body):
        if match["bad"]:
            raise RecordError("the moves have an unmatched brace", "unmatched_brace")
        if match["action"] is not None:
            text = " ".join(match["action"].split())
            if text.lower() == CHOSEN[1:-1]:
                if not actions or not actions[-1].startswith("place "):
                    raise RecordError("{chosen} follows the stone that was chosen", "chosen_without_stone")
                actions[-1] = "choose " + actions[-1].removeprefix("place ")
            else:
                actions.append(text)
        else:
            word = match["word"]
            actions.append("pass" if word.lower() == "pass" else f"place {word}")
    return actions


def format_times(times: list[int | None]) -> str:
    if all(t is None for t in times):
        return ""
    return " ".join("-" if t is None else f"{t / 1000:.1f}" for t in times)


def parse_times(text: str, count: int) -> list[int | None]:
    """``Times`` back to milliseconds per action (missing entries unknown)."""
    values: list[int | None] = []
    for word in text.split():
        try:
            values.append(None if word == "-" else round(float(word) * 1000))
        except ValueError:
            raise RecordError("Times lists seconds per action, like 2.5, or - where unknown", "bad_times") from None
    return (values + [None] * count)[:count]


@dataclass
class ReplayedAction:
    seat: Seat
    text: str
    color: Color | None  # the colour the actor held
    move_number: int | None  # the stone it put on the board, if any


@dataclass
class ActionReplay:
    actions: list[ReplayedAction]
    opening: OpeningState
    stones: str  # every stone in board order, for the rules check


def replay_actions(protocol: str, options: Options, actions: list[str]) -> ActionReplay:
    """Replay a record's actions through the opening protocol, then alternate on the board.

    Who acted is not written in the record: the protocol says who acts at each step.
    """
    opening = start(protocol, options)
    board: Board | None = None
    done: list[ReplayedAction] = []
    for n, text in enumerate(actions, start=1):
        try:
            action = Action.parse(text)
            if not opening.finished:
                seat, color = opening.actor, opening.color_of(opening.actor)
                after = apply(opening, seat, action)
                number = len(after.moves) if len(after.moves) > len(opening.moves) else None
                opening = after
            else:
                board = board or Board.replay([str(m) for m in opening.moves])
                if action.kind not in (Kind.PLACE, Kind.PASS):
                    raise ProtocolError("the opening is over; play continues under the rule set", "opening_over")
                color, number = board.turn, board.ply + 1
                seat = opening.holder(color)
                board.push("pass" if action.kind is Kind.PASS else action.points[0])
        except (ProtocolError, IllegalMoveError, InvalidMoveError) as exc:
            raise _located(exc, "at_action", f"action {n} ({text})", n=n, action=text) from None
        done.append(ReplayedAction(seat, str(action), color, number))
    stones = board.move_stack if board is not None else opening.moves
    return ActionReplay(done, opening, " ".join(str(m) for m in stones))


def result_from_code(code: str) -> str:
    """``1-0`` → ``black``, ``0-1`` → ``white``, ``1/2-1/2`` → ``draw``, ``*`` or nothing → ``""``."""
    for result, text in RESULT_CODES.items():
        if code == text:
            return result
    if code in ("", "*"):
        return ""
    raise RecordError(f"unknown result {code}; use 1-0, 0-1, 1/2-1/2 or *", "unknown_result", code=code)


# -- RenjuNet .rif ---------------------------------------------------------------


@dataclass
class RifGame:
    number: int
    black: str
    white: str
    result: str  # black, white, draw or ""
    opening: str
    rule: str
    date: str
    moves: str
    extra: dict[str, str] = field(default_factory=dict)  # round, btime, wtime, swap, alt, protocol, …
    actions: str = ""


RIF_EXTRA = ("round", "btime", "wtime", "swap", "alt", "protocol", "options", "reason", "event", "times", "timecontrol")


@dataclass
class RifTournament:
    """The tournament the games of a ``.rif`` export belong to: its rounds, and the rounds its players had
    no game in (byes: ``(round, player, kind)``, kind a TRF code: U, H, F, Z)."""

    name: str
    city: str = ""
    start: str = ""
    end: str = ""
    rule: str = ""
    rounds: int = 0
    byes: list[tuple[int, str, str]] = field(default_factory=list)
    rated: bool = False


def format_rif(
    games: list[RifGame],
    generated: str,
    tournament: RifTournament | None = None,
    people: dict[str, dict[str, str]] | None = None,
) -> str:
    """RenjuNet-style XML for a list of games, and the tournament they were played in if given.

    ``people``: by player name, ``native_name``, ``country`` and ``city``, written as RenjuNet writes
    them (countries and cities listed once, players pointing at them)."""
    writer = _RifWriter(generated, people or {})
    if tournament is not None:
        writer.tournament(tournament)
    games_el = ElementTree.SubElement(writer.root, "games")
    for game in games:
        writer.game(games_el, game, in_tournament=tournament is not None)
    ElementTree.indent(writer.root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(writer.root, encoding="unicode") + "\n"


class _RifWriter:
    """One RenjuNet database being written: its lists, and the ids given to what they hold."""

    def __init__(self, generated: str, people: dict[str, dict[str, str]]) -> None:
        self.root = root = ElementTree.Element("database", version="1.0", datetime=generated)
        self.people = people
        self.places: dict[str, ElementTree.Element] = {}
        if any(p.get("country") or p.get("city") for p in people.values()):
            self.places["country"] = ElementTree.SubElement(root, "countries")
            self.places["city"] = ElementTree.SubElement(root, "cities")
        self.players = ElementTree.SubElement(root, "players")
        self.rules = ElementTree.SubElement(root, "rules")
        self.openings = ElementTree.SubElement(root, "openings")
        self.ids: dict[tuple[str, str], int] = {}

    def ref(self, kind: str, name: str, parent: ElementTree.Element, tag: str) -> str:
        """The id of ``name`` in its list, listed on first use."""
        key = (kind, name)
        if key not in self.ids:
            self.ids[key] = sum(1 for k in self.ids if k[0] == kind) + 1
            element = ElementTree.SubElement(parent, tag, id=str(self.ids[key]), name=name)
            if kind == "rule":  # RenjuNet's rule categories: 1 renju, 2 gomoku
                element.set("category", "1" if name.startswith("renju") else "2")
            if kind == "player" and name in self.people:
                self._person(element, self.people[name])
        return str(self.ids[key])

    def _person(self, element: ElementTree.Element, info: dict[str, str]) -> None:
        if info.get("native_name"):
            element.set("native_name", info["native_name"])
        for place in ("country", "city"):
            if info.get(place) and place in self.places:
                element.set(place, self.ref(place, info[place], self.places[place], place))

    def player(self, name: str) -> str:
        return self.ref("player", name, self.players, "player")

    def tournament(self, tournament: RifTournament) -> None:
        element = ElementTree.SubElement(ElementTree.SubElement(self.root, "tournaments"), "tournament", id="1")
        for attr in ("name", "start", "end"):
            if getattr(tournament, attr):
                element.set(attr, getattr(tournament, attr))
        element.set("rated", "1" if tournament.rated else "0")
        if tournament.rounds:
            element.set("rounds", str(tournament.rounds))
        if tournament.rule:
            element.set("rule", self.ref("rule", tournament.rule, self.rules, "rule"))
        if tournament.city and "city" in self.places:
            element.set("city", self.ref("city", tournament.city, self.places["city"], "city"))
        elif tournament.city:
            element.set("city", tournament.city)
        for number, player, kind in tournament.byes:
            ElementTree.SubElement(element, "bye", round=str(number), player=self.player(player), kind=kind)

    def game(self, parent: ElementTree.Element, game: RifGame, in_tournament: bool) -> None:
        attrs = {
            "id": str(game.number),
            "black": self.player(game.black),
            "white": self.player(game.white),
            "bresult": RIF_RESULTS.get(game.result, ""),
            "rule": self.ref("rule", game.rule, self.rules, "rule"),
            "date": game.date,
        }
        if in_tournament:
            attrs["tournament"] = "1"
        if game.opening:
            attrs["opening"] = self.ref("opening", game.opening, self.openings, "opening")
        attrs.update({k: v for k, v in game.extra.items() if v})
        element = ElementTree.SubElement(parent, "game", attrs)
        ElementTree.SubElement(element, "move").text = game.moves
        if game.actions:
            ElementTree.SubElement(element, "actions").text = game.actions


RIF_TO_PLAIN = {
    "round": "Round",
    "protocol": "Protocol",
    "options": "Options",
    "reason": "Reason",
    "event": "Event",
    "times": "Times",
    "timecontrol": "TimeControl",
    "date": "Date",
}


def parse_rif(text: str) -> list[PlainRecord]:
    """The games of a ``.rif`` database as plain records (header and actions, or stones)."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise RecordError(f"the .rif file is not well-formed XML: {exc}", "bad_xml", error=str(exc)) from None
    names: dict[tuple[str, str], str] = {}
    for section, tag in (("players", "player"), ("rules", "rule"), ("openings", "opening")):
        for element in root.iterfind(f"{section}/{tag}"):
            names[(tag, element.get("id", ""))] = element.get("name", "")
    records = []
    for game in root.iterfind("games/game"):
        header = {
            "Black": names.get(("player", game.get("black", "")), ""),
            "White": names.get(("player", game.get("white", "")), ""),
            "Rule": names.get(("rule", game.get("rule", "")), "") or "renju",
            "Result": {"1": "1-0", "0": "0-1", "0.5": "1/2-1/2"}.get(game.get("bresult", ""), "*"),
        }
        header.update({plain: game.get(attr, "") for attr, plain in RIF_TO_PLAIN.items() if game.get(attr)})
        actions = game.findtext("actions")
        records.append(PlainRecord(header, actions if actions is not None else game.findtext("move") or ""))
    return records


def read_records(text: str) -> list[PlainRecord]:
    """The games of a plain record (one) or a ``.rif`` database (any number)."""
    return parse_rif(text) if text.lstrip().startswith("<") else [parse_plain(text)]
