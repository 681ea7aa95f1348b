"""A round's clocks start, and a burst of its flags is settled, in short transactions: SQLite lets one writer
in at a time, and the moves of every other game wait behind the one that holds it. What follows the ended
games in the tournament runs after their results are written, outside those transactions (issue 43: one
pass of a round's flags held the lock 0.6–1.8 s, and the clocks of a round 2.7 s, with the moves waiting)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games.enums import GameStatus
from games.models import FollowUp, Game
from games.services import finish, games_settle_due, play, retry_follow_ups, timing
from tournament import services
from tournament.models import Tournament
from tournament.tests.helpers import online_swiss

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: what a transaction holds is the point


def pair_round_one(tournament: Tournament) -> list[Game]:
    stage = services.start_stage(stage=services.draw_stage(stage=tournament.stages.get(order=1), seed=3))
    services.pair_next_round(stage=stage)
    return list(Game.objects.filter(match_game__match__tournament=tournament).order_by("pk"))


class Commits:
    """What ``probe()`` read just before each real commit of the test's connection."""

    def __init__(self) -> None:
        self.probe: Callable[[], int] | None = None
        self.seen: list[int] = []

    def counts(self) -> list[int]:
        return [n for n in self.seen if n]


@pytest.fixture
def commits(monkeypatch: pytest.MonkeyPatch) -> Commits:
    spy = Commits()
    real = connection._commit  # type: ignore[attr-defined]  # Django's private hook, wrapped for the test only

    def spying() -> None:
        if spy.probe is not None:
            spy.seen.append(spy.probe())
        real()

    monkeypatch.setattr(connection, "_commit", spying)
    return spy


def test_a_rounds_clocks_start_a_few_games_a_transaction(monkeypatch: pytest.MonkeyPatch, commits: Commits) -> None:
    monkeypatch.setattr(play, "START_CHUNK", 2)
    tournament = online_swiss(10)
    commits.probe = lambda: Game.objects.filter(
        match_game__match__tournament=tournament, deadline__isnull=False
    ).count()

    games = pair_round_one(tournament)

    assert len(games) == 5
    assert all(game.deadline is not None for game in games)  # every clock runs
    assert commits.counts() == [2, 4, 5]  # one transaction per two games, each committed before the next began


def test_a_burst_of_flags_is_written_a_few_games_a_transaction_and_followed_after(
    monkeypatch: pytest.MonkeyPatch, commits: Commits
) -> None:
    tournament = online_swiss(10)
    games = pair_round_one(tournament)
    ids = [game.pk for game in games]
    monkeypatch.setattr(timing, "SETTLE_CHUNK", 2)
    followed: list[tuple[int, list[str], int]] = []

    def spy(game: Game, correction: bool, actor: Any) -> None:  # a follower: where it runs, and what is written
        running = Game.objects.filter(pk__in=ids, status__in=GameStatus.active()).count()
        followed.append((game.pk, list(connection.savepoint_ids), running))

    monkeypatch.setattr(finish, "FOLLOWERS", [*finish.FOLLOWERS, spy])
    commits.probe = lambda: Game.objects.filter(pk__in=ids, status=GameStatus.FINISHED).count()

    later = max(game.deadline for game in games if game.deadline is not None) + timedelta(seconds=1)
    assert games_settle_due(at=later, path="sweeper") == 5

    assert commits.counts()[:3] == [2, 4, 5]  # the results: two games a transaction
    assert sorted(pk for pk, _savepoints, _running in followed) == ids
    # Each follow-up ran after every result was written, in a transaction of its own (not a savepoint of the
    # settling one), and the tournament's own follower did its part: the round is complete.
    assert all(savepoints == [] and running == 0 for _pk, savepoints, running in followed)
    assert FollowUp.objects.filter(game_id__in=ids, done_at=None).count() == 0
    assert all(g.result_reason == "time" for g in Game.objects.filter(pk__in=ids))


def test_a_follow_up_in_flight_is_left_to_its_writer_and_one_dropped_is_picked_up() -> None:
    tournament = online_swiss(2)
    game = pair_round_one(tournament)[0]
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED, result="draw", result_reason="agreement")
    dropped = FollowUp.objects.create(game=game)  # its writer stopped before running it

    assert retry_follow_ups() == 0  # fresh: its writer may be running it now
    dropped.refresh_from_db()
    assert (dropped.done_at, dropped.attempts) == (None, 0)

    assert retry_follow_ups(at=timezone.now() + finish.IN_FLIGHT + timedelta(seconds=1)) == 1
    dropped.refresh_from_db()
    assert dropped.done_at is not None and dropped.attempts == 1


def test_the_results_written_before_a_failing_chunk_are_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    games = pair_round_one(online_swiss(10))
    monkeypatch.setattr(timing, "SETTLE_CHUNK", 2)
    real, calls = timing._settle_due, []

    def second_fails(*args: Any) -> Any:
        calls.append(args[0])
        if len(calls) == 2:
            raise RuntimeError("the database went away")
        return real(*args)

    monkeypatch.setattr(timing, "_settle_due", second_fails)
    later = max(game.deadline for game in games if game.deadline is not None) + timedelta(seconds=1)
    with pytest.raises(RuntimeError):
        games_settle_due(at=later, path="sweeper")

    first = calls[0]
    assert Game.objects.filter(pk__in=first, result_reason="time").count() == 2
    assert FollowUp.objects.filter(game_id__in=first, done_at__isnull=False).count() == 2  # followed at once
    assert Game.objects.filter(status__in=GameStatus.active()).count() == 3  # the rest waits for the next pass
