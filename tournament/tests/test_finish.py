"""The end of a game is one explicit path (games.services.finish): the result is written, then what follows
in the tournament runs in a savepoint of its own; a follow-up that fails cannot undo the result, is kept in
the outbox and done by the sweeper's next pass. Only before the write may an organizer's correction be refused."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.enums import GameStatus
from games.models import FollowUp, Game
from games.services import GameError, finish, game_finish, games_settle_due, retry_follow_ups
from tournament.models import Match
from tournament.services import outcomes
from tournament.tests.helpers import correct, open_game, parse, started, win

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def broken_tournament(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The tournament's part of a game's end fails (a bug, a lost connection) until the list is emptied."""
    faults = ["boom"]
    real = outcomes.match_sync

    def failing(**kwargs: Any) -> Match:
        if faults:
            raise RuntimeError(faults[0])
        return real(**kwargs)

    monkeypatch.setattr(outcomes, "match_sync", failing)
    yield faults


def _best_of_three() -> tuple[Match, Game]:
    _tournament, stage = started(2)
    match = Match.objects.get(group__stage=stage)
    game = open_game(match)
    assert game is not None
    return match, game


def test_a_failing_follow_up_leaves_the_result_and_is_done_by_the_next_sweep(broken_tournament: list[str]) -> None:
    match, game = _best_of_three()
    first = match.first.player

    ended = win(game, first)

    assert (ended.status, ended.result) == (GameStatus.FINISHED, "black" if ended.black_id == first.pk else "white")
    follow_up = FollowUp.objects.get(game=game)
    assert follow_up.done_at is None and follow_up.attempts == 1 and "boom" in follow_up.error
    assert Match.objects.get(pk=match.pk).match_games.count() == 1  # the tournament has not moved on yet

    assert retry_follow_ups() == 0  # still failing: kept, tried again later
    broken_tournament.clear()
    games_settle_due()  # the sweeper's pass retries the outbox

    follow_up.refresh_from_db()
    assert follow_up.done_at is not None and follow_up.attempts == 3
    assert Match.objects.get(pk=match.pk).match_games.count() == 2  # the match's next game was called


def test_the_follow_up_runs_once_for_an_ended_game() -> None:
    match, game = _best_of_three()
    win(game, match.first.player)
    again = game_finish(game=Game.objects.get(pk=game.pk), result="draw", reason="agreement")  # changes nothing

    game.refresh_from_db()
    assert again.status == GameStatus.FINISHED and again.result == game.result != "draw"

    assert list(FollowUp.objects.filter(game=game).values_list("attempts", flat=True)) == [1]
    assert FollowUp.objects.filter(done_at=None).count() == 0


def test_a_correction_refused_before_the_write_is_not_made(monkeypatch: pytest.MonkeyPatch) -> None:
    match, game = _best_of_three()
    first, second = match.first.player, match.second.player
    win(game, first)

    def refuse(game: Game, result: str, reason: str) -> None:
        raise GameError("next_stage_started", "refused")

    monkeypatch.setattr(finish, "GUARDS", [refuse])
    with pytest.raises(GameError):
        correct(Game.objects.get(pk=game.pk), second)

    game.refresh_from_db()
    assert game.result == ("black" if game.black_id == first.pk else "white")  # the earlier result stands
    assert FollowUp.objects.filter(game=game, correction=True).count() == 0


def test_a_follower_cannot_refuse_a_correction(broken_tournament: list[str]) -> None:
    """What follows a correction only follows: a failure leaves the corrected result and the follow-up kept."""
    broken_tournament.clear()
    match, game = _best_of_three()
    first, second = match.first.player, match.second.player
    win(game, first)
    broken_tournament.append("next_stage_started")

    correct(Game.objects.get(pk=game.pk), second)

    game.refresh_from_db()
    assert game.result == ("black" if game.black_id == second.pk else "white")
    follow_up = FollowUp.objects.get(game=game, correction=True)
    assert follow_up.done_at is None and "next_stage_started" in follow_up.error


def _finished_writes(source: str) -> list[int]:
    """Lines that write a finished status: ``.update(status=…FINISHED)``, ``{"status": …FINISHED}``,
    ``x.status = …FINISHED``."""

    def finished(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "FINISHED"

    lines = []
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("update", "create", "update_or_create"):
            lines += [node.lineno for k in node.keywords if k.arg == "status" and finished(k.value)]
        if isinstance(node, ast.Dict):
            lines += [
                node.lineno
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and k.value == "status" and finished(v)
            ]
        if isinstance(node, ast.Assign) and finished(node.value):
            lines += [node.lineno for t in node.targets if isinstance(t, ast.Attribute) and t.attr == "status"]
    return lines


def test_nothing_but_the_finisher_ends_a_game() -> None:
    """No module but games/services/base.py (the columns a game ends with, used only by the finisher)
    writes a game's finished status: every cause of a game's end goes through the one path."""
    assert _finished_writes("Game.objects.filter(pk=1).update(status=GameStatus.FINISHED)") == [1]
    writers = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "games").rglob("*.py")
        if "tests" not in path.parts and _finished_writes(path.read_text(encoding="utf-8"))
    }
    assert writers == {"games/services/base.py"}
    users = {
        path.relative_to(ROOT).as_posix()
        for package in ("games", "tournament")
        for path in (ROOT / package).rglob("*.py")
        if "tests" not in path.parts and "finished_fields(" in path.read_text(encoding="utf-8")
    }
    assert users == {"games/services/base.py", "games/services/finish.py"}
