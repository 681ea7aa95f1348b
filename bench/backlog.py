"""A fair-play screening backlog for bench/open.py ``--screening N``: the worker busy through the whole round.

In a real round games end all the time, and each finished online game of a tournament is screened on the
``fairplay`` queue by a worker of its own, niced as ``make run`` starts it (scripts/run.py). The bench's window
has no game ending, so the backlog is made before it: ``N`` online games of another tournament, played to
their end through the real services by synthetic club players (fairplay.synthetic: the computer's level 3
with human-like noise), whose screenings wait on the queue while no fair-play worker runs. The worker is
started as the round begins and works through them during it; the run reports how many it screened in the
window and what CPU it took, apart from the round's own CPU a move.
"""

from __future__ import annotations

from typing import Any

from stack import online_swiss


def make_backlog(count: int, run: int) -> Any:
    """``count`` finished online games of a tournament of their own, each queued for its screening; the
    tournament."""
    from django.db import connection

    from engine.rules import find_rules
    from fairplay.synthetic import PROFILES, Honest, play
    from games.enums import GameStatus
    from games.models import Game
    from games.services import game_act, game_resign
    from tournament import services

    rules = find_rules("freestyle")
    try:
        tournament, _tokens = online_swiss(f"Screened {run}", 2 * count, 1, f"screened{run}-")
        stage = services.start_stage(stage=services.draw_stage(stage=tournament.stages.get(order=1), seed=run))
        services.pair_next_round(stage=stage)
        games = Game.objects.filter(match_game__match__tournament=tournament).select_related("black", "white")
        for n, game in enumerate(games.order_by("pk")):
            club = PROFILES["club"]
            stones, times = play(Honest(club, rules, 2 * n + run), Honest(club, rules, 2 * n + run + 1), rules)
            for ply, (point, think) in enumerate(zip(stones, times, strict=True)):
                mover = game.black if ply % 2 == 0 else game.white
                game_act(game_id=game.pk, player=mover, action=f"place {point}", expected_ply=ply, think_ms=think)
            if Game.objects.get(pk=game.pk).status != GameStatus.FINISHED:
                game_resign(game_id=game.pk, player=game.white)
        return tournament
    finally:
        connection.close()


def screened(tournament: Any) -> int:
    """The backlog's games screened so far (both players)."""
    from django.db import connection

    from fairplay.models import Screening

    try:
        return Screening.objects.filter(tournament=tournament).values("game").distinct().count()
    finally:
        connection.close()


def waiting() -> int:
    """Screenings waiting on the ``fairplay`` queue (Redis lists named after it, one per priority step)."""
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    return sum(int(client.llen(key)) for key in client.scan_iter(match="fairplay*") if client.type(key) == b"list")
