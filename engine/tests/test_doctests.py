import doctest
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

MODULES = [
    "engine",
    "engine.board",
    "engine.notation",
    "engine.renju",
    "engine.openings",
    "engine.protocols",
    "engine.search",
    "engine.search.solver",
]


def with_docstrings(name: str) -> ModuleType:
    """The module; for a compiled one (engine/native.py), its source loaded beside it, whose docstrings doctest
    can read (a compiled function's are not found by doctest's finder)."""
    module = importlib.import_module(name)
    path = Path(module.__file__ or "")
    if path.suffix == ".py":
        return module
    source = Path(importlib.import_module("engine").__file__ or "").parent.joinpath(*name.split(".")[1:])
    spec = importlib.util.spec_from_file_location(f"_doctest_{name.replace('.', '_')}", source.with_suffix(".py"))
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # dataclasses look their module up
    spec.loader.exec_module(loaded)
    return loaded


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(with_docstrings(name))

    assert result.failed == 0
    assert result.attempted > 0
