"""Fixtures shared by the games tests."""

from __future__ import annotations

from typing import Any

import pytest

from games import tasks


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...], str]]:
    """Tasks sent to the computer queue, recorded instead of published: (task, args, queue)."""
    calls: list[tuple[str, tuple[Any, ...], str]] = []

    def recorder(name: str) -> Any:
        def apply_async(args: tuple[Any, ...], queue: str = "", **_kw: Any) -> None:
            calls.append((name, tuple(args), queue))

        return apply_async

    monkeypatch.setattr(tasks.computer_move, "apply_async", recorder("computer_move"))
    monkeypatch.setattr(tasks.analyse_game, "apply_async", recorder("analyse_game"))
    return calls
