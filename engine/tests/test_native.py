"""The compiled build (engine/native.py) gives the same answers as the pure one.

The answers of this process (compiled where a build of this source exists, as ``make test`` makes one)
are compared with those of a process started with ``ENGINE_PURE=1`` on the same inputs: forbidden maps
of random renju positions, VCF lines of the public set, threats, and computer moves at node limits
(deterministic, no time limit), for renju and free-style.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Board, Freestyle, Point, Renju, native
from engine.search import ComputerPlayer, find_vcf
from engine.search.threats import Threats

ROOT = Path(__file__).resolve().parents[2]
VCF_SET = Path(__file__).parent / "data" / "vcf.txt"


def random_positions(count: int, seed: int) -> list[str]:
    """Move lists of random legal renju play near the stones (10 to 70 stones)."""
    rng = random.Random(seed)
    rules = Renju()
    found: list[str] = []
    while len(found) < count:
        board = Board()
        board.push("h8")
        target = rng.randint(10, 70)
        for _ in range(400):
            if board.stone_count >= target:
                break
            stones = [i for i, v in enumerate(board.stones) if v]
            col, row = divmod(rng.choice(stones), 15)[::-1]
            c, r = col + rng.randint(-2, 2), row + rng.randint(-2, 2)
            if not (0 <= c < 15 and 0 <= r < 15) or board.stones[r * 15 + c]:
                continue
            point = Point(c, r)
            if rules.move_outcome(board, point) is None:
                board.push(point)
        found.append(board.moves_text())
    return found


def answers(count: int = 60) -> dict[str, Any]:
    """Everything compared, as plain data."""
    renju, freestyle = Renju(), Freestyle()
    positions = random_positions(count, 2026)
    out: dict[str, Any] = {"maps": [], "threats": [], "moves": [], "vcf": []}
    for moves in positions:
        board = Board.replay(moves)
        out["maps"].append({str(p): str(r) for p, r in renju.forbidden_points(board).items()})
        t = Threats(board, renju)
        out["threats"].append([t.fives(1), t.fives(2), sorted(t.fours(1)), sorted(t.fours(2)), t.threes(2)])
    for moves in positions[:12]:
        board = Board.replay(moves)
        for rules in (renju, freestyle):
            if rules.outcome(board) is None:
                out["moves"].append(str(ComputerPlayer(rules, level=4, seed=7).best_move(board)))
    rows = [line.split("#")[0] for line in VCF_SET.read_text().splitlines() if line and not line.startswith("#")]
    for row in rows[:40]:
        board = Board.replay(row.split("|")[0])
        line = find_vcf(board, renju)
        out["vcf"].append(None if line is None else [str(p) for p in line])
    return out


def test_the_compiled_and_the_pure_build_give_the_same_answers() -> None:
    if not native.active():
        pytest.skip(reason="no compiled build of this source (make native builds one where a C compiler is)")
    pure = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from engine.tests.test_native import answers; print(json.dumps(answers()))",
        ],
        cwd=ROOT,
        env={**os.environ, "ENGINE_PURE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(pure.stdout)
    ours = answers()
    assert sum(len(m) for m in ours["maps"]) > 20 and sum(v is not None for v in ours["vcf"]) == 40
    for key in ("maps", "threats", "moves", "vcf"):
        assert ours[key] == theirs[key], key


def test_a_build_is_used_only_for_the_source_it_was_made_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "engine"
    (copy / "search").mkdir(parents=True)
    for name in native.MODULES:
        (copy / f"{name}.py").write_bytes((native.ROOT / f"{name}.py").read_bytes())
    monkeypatch.setattr(native, "ROOT", copy)
    monkeypatch.setattr(native, "BUILDS", copy / "_build")
    monkeypatch.delenv("ENGINE_PURE", raising=False)
    before = native.digest()
    (native.build_dir() / "engine").mkdir(parents=True)
    path: list[str] = []
    assert not native.activate(path) and path == []  # not a complete build
    (native.build_dir() / "complete").write_text(before)
    assert native.activate(path) and path == [str(native.build_dir() / "engine")]
    with (copy / "renju.py").open("a") as source:
        source.write("\n# an edit\n")
    assert native.digest() != before
    fresh: list[str] = []
    assert not native.activate(fresh) and fresh == []  # the old build is not this source's
    monkeypatch.setenv("ENGINE_PURE", "1")
    (native.build_dir() / "engine").mkdir(parents=True)
    (native.build_dir() / "complete").write_text(native.digest())
    assert not native.activate(fresh)  # ENGINE_PURE=1: the pure build, whatever is built
    sys.path[:] = [p for p in sys.path if not p.startswith(str(tmp_path))]


def test_the_command_line_says_which_build_runs() -> None:
    said = subprocess.run(
        [sys.executable, "-m", "engine", "native"],
        cwd=ROOT,
        env={**os.environ, "ENGINE_PURE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert said.stdout.startswith("engine: pure build (source ") and json.dumps(native.digest())[1:-1] in said.stdout
