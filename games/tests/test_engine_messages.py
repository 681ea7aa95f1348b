"""Engine errors are translated by code: every code the engine raises has a template, in both languages."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest
from django.utils import translation

import engine
from engine import Board, parse_moves
from engine.protocols import Action, Options, Player, apply, start
from games.messages import _templates, translate

ENGINE = Path(engine.__file__).parent


def parsed(path: Path) -> ast.Module:
    """``ast.parse`` of a file. CPython 3.11 keeps the AST builder's recursion depth in one global, so a
    module compiled at the same moment by another thread (a live-server thread of a browser test still
    importing) can make it raise "AST constructor recursion depth mismatch" (reported upstream as CPython
    gh-106905); that is the interpreter, not the source, so the parse is tried again."""
    for _attempt in range(4):
        try:
            return ast.parse(path.read_text())
        except SystemError:
            continue
    return ast.parse(path.read_text())


def raised_codes() -> set[str]:
    """The codes in the engine's source: the second argument of an error's constructor, the first of within()."""
    codes = set()
    for path in sorted(p for p in ENGINE.rglob("*.py") if "tests" not in p.parts):
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name.endswith("Error") and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                codes.add(str(node.args[1].value))
            elif name == "within" and args:
                codes.add(args[0])
    return codes


def test_every_code_the_engine_raises_has_a_template() -> None:
    codes = raised_codes()
    assert {"occupied", "at_move", "not_your_turn", "symmetric_offers", "unknown_opening"} <= codes
    assert codes - {"bad_argument", "invalid"} <= set(_templates())


@pytest.mark.parametrize(
    ("cause", "english", "chinese"),
    [
        (lambda: Board.replay("h8 h8"), "Move 2: h8 is already occupied", "h8"),
        (lambda: parse_moves("h8 zz"), "move 2 ('zz' at character 4): not a move", "zz"),
        (lambda: apply(start("rif"), Player.TWO, Action.parse("place h8")), "it is player one's turn", "一号棋手"),
        (lambda: start("chinese-assigned", Options(assigned_opening="斜月x")), "There is no opening", "斜月x"),
    ],
)
def test_an_engine_error_reads_in_the_users_language(cause: Callable[[], object], english: str, chinese: str) -> None:
    with pytest.raises(engine.EngineError) as caught:
        cause()
    with translation.override("en"):
        assert english in translate(caught.value)
    with translation.override("zh-hans"):
        text = translate(caught.value)
    assert chinese in text and text != translate(str(caught.value)) and any("\u4e00" <= c <= "\u9fff" for c in text)
