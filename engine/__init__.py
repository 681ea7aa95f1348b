"""Gomoku and renju rules: a plain Python library with no dependencies.

>>> from engine import Board, Renju
>>> board = Board.replay("g8 a1 i8 a3 h9 a5 h10 a7")
>>> {str(p): str(r) for p, r in Renju().forbidden_points(board).items()}
{'h8': 'double-three'}
"""

from engine import native

native.activate(__path__)  # the compiled build of this very source, if one was made (engine/native.py)

from engine.board import Board, BoardSnapshot, IllegalMoveError, OccupiedPointError
from engine.errors import EngineError
from engine.notation import PASS, Color, InvalidMoveError, Move, Point, format_moves, parse_moves, parse_point
from engine.renju import Explanation, ForbiddenReason, Shape, explain, forbidden_points, forbidden_reason
from engine.rules import (
    RULES,
    Freestyle,
    Outcome,
    Renju,
    RenjuFiveExtension,
    Rules,
    Standard,
    Termination,
    find_rules,
)

__all__ = [
    "PASS",
    "RULES",
    "Board",
    "BoardSnapshot",
    "Color",
    "EngineError",
    "Explanation",
    "ForbiddenReason",
    "Freestyle",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "OccupiedPointError",
    "Outcome",
    "Point",
    "Renju",
    "RenjuFiveExtension",
    "Rules",
    "Shape",
    "Standard",
    "Termination",
    "explain",
    "find_rules",
    "forbidden_points",
    "forbidden_reason",
    "format_moves",
    "parse_moves",
    "parse_point",
]
