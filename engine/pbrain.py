"""Our engine as a Gomocup engine: the ``pbrain`` protocol on stdin and stdout (``python -m engine pbrain``).

The protocol of the Gomocup tournament and its manager Piskvork, spoken by Rapfi, Embryo, Yixin and every
Gomocup engine. The manager sends one command a line; the engine answers a move as ``x,y`` — columns from 0
at the left, rows from 0 at the **top** (our ``a1`` is ``0,14`` on a 15×15 board).

=================  ==========================================================================
command            answer
=================  ==========================================================================
``START n``        ``OK`` (an n×n board, 5 ≤ n ≤ 26), or ``ERROR …``
``RESTART``        ``OK`` (a new game on the same board)
``BEGIN``          our first move
``TURN x,y``       the opponent's move; our answer
``BOARD``          then ``x,y,f`` lines (f 1: ours, 2: the opponent's) and ``DONE``; our move
``TAKEBACK x,y``   ``OK`` once that stone is taken off
``PLAY x,y``       ``x,y``: the manager makes us play that move
``INFO key v``     no answer: ``timeout_turn``, ``timeout_match``, ``time_left`` (ms),
                   ``max_node``, ``rule`` (bits: 1 exactly five, 4 renju; 0 free-style), ``level``
``ABOUT``          ``name="…", version="…", author="…", country="…"``
``END``            the engine exits
=================  ==========================================================================

Anything else is answered ``UNKNOWN …``; a bad coordinate or an occupied point ``ERROR …``. Notes for the
manager's log go out as ``MESSAGE …``. Our moves come from :class:`~engine.search.players.ComputerPlayer`
(level 5 unless ``INFO level`` or ``--level`` says otherwise) within the time the manager allows: a fifth of
``timeout_turn``, and of ``time_left`` spread over the moves still to come; never a forbidden point for
renju's Black.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from engine.board import Board, IllegalMoveError
from engine.errors import EngineError
from engine.notation import Point
from engine.rules import Rules, find_rules
from engine.search.players import ComputerPlayer, find_level

ABOUT = 'name="gomoku-tournament engine", version="1.0", author="gomoku-tournament", country="CN"'
RENJU_BIT = 4
EXACT_FIVE_BIT = 1


def rules_for(rule: int) -> Rules:
    """Gomocup's ``INFO rule`` bits as our rule set: 4 renju, 1 exactly five, else free-style."""
    if rule & RENJU_BIT:
        return find_rules("renju")
    return find_rules("standard" if rule & EXACT_FIVE_BIT else "freestyle")


def rule_bits(rules_name: str) -> int:
    """Our rule set's name as Gomocup's ``INFO rule`` value."""
    return {"renju": RENJU_BIT, "renju-a": RENJU_BIT, "standard": EXACT_FIVE_BIT}.get(rules_name, 0)


def to_xy(point: Point, size: int) -> str:
    """Our point as the protocol's ``x,y`` (row 0 at the top)."""
    return f"{point.col},{size - 1 - point.row}"


def from_xy(text: str, size: int) -> Point:
    """The protocol's ``x,y`` as our point; an error if it is not two numbers on the board."""
    parts = text.strip().split(",")
    if len(parts) < 2 or not all(p.strip().lstrip("-").isdigit() for p in parts[:2]):
        raise EngineError(f"{text.strip()!r} is not a point (expected x,y)", "not_a_point", text=text.strip())
    x, y = int(parts[0]), int(parts[1])
    if not (0 <= x < size and 0 <= y < size):
        raise EngineError(f"{x},{y} is off the {size}x{size} board", "off_board", point=f"{x},{y}", size=size)
    return Point(x, size - 1 - y)


def board_from(own: Iterable[Point], theirs: Iterable[Point], size: int) -> Board:
    """The position of a ``BOARD`` command with us to move: Black is the side with more stones, or, when
    they are level, us."""
    mine, other = list(own), list(theirs)
    if len(mine) not in (len(other), len(other) - 1):
        raise EngineError("the stones do not make a position with us to move", "bad_board")
    black, white = (mine, other) if len(mine) == len(other) else (other, mine)
    order = [stone for pair in zip(black, white, strict=False) for stone in pair]
    if len(black) > len(white):
        order.append(black[-1])
    return Board.replay(order, size=size)


@dataclasses.dataclass
class Settings:
    timeout_turn: int = 5_000  # ms
    timeout_match: int = 0  # ms; 0: no limit
    time_left: int = 0  # ms; 0: not told
    max_node: int = 0  # 0: the level's own limit
    rule: int = 0
    level: int = 5


class Brain:
    """One engine process's state: the board, the rules and the limits the manager set."""

    def __init__(self, out: TextIO, level: int = 5, seed: int = 0, clock: Callable[[], float] | None = None) -> None:
        self.out = out
        self.settings = Settings(level=level)
        self.seed = seed
        self.clock = clock
        self.board: Board | None = None
        self.size = 15
        self.pending: list[tuple[Point, int]] | None = None  # stones of a BOARD command being read

    # -- output --------------------------------------------------------------------------

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    # -- the commands ----------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """One line from the manager; False once the engine should exit."""
        text = line.strip()
        if not text:
            return True
        if self.pending is not None:
            return self._board_line(text)
        command, _, rest = text.partition(" ")
        command = command.upper()
        try:
            if command == "END":
                return False
            handler = COMMANDS.get(command)
            if handler is None:
                self.say(f"UNKNOWN {command}")
            else:
                handler(self, rest.strip())
        except EngineError as exc:
            self.say(f"ERROR {exc}")
        return True

    def start(self, rest: str) -> None:
        size = int(rest) if rest.isdigit() else 0
        if not 5 <= size <= 26:
            self.say(f"ERROR unsupported board size {rest or '?'}")
            return
        self.size = size
        self.board = Board(size)
        self.say("OK")

    def restart(self, _rest: str) -> None:
        self.board = Board(self.size)
        self.say("OK")

    def begin(self, _rest: str) -> None:
        board = self._board()
        if board.stone_count:
            raise EngineError("BEGIN on a board that has stones", "not_empty")
        self._answer(board)

    def turn(self, rest: str) -> None:
        board = self._board()
        board.push(self._empty(board, from_xy(rest, self.size)))
        self._answer(board)

    def play(self, rest: str) -> None:
        board = self._board()
        point = self._empty(board, from_xy(rest, self.size))
        board.push(point)
        self.say(to_xy(point, self.size))

    def takeback(self, rest: str) -> None:
        board = self._board()
        point = from_xy(rest, self.size)
        if not board.move_stack or board.move_stack[-1].point != point:
            raise EngineError(f"{rest} is not the last stone played", "not_last", point=rest)
        board.pop()
        self.say("OK")

    def board_start(self, _rest: str) -> None:
        self._board()
        self.pending = []

    def _board_line(self, text: str) -> bool:
        assert self.pending is not None
        if text.upper() == "DONE":
            stones, self.pending = self.pending, None
            try:
                own = [p for p, f in stones if f == 1]
                theirs = [p for p, f in stones if f == 2]
                self.board = board_from(own, theirs, self.size)
                self._answer(self.board)
            except (EngineError, IllegalMoveError) as exc:
                self.say(f"ERROR {exc}")
            return True
        try:
            point = from_xy(text, self.size)
            field = text.split(",")[2].strip() if text.count(",") >= 2 else ""
            if field not in ("1", "2", "3"):
                raise EngineError(f"{text!r}: the field is 1, 2 or 3", "bad_field", text=text)
        except EngineError as exc:
            self.say(f"ERROR {exc}")
            return True
        if field != "3":  # 3: a continuous game's winning line; not a stone of either side
            self.pending.append((point, int(field)))
        return True

    def info(self, rest: str) -> None:
        key, _, value = rest.partition(" ")
        key = key.lower()
        if key in {f.name for f in dataclasses.fields(Settings)} and value.strip().lstrip("-").isdigit():
            number = int(value)
            if key == "level":
                find_level(number)  # refuses a level that is not 1–5
            setattr(self.settings, key, number)
        # other keys (max_memory, game_type, folder, evaluate …) change nothing here

    def about(self, _rest: str) -> None:
        self.say(ABOUT)

    # -- thinking ----------------------------------------------------------------------------

    def budget(self) -> float:
        """Seconds for this move: a fifth of the turn's limit and of the time left spread over the moves to come."""
        s = self.settings
        limits = [s.timeout_turn / 1000] if s.timeout_turn > 0 else [30.0]
        if s.time_left > 0:
            board = self._board()
            to_come = max(10, (board.size * board.size - board.stone_count) // 4)
            limits.append(s.time_left / 1000 / to_come)
        return max(0.05, min(limits) / 5)

    def _answer(self, board: Board) -> None:
        rules = rules_for(self.settings.rule)
        level = find_level(self.settings.level)
        if self.settings.max_node > 0 and level.nodes:
            level = dataclasses.replace(level, nodes=min(level.nodes, self.settings.max_node))
        player = ComputerPlayer(
            rules, level, seed=self.seed + board.stone_count, seconds=self.budget(), clock=self.clock
        )
        try:
            point = player.best_move(board)
        except EngineError as exc:  # renju's Black with every empty point forbidden
            self.say(f"ERROR {exc}")
            return
        board.push(point)
        self.say(to_xy(point, self.size))

    # -- helpers --------------------------------------------------------------------------------

    def _board(self) -> Board:
        if self.board is None:
            raise EngineError("no START yet", "no_start")
        return self.board

    def _empty(self, board: Board, point: Point) -> Point:
        if not board.is_empty(point):
            raise EngineError(f"{to_xy(point, self.size)} is occupied", "occupied")
        return point


COMMANDS: dict[str, Callable[[Brain, str], None]] = {
    "START": Brain.start,
    "RESTART": Brain.restart,
    "BEGIN": Brain.begin,
    "TURN": Brain.turn,
    "PLAY": Brain.play,
    "TAKEBACK": Brain.takeback,
    "BOARD": Brain.board_start,
    "INFO": Brain.info,
    "ABOUT": Brain.about,
}


def serve(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, level: int = 5, seed: int = 0) -> int:
    """Answer the manager until ``END`` or the end of its input."""
    brain = Brain(stdout, level=level, seed=seed)
    for line in stdin:
        if not brain.handle(line):
            break
    return 0
