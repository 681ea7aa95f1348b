"""The sweep looks for overdue no-shows every second: by an index, not by reading every game (SQLite's plan)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game, Player
from games.selectors import overdue_no_shows
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
