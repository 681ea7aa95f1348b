import doctest
import importlib

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


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))

    assert result.failed == 0
    assert result.attempted > 0
