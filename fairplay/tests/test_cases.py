"""Cases, as the referees and the players meet them: a finished online game screened, a case decided by two
referees who agree, its games annulled through the results' own corrections (the standings follow), an appeal
heard by a third referee (never one who decided), reports and their limits, a live position refused to the
analysis, and nobody seeing a case that is not theirs to see."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from celery import current_app
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from fairplay import services
from fairplay.models import Case, FocusLoss, Screening
from fairplay.screening import SETTINGS, screen
from fairplay.tests.helpers import live_and_asking, opened_case, played, referee_of, round_one
from games.models import Game, Player
from games.services import GameError, game_act, game_create, game_resign
from games.services.practice import practice_start
from games.tests.factories import UserFactory
from ratings.models import RatedGame
from ratings.tasks import rate_and_recompute
from tournament import services as tournament_services
from tournament.models import Tournament
from tournament.swiss.selectors import standings
from tournament.tests.browser import account
from tournament.tests.helpers import online_swiss, started

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

    def watched(*args: Any, **kwargs: Any) -> Any:
        depths.append(len(connection.atomic_blocks))
        return screen(*args, **kwargs)

    monkeypatch.setattr("fairplay.services.screen", watched)
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


def test_only_a_tournaments_online_game_ending_sends_a_screening(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[Any] = []
    monkeypatch.setattr(current_app.tasks["fairplay.screen_game"], "apply_async", lambda a, **_k: sent.append(a))
    _tournament, games = round_one()
    one, two = Player.objects.create(name="Casual One"), Player.objects.create(name="Casual Two")
    casual = game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick")
    with django_capture_on_commit_callbacks(execute=True):
        game_act(game_id=casual.pk, player=one, action="place h8", expected_ply=0)
        game_resign(game_id=casual.pk, player=two)
    assert sent == []  # never screened: nothing sent (a publish costs the request the broker's round trip)
    with django_capture_on_commit_callbacks(execute=True):
        game = played(games[0])
    assert sent == [(game.pk,)]


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


def test_games_annulled_after_the_event_ended_re_derive_its_standings_and_ratings(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """Decisions often come after the event: the annulment goes through the finished tournament's corrections,
    the standings follow and the rating lists are told (their task re-rates the event's games)."""
    tournament, games = round_one()
    Tournament.objects.filter(pk=tournament.pk).update(rated=True)
    stage = tournament.stages.get(order=1)
    first_game = played(games[0])
    played(games[1])
    for _round in range(2):  # rounds 2 and 3: the event ends
        tournament_services.pair_next_round(stage=stage)
        for game in Game.objects.filter(match_game__match__tournament=tournament).exclude(status="finished"):
            played(game)
    assert tournament_services.advance(stage=stage) is None  # the only stage: the event ends
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert rate_and_recompute(tournament.pk) == 2  # the gomoku lists: WHR and Elo
    assert RatedGame.objects.get(game=first_game).result == "B"
    before = scores(stage)
    case = opened_case(tournament, first_game)
    published: list[Any] = []
    task = current_app.tasks["ratings.rate_and_recompute"]
    monkeypatch.setattr(task, "apply_async", lambda args, **_kw: published.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ref1", "ref2"):
            services.decide(case_id=case.pk, user=referee_of(tournament, name), outcome="annulled")
    first_game.refresh_from_db()
    assert (first_game.result, first_game.result_reason) == ("white", "referee")
    assert published and published[-1] == (tournament.pk,)  # the lists told of the correction
    rate_and_recompute(tournament.pk)
    assert RatedGame.objects.get(game=first_game).result == "W"
    after = scores(stage)
    assert first_game.black is not None and first_game.white is not None
    assert after[first_game.black.name] == before[first_game.black.name] - 1
    assert after[first_game.white.name] == before[first_game.white.name] + 1
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"


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
    # the queue: the event's referee finds the case there; a referee of another event sees an empty queue
    other_event = online_swiss(4, name="Rival open")
    rival_referee = referee_of(other_event, "rivalref")
    name = Player.objects.get(pk=case.player_id).name
    for user, listed in ((referee, True), (rival_referee, False)):
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        queue = client.get("/fairplay/")
        assert queue.status_code == 200 and (name in queue.content.decode()) is listed, user
        assert (f"/fairplay/case/{case.pk}/" in queue.content.decode()) is listed


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


def test_the_case_page_shows_the_matches_found_only_deep_beside_z() -> None:
    tournament, games = round_one()
    case = opened_case(tournament, played(games[0]))
    Case.objects.filter(pk=case.pk).update(
        stats={**case.stats, "deep_only": 4, "deep_matches": 9, "deep_expected": 0.8, "z_deep": 3.58}
    )
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(referee_of(tournament, "ref1"))
    page = client.get(f"/fairplay/case/{case.pk}/").content.decode()
    assert "4 of the 9 matches were the engine's choice only past its first 3 depths" in page
    assert "about 0.8 (z = 3.58)" in page


def test_a_reporters_record_weighs_their_reports_on_the_case_page() -> None:
    tournament, games = round_one()
    upheld_game, dismissed_game = played(games[0]), played(games[1])
    upheld_case, dismissed_case = opened_case(tournament, upheld_game), opened_case(tournament, dismissed_game)
    assert upheld_game.white_id is not None and dismissed_game.white_id is not None
    sharp = Player.objects.get(pk=upheld_game.white_id)
    wrong = Player.objects.get(pk=dismissed_game.white_id)
    services.report(game_id=upheld_game.pk, reporter=sharp, note="flat times")
    services.report(game_id=dismissed_game.pk, reporter=wrong)
    assert [r["weight"] for r in services.reports_about(upheld_case)] == [0.5]  # no record yet
    referees = referee_of(tournament, "ref1"), referee_of(tournament, "ref2")
    for referee in referees:
        services.decide(case_id=upheld_case.pk, user=referee, outcome="warning")
        services.decide(case_id=dismissed_case.pk, user=referee, outcome="no_action")
    assert services.reporter_record(sharp) == (1, 1) and services.reporter_record(wrong) == (0, 1)
    assert [round(r["weight"], 3) for r in services.reports_about(upheld_case)] == [0.667]
    assert [round(r["weight"], 3) for r in services.reports_about(dismissed_case)] == [0.333]
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(referees[0])
    page = client.get(f"/fairplay/case/{upheld_case.pk}/").content.decode()
    assert f"{sharp.name}, after game #{upheld_game.pk} (weight 0.67: 1 of their 1 judged reports upheld)" in page
    assert "flat times" in page and wrong.name not in page


def test_the_analysis_refuses_a_position_standing_in_a_game_the_requester_plays() -> None:
    api = live_and_asking(["h8", "h9", "j10"], "referee")[1]
    refused = api.post("/api/games/analyse-position/", {"moves": "j10 h9 h8", "rules": "freestyle"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "live_position"  # in any order
    other = api.post("/api/games/analyse-position/", {"moves": "h8 h9 j11", "rules": "freestyle"}, format="json")
    assert other.status_code == 200


def test_a_live_games_record_imported_as_finished_is_not_analysed_for_its_player() -> None:
    """An organizer who plays in an online event imports the live game's stones and one more as a finished
    game naming themselves: its analysis would read the live position. Refused; any other record is not."""
    game, api = live_and_asking(["h8", "h9", "j10", "g7"], "organizer")
    assert game.black is not None and game.white is not None
    for stones, expected in (("h8 h9 j10 g7 a1", 403), ("h8 h9 j10 g8 a1", 202)):
        text = f'[Black "{game.black.name}"]\n[White "{game.white.name}"]\n[Rule "freestyle"]\n'
        imported = api.post("/api/games/import/", {"text": f'{text}[Result "1-0"]\n\n{stones}\n'}, format="json")
        assert imported.status_code == 201, imported.json()
        asked = api.post(f"/api/games/{imported.json()['id']}/analysis/", {}, format="json")
        assert asked.status_code == expected, asked.json()
        assert expected == 202 or asked.json()["code"] == "live_position"


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


def test_only_a_game_of_an_event_counts_the_page_losing_the_focus_and_only_its_page_says_it() -> None:
    _tournament, games = round_one()
    event_game = games[0]
    assert event_game.black is not None and event_game.black.user is not None
    user = UserFactory()
    player = Player.objects.create(name="Practising", user=user)
    practice = practice_start(player=player, level=2)
    on_move = practice.ply  # seat 1: the player moves first
    assert not services.focus_lost(game_id=practice.pk, player=player, ply=on_move)
    assert not FocusLoss.objects.exists()

    def page_config(user: Any, game: Game) -> dict[str, Any]:
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        page = client.get(f"/g/{game.pk}/").content.decode()
        config: dict[str, Any] = json.loads(
            page.split('id="game-config" type="application/json">')[1].split("</script>")[0]
        )
        return config

    assert page_config(event_game.black.user, event_game)["focus_signal"] is True
    assert page_config(user, practice)["focus_signal"] is False


def test_the_sweep_finds_a_finished_game_whose_screening_was_missed() -> None:
    _tournament, games = round_one()
    game = played(games[0])
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(minutes=5))
    assert services.unscreened(10) == [game.pk]
    services.screen_game(game.pk)
    assert services.unscreened(10) == []
