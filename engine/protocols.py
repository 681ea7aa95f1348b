"""Opening protocols as pure state machines (rules.md §4.3).

``start(name, options)`` gives the first :class:`OpeningState`;
``apply(state, player, action)`` returns the next state or raises
:class:`ProtocolError` saying what was wrong. A state tells who acts (player
one or two, and the colour each holds now) and which actions are legal. When
``state.finished`` is true the opening is over and play continues under the
game's rule set. The list of (player, action) pairs is the opening's record;
:func:`replay` rebuilds the state from it.

    >>> s = start("rif")
    >>> for text in ["place h8", "place h9", "place j10"]:
    ...     s = apply(s, Player.ONE, Action.parse(text))
    >>> s.actor, s.expects
    (<Player.TWO: 2>, 'swap')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum

from engine.board import Board
from engine.errors import EngineError
from engine.notation import PASS, Color, InvalidMoveError, Move, Point
from engine.offers import symmetric_pairs
from engine.openings import CENTER, assigned_points, find_opening, identify


class ProtocolError(EngineError):
    """An action the opening protocol does not allow at this point."""


class Player(IntEnum):
    ONE = 1
    TWO = 2

    @property
    def other(self) -> Player:
        return Player.TWO if self is Player.ONE else Player.ONE

    def __str__(self) -> str:
        return "player one" if self is Player.ONE else "player two"


class Kind(StrEnum):
    PLACE = "place"
    PASS = "pass"
    SWAP = "swap"
    NO_SWAP = "no-swap"
    DECLARE = "declare"
    OFFER = "offer"
    CHOOSE = "choose"
    COLOR = "color"
    BRANCH = "branch"


@dataclass(frozen=True)
class Action:
    """One opening action; ``str(action)`` is its record form and ``parse`` reads it."""

    kind: Kind
    points: tuple[Point, ...] = ()
    number: int | None = None
    color: Color | None = None

    @classmethod
    def place(cls, point: Point | str) -> Action:
        return cls(Kind.PLACE, (Point.parse(point) if isinstance(point, str) else point,))

    @classmethod
    def swap(cls, yes: bool = True) -> Action:
        return cls(Kind.SWAP if yes else Kind.NO_SWAP)

    @classmethod
    def declare(cls, n: int) -> Action:
        return cls(Kind.DECLARE, number=n)

    @classmethod
    def offer(cls, points: Iterable[Point | str]) -> Action:
        return cls(Kind.OFFER, tuple(Point.parse(p) if isinstance(p, str) else p for p in points))

    @classmethod
    def choose(cls, point: Point | str) -> Action:
        return cls(Kind.CHOOSE, (Point.parse(point) if isinstance(point, str) else point,))

    @classmethod
    def choose_color(cls, color: Color) -> Action:
        return cls(Kind.COLOR, color=color)

    @classmethod
    def branch(cls, number: int) -> Action:
        return cls(Kind.BRANCH, number=number)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read ``place h8``, ``swap``, ``no-swap``, ``declare 3``, ``offer g8 j10``,
        ``choose g8``, ``color black``, ``branch 2`` or ``pass``."""
        words = text.split()
        if not words:
            raise ProtocolError("empty action", "empty_action")
        try:
            kind = Kind(words[0].lower())
        except ValueError:
            raise ProtocolError(f"unknown action {words[0]!r}", "unknown_action", word=words[0]) from None
        args = words[1:]
        try:
            if kind in (Kind.PLACE, Kind.CHOOSE, Kind.OFFER):
                if not args or (kind is not Kind.OFFER and len(args) != 1):
                    raise ProtocolError(
                        f"{kind} needs {'points' if kind is Kind.OFFER else 'one point'}",
                        "needs_points" if kind is Kind.OFFER else "needs_point",
                        kind=str(kind),
                    )
                return cls(kind, tuple(Point.parse(a) for a in args))
            if kind in (Kind.DECLARE, Kind.BRANCH):
                return cls(kind, number=int(args[0]))
            if kind is Kind.COLOR:
                return cls(kind, color=Color[args[0].upper()])
        except (IndexError, KeyError, ValueError, InvalidMoveError) as exc:
            if isinstance(exc, ProtocolError):
                raise
            inner = exc if isinstance(exc, EngineError) else ProtocolError(str(exc), "bad_argument")
            raise ProtocolError(
                f"malformed action {text!r}: {exc}", "malformed_action", text=text, inner=inner
            ) from None
        return cls(kind)

    def __str__(self) -> str:
        if self.kind in (Kind.PLACE, Kind.CHOOSE, Kind.OFFER):
            return " ".join([self.kind.value, *(str(p) for p in self.points)])
        if self.kind in (Kind.DECLARE, Kind.BRANCH):
            return f"{self.kind} {self.number}"
        if self.kind is Kind.COLOR:
            return f"color {self.color}"
        return self.kind.value


# -- protocol definitions ----------------------------------------------------

REGIONS = {"center": 0, "3x3": 1, "5x5": 2, "7x7": 3, "9x9": 4}
REGION_TEXT = {
    "center": "on h8 (天元)",
    "3x3": "next to h8 (the central 3×3)",
    "5x5": "inside the central 5×5",
    "7x7": "inside the central 7×7",
    "9x9": "inside the central 9×9",
}
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]


@dataclass(frozen=True)
class Step:
    """One row of a step table. ``actor`` is P1, P2, black or white (the
    current holder of that colour). ``then`` jumps to a label afterwards."""

    kind: str  # place, swap, declare, offer, choose, color, branch, swap2
    actor: str
    region: str = "any"
    low: int = 1
    high: int = 1
    count: int | None = None  # offers: fixed count; None = the declared N
    label: str = ""
    then: str = ""
    branches: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Options:
    """Protocol options with the defaults of rules.md §8."""

    max_n: int = 20  # D8: declared N in 1..20
    forbid_symmetric_offers: bool = True  # D9
    b1_on_center: bool = False  # Swap1/Swap2: B1 on h8 only if the tournament says so
    chinese_offers: int = 2  # 五手两打; with chinese_declared, Black declares N (五手N打)
    chinese_declared: bool = False
    assigned_opening: str = "1D"  # chinese-assigned: the organizer's opening (code or number)
    pass_from_move: int = 0  # 0: no pass during the opening (D5); k: a pass may be move k or later


def _tara(n: int) -> tuple[Step, ...]:
    return (
        *_taran_prefix(),
        Step("place", "white", "7x7"),
        Step("branch", "black", branches=((1, "b1"), (2, "b2"))),
        Step("swap", "black", label="b1"),
        Step("place", "black", "9x9"),
        Step("swap", "white"),
        Step("place", "white", then="end"),
        Step("offer", "black", count=n, label="b2"),
        Step("choose", "white"),
        Step("place", "white"),
    )


def _taran_prefix() -> tuple[Step, ...]:
    return (
        Step("place", "black", "center"),
        Step("swap", "white"),
        Step("place", "white", "3x3"),
        Step("swap", "black"),
        Step("place", "black", "5x5"),
        Step("swap", "white"),
    )


def _fifth_offers(count: int | None = None) -> tuple[Step, ...]:
    return (Step("offer", "black", count=count), Step("choose", "white"), Step("place", "white"))


def _rif_family(third: str, declare: bool, second_by: str = "P1", offers: int | None = None) -> tuple[Step, ...]:
    steps = [Step("place", "P1", "center"), Step("place", second_by, "3x3"), Step("place", "P1", third)]
    if declare:
        steps.append(Step("declare", "P1", low=1, high=0))  # high 0: options.max_n
    return (*steps, Step("swap", "P2"), Step("place", "white"), *_fifth_offers(offers))


def _jonsson(high: int) -> tuple[Step, ...]:
    return (
        Step("place", "P1", "center"),
        Step("place", "P1", "3x3"),
        Step("place", "P1", "5x5"),
        Step("swap", "P2"),
        Step("place", "white"),
        Step("declare", "white", low=1, high=high),
        Step("swap", "black"),
        *_fifth_offers(),
    )


def _swap_start(options: Options) -> tuple[Step, ...]:
    first = "center" if options.b1_on_center else "any"
    return (Step("place", "P1", first), Step("place", "P1"), Step("place", "P1"))


def protocol_steps(name: str, options: Options) -> tuple[Step, ...]:
    """The step table of protocol ``name`` (see PROTOCOLS)."""
    tables: dict[str, Callable[[], tuple[Step, ...]]] = {
        "none": lambda: (),
        "free-swap3": lambda: (
            Step("place", "P1"),
            Step("place", "P2"),
            Step("place", "P1"),
            Step("swap", "white"),
        ),
        "rif": lambda: _rif_family("5x5", declare=False, offers=2),
        "yamaguchi": lambda: _rif_family("5x5", declare=True),
        "yamaguchi-52": lambda: _rif_family("7x7", declare=True),
        "yamaguchi-variation": lambda: _rif_family("7x7", declare=True, second_by="P2"),
        "tarannikov": lambda: (
            *_taran_prefix(),
            Step("place", "white", "7x7"),
            Step("swap", "black"),
            Step("place", "black", "9x9"),
            Step("swap", "white"),
            Step("place", "white"),
        ),
        "taraguchi": lambda: _tara(5),
        "taraguchi-10": lambda: _tara(10),
        "jonsson": lambda: _jonsson(3),
        "soosorv": lambda: _jonsson(4),
        "soosorv-8": lambda: _jonsson(8),
        "swap1": lambda: (*_swap_start(options), Step("color", "P2")),
        "swap2": lambda: (
            *_swap_start(options),
            Step("swap2", "P2"),
            Step("place", "P2"),
            Step("color", "P1"),
        ),
        "chinese": lambda: _rif_family(
            "5x5",
            declare=options.chinese_declared,
            offers=None if options.chinese_declared else options.chinese_offers,
        ),
        "chinese-assigned": lambda: (
            Step("place", "P1", "assigned"),
            Step("place", "P1", "assigned"),
            Step("place", "P1", "assigned"),
            Step("place", "white"),
            *_fifth_offers(options.chinese_offers),
        ),
    }
    if name == "chinese-assigned":
        try:
            find_opening(options.assigned_opening)  # the Chinese rules allow the 26 only
        except EngineError as exc:
            raise ProtocolError(str(exc), exc.code, **exc.params) from None
    try:
        return tuple(tables[name]())
    except KeyError:
        raise ProtocolError(
            f"unknown opening protocol {name!r}; choose one of {', '.join(PROTOCOLS)}",
            "unknown_protocol",
            name=name,
            choices=", ".join(PROTOCOLS),
        ) from None


PROTOCOLS = (
    "none",
    "free-swap3",
    "rif",
    "yamaguchi",
    "yamaguchi-52",
    "yamaguchi-variation",
    "tarannikov",
    "taraguchi",
    "taraguchi-10",
    "jonsson",
    "soosorv",
    "soosorv-8",
    "swap1",
    "swap2",
    "chinese",
    "chinese-assigned",
)


# -- states ------------------------------------------------------------------


@dataclass(frozen=True)
class OpeningState:
    """Where an opening stands. Immutable: :func:`apply` returns a new one."""

    protocol: str
    options: Options
    steps: tuple[Step, ...]
    step: int = 0
    moves: tuple[Move, ...] = ()
    black_player: Player = Player.ONE
    declared_n: int | None = None
    offers: tuple[Point, ...] = ()
    record: tuple[tuple[Player, Action], ...] = field(default=())

    @property
    def finished(self) -> bool:
        return self.step >= len(self.steps)

    @property
    def current(self) -> Step:
        if self.finished:
            raise ProtocolError("the opening is over; play continues under the rule set", "opening_over")
        return self.steps[self.step]

    def holder(self, color: Color) -> Player:
        """The player who holds ``color`` now."""
        return self.black_player if color is Color.BLACK else self.black_player.other

    def color_of(self, player: Player) -> Color:
        return Color.BLACK if player is self.black_player else Color.WHITE

    @property
    def next_color(self) -> Color:
        """The colour of the next board move (Black on odd move numbers)."""
        return Color.BLACK if len(self.moves) % 2 == 0 else Color.WHITE

    @property
    def actor(self) -> Player:
        """Who acts now (after the opening: the holder of the colour to move)."""
        if self.finished:
            return self.holder(self.next_color)
        who = self.current.actor
        if who in ("P1", "P2"):
            return Player.ONE if who == "P1" else Player.TWO
        return self.holder(Color.BLACK if who == "black" else Color.WHITE)

    @property
    def expects(self) -> str:
        """The step kind awaited: place, swap, declare, offer, choose, color, branch,
        swap2 (Swap2's choice: a colour or two more stones) or ``play`` when over."""
        return "play" if self.finished else self.current.kind

    @property
    def offer_count(self) -> int | None:
        step = self.current
        return step.count if step.count is not None else self.declared_n

    def board(self) -> Board:
        return Board.replay(list(self.moves))

    def legal_kinds(self) -> list[Kind]:
        kinds = {
            "place": [Kind.PLACE],
            "swap": [Kind.SWAP, Kind.NO_SWAP],
            "declare": [Kind.DECLARE],
            "offer": [Kind.OFFER],
            "choose": [Kind.CHOOSE],
            "color": [Kind.COLOR],
            "branch": [Kind.BRANCH],
            "swap2": [Kind.COLOR, Kind.PLACE],
            "play": [],
        }[self.expects]
        if self.expects == "place" and self._pass_allowed():
            kinds.append(Kind.PASS)
        return kinds

    def legal_points(self) -> set[Point]:
        """Points a stone (or an offer) may go on now."""
        if self.expects not in ("place", "offer", "swap2"):
            return set()
        board = self.board()
        region = self.current.region if self.expects == "place" else "any"
        return {p for p in board.empty_points() if self._in_region(p, region)}

    def _pass_allowed(self) -> bool:
        k = self.options.pass_from_move
        return k > 0 and len(self.moves) + 1 >= k

    def _in_region(self, point: Point, region: str) -> bool:
        if region == "any":
            return True
        if region == "assigned":  # the organizer's opening, in any of the 8 orientations
            placed = [m.point for m in self.moves if m.point is not None]
            return point in assigned_points(self.options.assigned_opening, placed)
        reach = REGIONS[region]
        return max(abs(point.col - CENTER.col), abs(point.row - CENTER.row)) <= reach


def start(protocol: str, options: Options | None = None) -> OpeningState:
    options = options or Options()
    return OpeningState(protocol, options, protocol_steps(protocol, options))


def replay(protocol: str, record: Iterable[tuple[Player, Action]], options: Options | None = None) -> OpeningState:
    """Rebuild a state from its record."""
    state = start(protocol, options)
    for number, (player, action) in enumerate(record, start=1):
        try:
            state = apply(state, player, action)
        except ProtocolError as exc:
            raise exc.within("at_action", f"action {number} ({action})", n=number, action=str(action)) from None
    return state


def apply(state: OpeningState, player: Player, action: Action) -> OpeningState:
    """The state after ``player`` takes ``action``, or ProtocolError."""
    if state.finished:
        raise ProtocolError("the opening is over; play continues under the rule set", "opening_over")
    if player is not state.actor:
        raise ProtocolError(
            f"it is {state.actor}'s turn, not {player}'s", "not_your_turn", actor=str(state.actor), player=str(player)
        )
    if action.kind not in state.legal_kinds():
        wanted = " or ".join(k.value for k in state.legal_kinds())
        raise ProtocolError(f"expected {wanted}, got {action.kind}", "expected", wanted=wanted, got=str(action.kind))
    handler = {
        Kind.PLACE: _place,
        Kind.PASS: _pass,
        Kind.SWAP: _swap,
        Kind.NO_SWAP: _swap,
        Kind.DECLARE: _declare,
        Kind.OFFER: _offer,
        Kind.CHOOSE: _choose,
        Kind.COLOR: _color,
        Kind.BRANCH: _branch,
    }[action.kind]
    new_state, jump = handler(state, player, action)
    return _advance(replace(new_state, record=(*state.record, (player, action))), state, jump)


def _advance(state: OpeningState, before: OpeningState, jump: str) -> OpeningState:
    target = jump or before.current.then
    if target == "end":
        return replace(state, step=len(state.steps))
    if target:
        labels = {s.label: i for i, s in enumerate(state.steps) if s.label}
        return replace(state, step=labels[target])
    return replace(state, step=before.step + 1)


Result = tuple[OpeningState, str]


def _check_empty(board: Board, point: Point) -> None:
    if not point.on_board(board.size):
        raise ProtocolError(f"{point} is off the board", "off_board", point=str(point), size=board.size)
    if not board.is_empty(point):
        raise ProtocolError(f"{point} is already occupied", "occupied", point=str(point))


def _place(state: OpeningState, player: Player, action: Action) -> Result:
    point = action.points[0]
    _check_empty(state.board(), point)
    region = state.current.region if state.expects == "place" else "any"
    if not state._in_region(point, region):
        number = len(state.moves)
        ordinal = ORDINALS[number] if number < len(ORDINALS) else f"#{number + 1}"
        if region == "assigned":
            placed = [m.point for m in state.moves if m.point is not None]
            allowed = sorted(assigned_points(state.options.assigned_opening, placed))
            points = " or ".join(str(p) for p in allowed)
            raise ProtocolError(
                f"the {ordinal} stone of the assigned opening goes on {points}",
                "assigned_point",
                ordinal=ordinal,
                point=points,
            )
        raise ProtocolError(
            f"the {ordinal} stone must be {REGION_TEXT[region]}",
            "stone_region",
            ordinal=ordinal,
            region=REGION_TEXT[region],
        )
    # In Swap2's choice a stone is option C: two more stones, then player one picks a colour.
    return replace(state, moves=(*state.moves, Move(point))), ""


def _pass(state: OpeningState, player: Player, action: Action) -> Result:
    return replace(state, moves=(*state.moves, PASS)), ""


def _swap(state: OpeningState, player: Player, action: Action) -> Result:
    if action.kind is Kind.SWAP:
        return replace(state, black_player=state.black_player.other), ""
    return state, ""


def _declare(state: OpeningState, player: Player, action: Action) -> Result:
    step = state.current
    high = step.high or state.options.max_n
    n = action.number
    if n is None or not step.low <= n <= high:
        raise ProtocolError(
            f"the number of fifth-move offers must be between {step.low} and {high}, got {n}",
            "offer_count_range",
            low=step.low,
            high=high,
            n=n,
        )
    return replace(state, declared_n=n), ""


def _offer(state: OpeningState, player: Player, action: Action) -> Result:
    points = action.points
    wanted = state.offer_count
    if wanted is None:
        raise ProtocolError("no number of offers has been declared", "no_offer_count")
    if len(points) != wanted:
        raise ProtocolError(
            f"offer exactly {wanted} point{'s' if wanted != 1 else ''} for move 5, got {len(points)}",
            "offer_exactly",
            wanted=wanted,
            got=len(points),
        )
    if len(set(points)) != len(points):
        repeated = next(p for p in points if points.count(p) > 1)
        raise ProtocolError(f"{repeated} is offered twice", "offered_twice", point=str(repeated))
    board = state.board()
    for point in points:
        _check_empty(board, point)
    if state.options.forbid_symmetric_offers:
        black = [m.point for m in state.moves[0::2] if m.point is not None]
        white = [m.point for m in state.moves[1::2] if m.point is not None]
        pairs = symmetric_pairs(black, white, points)
        if pairs:
            first, second = pairs[0]
            raise ProtocolError(
                f"{first} and {second} are symmetric offers", "symmetric_offers", first=str(first), second=str(second)
            )
    return replace(state, offers=points), ""


def _choose(state: OpeningState, player: Player, action: Action) -> Result:
    point = action.points[0]
    if point not in state.offers:
        offered = ", ".join(str(p) for p in state.offers)
        raise ProtocolError(f"choose one of the offered points: {offered}", "choose_offered", points=offered)
    return replace(state, moves=(*state.moves, Move(point)), offers=()), ""


def _color(state: OpeningState, player: Player, action: Action) -> Result:
    assert action.color is not None
    black = player if action.color is Color.BLACK else player.other
    new_state = replace(state, black_player=black)
    if state.expects == "swap2":
        return new_state, "end"  # options A and B end the opening at once
    return new_state, ""


def _branch(state: OpeningState, player: Player, action: Action) -> Result:
    branches = dict(state.current.branches)
    if action.number not in branches:
        choices = " or ".join(str(b) for b in branches)
        raise ProtocolError(
            f"choose branch {choices}, got {action.number}", "choose_branch", branches=choices, got=action.number
        )
    return state, branches[action.number]


def opening_name(state: OpeningState) -> str | None:
    """The opening the first three stones make, if they are one of the 52."""
    stones = [m.point for m in state.moves[:3] if m.point is not None]
    if len(stones) < 3:
        return None
    found = identify(stones, include_52=True)
    return found.opening.summary() if found else None
