"""The computer's turns and a game's analysis served by a real Celery worker on the ``computer`` queue
(prefork, as ``make run`` starts it), on a real Redis, against PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

import pytest

from games.models import Analysis, Game, GameEvent, Move
from games.services import game_act, game_import
from games.services.analysis import analysis_request
from games.services.practice import practice_start
from games.tests.factories import PlayerFactory, UserFactory

pytestmark = [pytest.mark.pg_django, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def wait_for(check: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return False


def test_the_worker_plays_the_computers_turns_within_the_clock(computer_worker: Any) -> None:
    me = PlayerFactory(user=UserFactory(username="worker-practiser", role="player"))
    game = practice_start(player=me, level=3, protocol="rif", time_control="quick", seat=2)
    # The computer is player one of RIF: its three opening stones, then player two's swap decision.
    assert wait_for(lambda: Game.objects.get(pk=game.pk).ply == 3, 30), Move.objects.filter(game=game).count()
    game_act(game_id=game.pk, player=me, action="swap", expected_ply=3)  # the human takes black
    assert wait_for(lambda: Game.objects.get(pk=game.pk).ply == 5, 30)  # white's fourth stone: the computer's
    moves = list(Move.objects.filter(game=game).order_by("ply").values_list("player_number", "kind"))
    assert moves[:3] == [(1, "place")] * 3 and moves[3] == (2, "swap") and moves[4] == (1, "place")
    assert GameEvent.objects.filter(game=game, interface="computer", kind="action").count() == 4
    game.refresh_from_db()
    assert game.status == "opening" or game.status == "playing"
    assert all(
        ms >= 0 for m in Move.objects.filter(game=game, player_number=1) for ms in [m.clock_ms.get("used_ms", 0)]
    )


def test_the_worker_analyses_a_finished_game(computer_worker: Any) -> None:
    one, two = PlayerFactory(), PlayerFactory()
    text = (
        f'[Black "{one.name}"]\n[White "{two.name}"]\n[Result "0-1"]\n[Reason "resignation"]\n\n'
        "h8 g8 i8 a1 j8 a3 k9 a5 k10 o15 b2 n14\n"
    )
    game = game_import(text=text)
    analysis_request(game=game)
    assert wait_for(lambda: Analysis.objects.get(game=game).status == Analysis.Status.DONE, 30)
    marks = {m["number"]: m for m in Analysis.objects.get(game=game).marks}
    assert marks[11]["missed"] and marks[11]["win"]["line"][:3] == ["k8", "l8", "k7"]


def test_the_worker_plays_a_registered_engines_turns_through_the_gomocup_protocol(computer_worker: Any) -> None:
    from games.services.engines import engine_register

    ours = engine_register(
        name="Ours (pbrain)",
        command="builtin",
        rules=["renju"],
        levels={str(n): {"turn_ms": 500, "level": 2} for n in range(1, 6)},
    )
    me = PlayerFactory(user=UserFactory(username="engine-practiser", role="player"))
    game = practice_start(player=me, level=2, rules="renju", time_control="quick", seat=2, engine=ours)
    assert wait_for(lambda: Game.objects.get(pk=game.pk).ply == 1, 30)  # the engine's first stone, in a worker
    from engine import parse_point
    from games.selectors import game_state

    board = game_state(Game.objects.get(pk=game.pk)).board
    mine = next(p for p in ("h9", "j9") if board.is_empty(parse_point(p)))
    game_act(game_id=game.pk, player=me, action=f"place {mine}", expected_ply=1)
    assert wait_for(lambda: Game.objects.get(pk=game.pk).ply == 3, 30)
    assert GameEvent.objects.filter(game=game, interface="computer", kind="move").count() == 2
    game.refresh_from_db()
    assert game.status == "playing" and game.player_one.engine == ours
