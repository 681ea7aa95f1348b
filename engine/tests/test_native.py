"""The compiled build (engine/native.py) gives the same answers as the pure one.

The answers of this process (compiled where a build of this source exists, as ``make test`` makes one)
are compared with those of a process started with ``ENGINE_PURE=1`` on the same inputs: forbidden maps
of random renju positions, VCF lines of the public set, threats, and computer moves at node limits
(deterministic, no time limit), for renju and free-style.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import native
from engine.tests.native_answers import answers

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_and_the_pure_build_give_the_same_answers() -> None:
    if not native.active():
        pytest.skip(reason="no compiled build of this source (make native builds one where a C compiler is)")
    pure = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from engine.tests.native_answers import answers; print(json.dumps(answers()))",
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
