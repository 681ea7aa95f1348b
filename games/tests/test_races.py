"""Two submissions for the same ply at the same moment: exactly one is stored; the same move sent twice (a
client's retry) is answered as stored, a different one is refused."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games.models import Move
from games.services import GameError, game_act, game_create
from games.tests.factories import PlayerFactory

# Stones two points apart never make a five or a foul, so the game runs on.
POINTS = [f"{'abcdefghijklmno'[c]}{r + 1}" for c in range(0, 15, 2) for r in range(0, 15, 2)][:40]


@pytest.mark.pg_django
@pytest.mark.django_db(transaction=True)
def test_concurrent_twin_submissions_for_one_ply_store_exactly_one_move() -> None:
    game = game_create(player_one=PlayerFactory(), player_two=PlayerFactory())
    outcomes: list[str] = []

    def submit(player_id: int, point: str, ply: int, barrier: threading.Barrier) -> None:
        from games.models import Player

        try:
            player = Player.objects.get(pk=player_id)
            barrier.wait()
            game_act(game_id=game.pk, player=player, action=f"place {point}", expected_ply=ply)
            outcomes.append("stored")
        except GameError as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    for ply, point in enumerate(POINTS):
        player = game.player_one if ply % 2 == 0 else game.player_two
        barrier = threading.Barrier(2)
        threads = [threading.Thread(target=submit, args=(player.pk, point, ply, barrier)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert outcomes.count("stored") == 2 * len(POINTS)  # one stored, its twin answered as that stored move
    assert list(Move.objects.filter(game=game).values_list("ply", flat=True)) == list(range(1, len(POINTS) + 1))
    assert connection.vendor == "postgresql"
