"""The frozen baseline: the engine as it was on 2026-12-02 (commit ``BASELINE``), loaded beside today's.

The benchmarks measure today's engine against it in the same run (speed ratios on the same positions,
games of one against the other), so a figure does not depend on how fast the machine happens to be.
The baseline's source is read from the repository's history (``git show``) into ``var/baseline/`` with
its imports renamed to ``baseline_engine``; nothing of it is committed twice. It always runs as pure
Python, as it did that day.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "a1b6b60d0ceb300777b18ebb219169e6b35c9ed5"  # 2026-12-02: 14,000-18,000 nodes/s, cold_ratio ~19
NAME = "baseline_engine"


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def load() -> ModuleType:
    """The package ``baseline_engine`` (its ``search`` and ``renju`` as they were); ``RuntimeError`` without
    the repository's history."""
    folder = ROOT / "var" / "baseline" / BASELINE[:12]
    package = folder / NAME
    if not (package / "__init__.py").exists():
        try:
            files = [f for f in _git("ls-tree", "-r", "--name-only", BASELINE, "engine/").split() if f.endswith(".py")]
        except (OSError, subprocess.CalledProcessError) as exc:
            raise RuntimeError(f"the baseline needs the git history (commit {BASELINE[:12]}): {exc}") from None
        for name in files:
            if "/tests/" in name:
                continue
            text = _git("show", f"{BASELINE}:{name}")
            for old, new in (("from engine.", f"from {NAME}."), ("from engine import", f"from {NAME} import")):
                text = text.replace(old, new)
            text = text.replace("import engine.", f"import {NAME}.")
            target = package / Path(name).relative_to("engine")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        for data in _git("ls-tree", "-r", "--name-only", BASELINE, "engine/data/").split():
            target = package / Path(data).relative_to("engine")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(
                subprocess.run(["git", "show", f"{BASELINE}:{data}"], cwd=ROOT, capture_output=True, check=True).stdout
            )
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(NAME)
