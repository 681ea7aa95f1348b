"""Cases, as the referees and the players meet them: a finished online game screened, a case decided by two
referees who agree, its games annulled through the results' own corrections (the standings follow), an appeal
heard by a third referee (never one who decided), reports and their limits, a live position refused to the
analysis, and nobody seeing a case that is not theirs to see."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from fairplay import services
from fairplay.models import Case, FocusLoss, Screening
from fairplay.screening import SETTINGS
from fairplay.tests.helpers import opened_case, played, referee_of, round_one
from games.models import Game, Player
from games.services import GameError, game_act, game_create, game_resign
from games.tests.factories import UserFactory
from tournament.swiss.selectors import standings
from tournament.tests.browser import account
from tournament.tests.helpers import started

pytestmark = pytest.mark.django_db


def scores(stage: Any) -> dict[str, float]:
    """The Swiss standings' scores, by player."""
    return {row["player"]: row["score"] for row in standings(stage)["rows"]}


def test_a_finished_online_game_is_screened_for_both_players_with_its_settings() -> None:
    _tournament, games = round_one()
    game = played(games[0])
    found = services.screen_game(game.pk)
    assert {s.player_id for s in found} == {game.black_id, game.white_id}
    black = Screening.objects.get(game=game, player=game.black)
    assert black.settings == SETTINGS.to_dict() and len(black.moves) == 4
    assert black.moves[0]["forced"] == "opening" and all(isinstance(m["think_ms"], int) for m in black.moves)
    assert services.screen_game(game.pk) and Screening.objects.filter(game=game).count() == 2  # once per player


def test_the_search_holds_no_transaction_while_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """On SQLite a transaction holds the write lock from its start: a screening's seconds inside one would hold
    every move of every game (bench/open.py --screening found it)."""
    _tournament, games = round_one()
    game = played(games[0])
    outer = len(connection.atomic_blocks)  # the test's own transaction
    depths: list[int] = []
    real = services.screen

    def watched(*args: Any, **kwargs: Any) -> Any:
        depths.append(len(connection.atomic_blocks))
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "screen", watched)
    assert len(services.screen_game(game.pk)) == 2
    assert depths == [outer]


def test_a_game_over_the_board_or_outside_a_tournament_is_not_screened() -> None:
    tournament, _stage = started(4, preset="seed")
    otb = Game.objects.filter(match_game__match__tournament=tournament).first()
    assert otb is not None and services.screen_game(otb.pk) == []
    one, two = Player.objects.create(name="Casual One"), Player.objects.create(name="Casual Two")
    casual = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    game_act(game_id=casual.pk, player=one, action="place h8", expected_ply=0)
    game_resign(game_id=casual.pk, player=two)
    assert Game.objects.get(pk=casual.pk).status == "finished"
    assert services.screen_game(casual.pk) == [] and not Screening.objects.filter(game=casual).exists()


def test_two_referees_who_agree_decide_and_annulled_games_change_the_standings() -> None:
    tournament, games = round_one()
    game = played(games[0])
    case = opened_case(tournament, game)
    stage = tournament.stages.get(order=1)
    before = scores(stage)
    first, second, stranger = referee_of(tournament, "ref1"), referee_of(tournament, "ref2"), UserFactory()
    with pytest.raises(GameError) as refused:
        services.decide(case_id=case.pk, user=stranger, outcome="annulled")  # not a referee of this event
    assert refused.value.code == "no_case" and not case.decisions.exists()

    services.decide(case_id=case.pk, user=first, outcome="annulled", note="matches the engine on every move")
    case.refresh_from_db()
    assert case.status == "open"  # one referee is not enough
    with pytest.raises(GameError) as twice:
        services.decide(case_id=case.pk, user=first, outcome="annulled")
    assert twice.value.code == "already_decided"
    services.decide(case_id=case.pk, user=second, outcome="warning")
    assert Case.objects.get(pk=case.pk).status == "open"  # they disagree: still open
    third = referee_of(tournament, "ref3")
    services.decide(case_id=case.pk, user=third, outcome="annulled", note="and the times are flat")
    case.refresh_from_db()
    assert (case.status, case.outcome) == ("decided", "annulled") and "matches the engine" in case.grounds
    game.refresh_from_db()
    assert game.result == "white" and game.result_reason == "referee"  # the cheater's win is a loss now
    after = scores(stage)
    assert game.black is not None and game.white is not None
    assert after[game.black.name] < before[game.black.name] and after[game.white.name] > before[game.white.name]


def test_the_player_appeals_and_a_referee_who_did_not_decide_hears_it() -> None:
    tournament, games = round_one()
    game = played(games[0])
    case = opened_case(tournament, game)
    first, second = referee_of(tournament, "ref1"), referee_of(tournament, "ref2")
    for referee in (first, second):
        services.decide(case_id=case.pk, user=referee, outcome="annulled")
    player = Player.objects.get(pk=case.player_id)
    stranger = UserFactory()
    with pytest.raises(GameError):
        services.appeal(case_id=case.pk, user=stranger, text="not me")  # only the case's player appeals
    assert player.user is not None
    services.appeal(case_id=case.pk, user=player.user, text="I was at the club, the arbiter saw me")
    with pytest.raises(GameError) as own:
        services.hear(case_id=case.pk, user=first, outcome="no_action")
    assert own.value.code == "decided_it"
    third = referee_of(tournament, "ref3")
    services.hear(case_id=case.pk, user=third, outcome="no_action", note="the arbiter's report clears him")
    case.refresh_from_db()
    assert (case.status, case.outcome) == ("closed", "no_action")
    game.refresh_from_db()
    assert game.result == "black" and game.result_reason == "resignation"  # the result restored


def test_nobody_sees_a_case_that_is_not_theirs_to_see() -> None:
    tournament, games = round_one()
    case = opened_case(tournament, played(games[0]))
    referee = referee_of(tournament, "ref1")
    rival = account("rival", "host")
    other_player = Player.objects.exclude(pk=case.player_id).exclude(user=None).first()
    assert other_player is not None and other_player.user is not None
    own = Player.objects.get(pk=case.player_id)
    assert own.user is not None
    for user, expected in ((referee, 200), (rival, 404), (other_player.user, 404), (own.user, 404)):
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        assert client.get(f"/fairplay/case/{case.pk}/").status_code == expected, user
        assert client.post(f"/fairplay/case/{case.pk}/decide/", {"outcome": "warning"}).status_code in (
            {302} if expected == 200 else {404}
        )
    assert Case.objects.get(pk=case.pk).status == "open" and case.decisions.count() == 1  # the referee's alone
    assert Client().get(f"/fairplay/case/{case.pk}/").status_code == 302  # to the sign-in


def test_a_player_reports_an_opponent_of_their_own_game_a_few_times_a_day() -> None:
    tournament, games = round_one()
    game = played(games[0])
    other = played(games[1])
    case = opened_case(tournament, game)
    assert game.white_id is not None
    reporter = Player.objects.get(pk=game.white_id)
    services.report(game_id=game.pk, reporter=reporter, note="too fast on hard moves")
    assert Case.objects.get(pk=case.pk).reported == 1
    with pytest.raises(GameError) as again:
        services.report(game_id=game.pk, reporter=reporter)
    assert again.value.code == "already_reported"
    with pytest.raises(GameError) as foreign:
        services.report(game_id=other.pk, reporter=reporter)  # not their game
    assert foreign.value.code == "not_your_game"


def test_the_analysis_refuses_a_position_standing_in_a_game_the_requester_plays() -> None:
    _tournament, games = round_one()
    game = games[0]
    assert game.black is not None and game.white is not None
    for ply, point in enumerate(["h8", "h9", "j10"]):
        mover = game.black if ply % 2 == 0 else game.white
        game_act(game_id=game.pk, player=mover, action=f"place {point}", expected_ply=ply)
    user = game.white.user
    assert user is not None
    user.groups.add(Group.objects.get(name="referee"))
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(user)
    refused = api.post("/api/games/analyse-position/", {"moves": "j10 h9 h8", "rules": "freestyle"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "live_position"  # in any order
    other = api.post("/api/games/analyse-position/", {"moves": "h8 h9 j11", "rules": "freestyle"}, format="json")
    assert other.status_code == 200


def test_assessments_are_deleted_with_the_players_data_and_after_their_time() -> None:
    tournament, games = round_one()
    case = opened_case(tournament, played(games[0]))
    player = Player.objects.get(pk=case.player_id)
    assert services.forget_player(player) >= 2
    assert not Case.objects.filter(player=player).exists() and not Screening.objects.filter(player=player).exists()


def test_the_page_losing_the_focus_counts_only_on_the_players_own_turn_once() -> None:
    _tournament, games = round_one()
    game = games[0]
    assert game.black is not None and game.white is not None and game.black.user is not None
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(game.black.user)
    assert api.post("/api/fairplay/focus/", {"game": game.pk, "ply": 0}, format="json").json() == {"kept": True}
    assert api.post("/api/fairplay/focus/", {"game": game.pk, "ply": 0}, format="json").json() == {"kept": False}
    assert not services.focus_lost(game_id=game.pk, player=game.white, ply=0)  # not white's turn
    assert not services.focus_lost(game_id=game.pk, player=game.black, ply=3)  # not the game's ply
    assert FocusLoss.objects.filter(game=game).count() == 1
    reported = api.post("/api/fairplay/report/", {"game": game.pk}, format="json")
    assert reported.status_code == 409 and reported.json()["code"] == "game_not_over"


def test_the_sweep_finds_a_finished_game_whose_screening_was_missed() -> None:
    _tournament, games = round_one()
    game = played(games[0])
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(minutes=5))
    assert services.unscreened(10) == [game.pk]
    services.screen_game(game.pk)
    assert services.unscreened(10) == []
