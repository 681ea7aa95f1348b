"""The engine's compiled build: the typed hot modules compiled by mypyc where a C compiler is available.

The same source runs either way: ``python -m engine.native build`` compiles :data:`MODULES` into
``engine/_build/<digest>/``, where ``<digest>`` is a hash of their source and of the interpreter;
:func:`activate` (called first thing by ``engine/__init__.py`` and ``engine/search/__init__.py``) puts
that folder ahead on the packages' search path when, and only when, a build of exactly the current
source exists. An edited source has another digest, so a stale build is never loaded; without a
build, or with ``ENGINE_PURE=1`` in the environment, everything runs as plain Python with the same
results (the tests cross-check the two builds, ``engine/tests/test_native.py``).

``python -m engine native`` says which build is active; ``--build`` makes one (a failure, such as no C
compiler, leaves the pure build in place and says why; with ``--optional`` it is not an error).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent  # the engine package
# The hot paths: the board, the forbidden-move judge, the rules, threats, the solver and the search.
MODULES = (
    "errors",
    "notation",
    "board",
    "renju",
    "rules",
    "search/threats",
    "search/solver",
    "search/evaluate",
    "search/alphabeta",
)
BUILDS = ROOT / "_build"


def digest() -> str:
    """A hash of the compiled modules' source and of the interpreter and platform they are built for."""
    h = hashlib.sha256(f"{sys.implementation.cache_tag} {sysconfig.get_platform()}".encode())
    for name in MODULES:
        h.update(name.encode())
        h.update((ROOT / f"{name}.py").read_bytes())
    return h.hexdigest()[:16]


def build_dir() -> Path:
    return BUILDS / digest()


def active() -> bool:
    """Is the compiled build in use in this process?"""
    import engine.board

    return not engine.board.__file__.endswith(".py") if engine.board.__file__ else False


def activate(package_path: list[str], subpackage: str = "") -> bool:
    """Put the build of the current source ahead on ``package_path`` (a package's ``__path__``), if one exists."""
    if os.environ.get("ENGINE_PURE"):
        return False
    try:
        folder = build_dir()
    except OSError:
        return False
    if not (folder / "complete").exists():
        return False
    if str(folder) not in sys.path:
        sys.path.append(str(folder))  # mypyc's shared support module lives at the top of the build
    target = folder / "engine" / subpackage if subpackage else folder / "engine"
    if str(target) not in package_path:
        package_path.insert(0, str(target))
    return True


def build(quiet: bool = True) -> Path:
    """Compile :data:`MODULES` into :func:`build_dir` (``RuntimeError`` with the compiler's words if it fails)."""
    folder = build_dir()
    if (folder / "complete").exists():
        if not quiet:
            print(f"engine: compiled build in {folder} (already built)")
        return folder
    with tempfile.TemporaryDirectory(prefix="engine-build-") as temp:
        source = Path(temp) / "src"
        shutil.copytree(ROOT, source / "engine", ignore=shutil.ignore_patterns("_build", "tests", "__pycache__"))
        (source / "setup.py").write_text(
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"paths = {[f'engine/{name}.py' for name in MODULES]!r}\n"
            "setup(name='engine-native', ext_modules=mypycify(paths, opt_level='3'))\n"
        )
        staging = Path(temp) / "lib"
        command = [sys.executable, "setup.py", "build_ext", "--build-lib", str(staging), "--build-temp", "obj"]
        done = subprocess.run(command, cwd=source, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError((done.stdout + done.stderr)[-3000:])
        if BUILDS.exists():
            for old in BUILDS.iterdir():  # one build is kept: the current source's
                shutil.rmtree(old, ignore_errors=True)
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staging, folder)
        (folder / "complete").write_text(digest())
    if not quiet:
        print(f"engine: compiled build in {folder}")
    return folder


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        try:
            build(quiet=False)
        except (RuntimeError, OSError) as exc:
            reason = (str(exc).strip().splitlines() or ["?"])[-1]
            print(f"engine: no compiled build ({reason}); the pure build runs", file=sys.stderr)
            return 0 if "--optional" in argv else 1
        return 0
    print(f"engine: {'compiled' if active() else 'pure'} build (source {digest()})")
    return 0
