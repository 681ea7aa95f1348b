"""The ratings app listening to the tournament app (tournament.signals)."""

from __future__ import annotations

from typing import Any

from ratings.services import after_tournament, fix_start_ratings


def on_tournament_starting(sender: Any, tournament: Any, **_: Any) -> None:
    fix_start_ratings(tournament)


def on_tournament_finished(sender: Any, tournament: Any, **_: Any) -> None:
    after_tournament(tournament)
