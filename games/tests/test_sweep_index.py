"""The sweep looks for overdue no-shows every second: by an index, not by reading every game (SQLite's plan)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games.enums import GameStatus
from games.models import Game, Player
from games.selectors import clocks_due, online_games_running, overdue_no_shows
from games.services import game_create

pytestmark = pytest.mark.django_db


def test_the_overdue_no_shows_are_found_by_their_index() -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    games = [game_create(player_one=one, player_two=two) for _ in range(3)]
    now = timezone.now()
    Game.objects.filter(pk=games[0].pk).update(absent_player=one, absent_deadline=now - timedelta(seconds=1))
    Game.objects.filter(pk=games[1].pk).update(absent_player=two, absent_deadline=now + timedelta(minutes=5))

    assert list(overdue_no_shows(now, 500)) == [games[0].pk]
    if connection.vendor == "sqlite":
        plan = overdue_no_shows(now, 500).explain()
        assert "game_absent_deadline" in plan, plan


def test_the_online_games_in_progress_are_counted_on_their_own_index_and_the_sweep_keeps_its_own() -> None:
    """The capacity's count (games.selectors.online_room) reads the partial index of the games in progress; the
    clock sweep's queries, several a second, still read theirs (an index on status took them off once)."""
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    games = [game_create(player_one=one, player_two=two) for _ in range(3)]
    Game.objects.filter(pk=games[0].pk).update(status=GameStatus.FINISHED)
    Game.objects.filter(pk=games[1].pk).update(mode="otb")

    assert online_games_running() == 1
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            queries: list[str] = []

            def noted(execute: Any, sql: str, *rest: Any) -> Any:
                queries.append(sql)
                return execute(sql, *rest)

            with connection.execute_wrapper(noted):
                online_games_running()
            cursor.execute(f"EXPLAIN QUERY PLAN {queries[0]}")
            assert "game_in_progress" in str(cursor.fetchall())
        assert "game_deadline" in clocks_due(timezone.now()).explain()
        assert "game_absent_deadline" in overdue_no_shows(timezone.now(), 500).explain()
