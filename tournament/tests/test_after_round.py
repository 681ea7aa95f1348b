"""Standings as they stood after round N (``?after_round=N``) for the group formats, the Swiss and team events,
each held against points re-derived here from the games of those rounds alone."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.models import Game, Player
from tournament import services
from tournament.models import Match
from tournament.tests.helpers import pair_and_publish, play_round, started, win

pytestmark = pytest.mark.django_db


def points_from_games(games: list[Game], win_points: int, draw_points: int) -> Counter[int]:
    """Each player's points (by player id) from these finished games only."""
    points: Counter[int] = Counter()
    for game in games:
        if game.result == "draw":
            points[game.black_id] += draw_points
            points[game.white_id] += draw_points
        else:
            points[game.black_id if game.result == "black" else game.white_id] += win_points
    return points


def test_the_groups_after_round_one_count_round_one_and_nobody_has_qualified_yet(client: Any) -> None:
    tournament, stage = started(8)
    services.publish(tournament=tournament)
    rng = random.Random(4)
    for number in (1, 2):
        for match in Match.objects.filter(group__stage=stage, round=number):
            for game in Game.objects.filter(match_game__match=match).select_related("black", "white"):
                win(game, rng.choice([game.black, game.white, None]))
            for game in Game.objects.filter(match_game__match=match, status__in=["pending", "opening", "playing"]):
                win(game, rng.choice([game.black, game.white, None]))  # the second game of the pair, once called

    first = list(
        Game.objects.filter(match_game__match__group__stage=stage, match_game__match__round=1).exclude(result="")
    )
    expected = points_from_games(first, 2, 1)
    player_of = dict(tournament.entries.values_list("pk", "player_id"))
    payload = client.get(f"/api/tournaments/{tournament.pk}/standings/?after_round=1").json()
    rows = [row for group in payload[0]["groups"] for row in group["rows"]]
    assert len(rows) == 8
    assert {row["entry"]: row["points"] for row in rows} == {e: expected[p] for e, p in player_of.items()}
    assert {row["state"] for row in rows} == {""}  # round 3 is still to come as of round 1
    now = client.get(f"/api/tournaments/{tournament.pk}/standings/").json()
    assert [r["points"] for g in now[0]["groups"] for r in g["rows"]] != [r["points"] for r in rows]


def test_the_swiss_after_round_one_scores_round_one_only(client: Any) -> None:
    tournament = services.tournament_create(name="Swiss", preset="swiss", stage_options={"rounds": 3})
    for n in range(6):
        services.register(tournament=tournament, player=Player.objects.create(name=f"S{n}", rating=2000 - n))
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    rng = random.Random(9)
    pair_and_publish(stage)
    play_round(stage, rng)
    first = list(Game.objects.filter(match_game__match__group__stage=stage).exclude(result=""))
    pair_and_publish(stage)
    play_round(stage, rng)

    expected = points_from_games(first, 2, 1)  # in halves
    player_of = dict(tournament.entries.values_list("pk", "player_id"))
    after = client.get(f"/api/swiss/{stage.pk}/?after_round=1").json()
    assert {row["entry"]: row["score"] for row in after["standings"]["rows"]} == {
        e: expected[p] / 2 for e, p in player_of.items()
    }
    assert len(after["rounds"]) == 2  # the rounds themselves are all still listed
    now = client.get(f"/api/swiss/{stage.pk}/").json()
    assert sum(r["score"] for r in now["standings"]["rows"]) == 6  # two rounds of three games


@pytest.mark.parametrize("value", ["x", "-1", "1.5", "²", "9999"])
def test_an_after_round_that_is_not_a_round_number_is_refused_by_name(client: Any, value: str) -> None:
    tournament, _stage = started(4)
    services.publish(tournament=tournament)
    answer = client.get(f"/api/tournaments/{tournament.pk}/standings/", {"after_round": value})
    assert answer.status_code == 400
    assert answer.json()["code"] == "bad_after_round" and "after_round" in answer.json()["message"]
    chinese = client.get(
        f"/api/tournaments/{tournament.pk}/standings/", {"after_round": value}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert "after_round" in chinese.json()["message"] and "轮" in chinese.json()["message"]
