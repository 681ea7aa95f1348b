"""Engines in a box: an engine that spawns children, floods its output or keeps its output open through a
child of its own never holds the caller past the turn's limit plus a small grace, leaves no process behind,
gets none of the server's environment, and cannot grow the caller's memory. (Seconds here are bounds on a
guarantee the worker relies on, not speed targets: each is an order of magnitude above what it takes.)"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import pytest

from engine import Board
from engine.gomocup import MARKER, EngineFailure, EngineSpec, engine_move
from engine.rules import find_rules
from engine.tests.processes import leftovers

MISBEHAVING = str(Path(__file__).parent / "engines" / "misbehaving.py")
TURN_MS = 1000
GRACE_S = 2.0


def spec(mode: str, *extra: str, **options: object) -> EngineSpec:
    return EngineSpec((sys.executable, MISBEHAVING, mode, *extra), turn_ms=TURN_MS, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mode", "kind"), [("holder", "timeout"), ("spawner", "timeout"), ("flood", "garbage"), ("longline", "garbage")]
)
def test_a_hostile_engine_returns_within_the_turn_and_leaves_nothing_running(mode: str, kind: str) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with pytest.raises(EngineFailure) as failure:
        engine_move(spec(mode), Board.replay("h8 h9"), find_rules("freestyle"))
    took = time.monotonic() - started
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024

    assert failure.value.kind == kind
    # the turn and the grace, far from the minutes an unbounded wait would take (a margin for a loaded machine)
    assert took < TURN_MS / 1000 + GRACE_S + 10
    assert leftovers() == []  # the group and the child that left it are gone
    assert grown_mb < 64  # output is bounded: the caller never held it all


def test_an_engine_sees_no_secret_of_the_servers_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_KEY", "do-not-leak")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:pw@db/x")
    move = engine_move(spec("env", "0,0"), Board.replay("h8"), find_rules("freestyle"))
    names = set(move.messages[0].split()[1:])
    assert "SECRET_KEY" not in names and "DATABASE_URL" not in names
    assert names <= {"PATH", "LANG", "HOME", MARKER, "LC_CTYPE", "PWD", "SHLVL", "_"}


def test_an_engine_that_asks_for_too_much_memory_is_refused_it() -> None:
    move = engine_move(spec("hog", "0,0", memory_mb=512), Board.replay("h8"), find_rules("freestyle"))
    assert move.messages == ("MESSAGE no memory",)
