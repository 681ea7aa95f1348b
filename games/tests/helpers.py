"""Shared by the games tests: a human player for practice games, and running the computer's queued tasks as
the worker would."""

from __future__ import annotations

from typing import Any

from games.services.analysis import analysis_run
from games.services.computer import computer_turn
from games.tests.factories import PlayerFactory, UserFactory


def human() -> Any:
    return PlayerFactory(user=UserFactory(username="practiser", role="player"))


def run_computer(calls: list[tuple[str, tuple[Any, ...], str]]) -> list[str]:
    """Run the computer tasks sent so far (as the worker would), until none is left."""
    done = []
    while calls:
        name, args, queue = calls.pop(0)
        assert queue in ("computer", "engines")
        if name == "computer_move":
            done.append(computer_turn(*args))
        else:
            done.append(analysis_run(*args))
    return done
