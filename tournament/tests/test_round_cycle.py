"""One round lifecycle for a round-by-round format: the test-only format (tournament/tests/formats.py, which
no module of the application knows) paired as a draft, reviewed, edited, published and unpaired through the
API and the control room; strangers and bad input refused with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games.models import Player
from tournament import services
from tournament.models import AuditLog, Match, Round, Stage
from tournament.services.rounds import round_pair, round_publish
from tournament.tests.browser import account
from tournament.tests.formats import RoundsThenFinal
from tournament.tests.helpers import open_game, win

pytestmark = pytest.mark.django_db


def cycle_stage(players: int = 4, organizer: Any = None) -> Stage:
    tournament = services.tournament_create(name="Rounds cup", first_stage=RoundsThenFinal.kind)
    if organizer is not None:
        tournament.organizers.add(organizer)
    for n in range(players):
        services.register(tournament=tournament, player=Player.objects.create(name=f"R{n}"))
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    return stage


def api(user: Any) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


def pairs_of(stage: Stage, number: int) -> list[tuple[int, int]]:
    matches = Match.objects.filter(group__stage=stage, round=number).exclude(status=Match.Status.CANCELLED)
    return [(m.first_id, m.second_id) for m in matches.order_by("order")]


def test_the_test_format_is_paired_reviewed_edited_and_published_through_the_api(test_format: Any) -> None:
    boss = account("boss", "organizer")
    stage = cycle_stage(organizer=boss)
    client = api(boss)

    paired = client.post(f"/api/rounds/{stage.pk}/pair/")
    assert paired.status_code == 201, paired.content
    body = paired.json()
    assert (body["draft"], body["next_round"]) == (1, 2)
    draft = body["rounds"][0]
    assert draft["status"] == "draft" and len(draft["boards"]) == 2 and not draft["edited"]
    assert pairs_of(stage, 1) == []  # a draft makes no match

    (a, b), (c, d) = ((x["first"], x["second"]) for x in draft["boards"])
    edited = client.post(
        f"/api/rounds/{stage.pk}/edit/", {"round": 1, "action": "swap", "first": b, "second": d, "reason": "clubmates"}
    )
    assert edited.status_code == 200, edited.content
    after = edited.json()["rounds"][0]
    assert [(x["first"], x["second"]) for x in after["boards"]] == [(a, d), (c, b)]
    assert after["engine_boards"] == [[a, b], [c, d]] and after["edited"]
    assert after["edits"][0]["reason"] == "clubmates"

    published = client.post(f"/api/rounds/{stage.pk}/publish/", {"round": 1})
    assert published.status_code == 200, published.content
    assert published.json()["rounds"][0]["status"] == "published"
    assert pairs_of(stage, 1) == [(a, d), (c, b)]  # the edited pairing, not the program's
    assert Match.objects.filter(group__stage=stage, round=1, status=Match.Status.CALLED).count() == 2
    again = client.post(f"/api/rounds/{stage.pk}/publish/", {"round": 1})
    assert again.status_code == 200 and len(pairs_of(stage, 1)) == 2  # publishing twice makes nothing twice

    refused = client.post(f"/api/rounds/{stage.pk}/pair/")
    assert (refused.status_code, refused.json()["code"]) == (409, "round_unfinished")
    actions = list(AuditLog.objects.filter(tournament=stage.tournament).values_list("action", flat=True))
    assert [x for x in actions if x.startswith("round_")] == ["round_pair", "round_edit", "round_publish"]


def test_a_rematch_made_by_hand_is_warned_and_the_round_closes_with_its_last_match(test_format: Any) -> None:
    stage = cycle_stage()
    round_publish(stage=stage, number=round_pair(stage=stage).number)
    first_round = pairs_of(stage, 1)
    for match in Match.objects.filter(group__stage=stage, round=1):
        win(open_game(match), None)
    assert Round.objects.get(stage=stage, number=1).status == Round.Status.CLOSED

    draft = round_pair(stage=stage)
    (a, b), (c, d) = first_round
    partner = {a: b, b: a, c: d, d: c}
    x = draft.boards[0][0]
    on_other_board = next(e for e in draft.boards[1] if e == partner[x])
    on_first_board = draft.boards[0][1]
    edited = services.rounds.round_edit(
        stage=stage, number=2, action="swap", first=on_first_board, second=on_other_board, reason="test", actor=None
    )
    warnings = edited.edits[-1]["warnings"]
    assert {"code": "rematch", "entries": [x, partner[x]]} in warnings


def test_unpair_takes_back_a_draft_and_an_unplayed_round_but_not_a_begun_one(test_format: Any) -> None:
    stage = cycle_stage()
    boss = account("boss", "organizer")
    client = api(boss)
    stage.tournament.organizers.add(boss)
    round_pair(stage=stage)
    assert client.post(f"/api/rounds/{stage.pk}/unpair/", {"round": 1}).status_code == 200
    assert not Round.objects.filter(stage=stage).exists()

    round_publish(stage=stage, number=round_pair(stage=stage).number)
    assert client.post(f"/api/rounds/{stage.pk}/unpair/", {"round": 1}).status_code == 200
    assert pairs_of(stage, 1) == [] and not Round.objects.filter(stage=stage).exists()

    round_publish(stage=stage, number=round_pair(stage=stage).number)
    game = open_game(Match.objects.filter(group__stage=stage, round=1, status=Match.Status.CALLED).first())
    assert game is not None and Round.objects.get(stage=stage).number == 1  # round 1 again, not 2
    win(game, game.black)  # a result reported over the board: the round has begun
    refused = client.post(f"/api/rounds/{stage.pk}/unpair/", {"round": 1})
    assert (refused.status_code, refused.json()["code"]) == (409, "round_started")
    assert len(pairs_of(stage, 1)) == 2


def test_strangers_and_bad_input_are_refused_and_nothing_is_written(test_format: Any) -> None:
    stage = cycle_stage()
    round_pair(stage=stage)
    host = account("host", "host")  # organizes tournaments of its own, not this one
    before = (Round.objects.count(), Match.objects.count(), AuditLog.objects.count())

    assert APIClient().post(f"/api/rounds/{stage.pk}/publish/", {"round": 1}).status_code == 401
    stranger = api(host).post(f"/api/rounds/{stage.pk}/publish/", {"round": 1})
    assert (stranger.status_code, stranger.json()["code"]) == (403, "not_organizer")
    player = api(account("someone", "player")).post(f"/api/rounds/{stage.pk}/unpair/", {"round": 1})
    assert player.status_code == 403

    boss = account("boss", "organizer")
    client = api(boss)
    bad = client.post(f"/api/rounds/{stage.pk}/edit/", {"round": 1, "action": "rotate", "first": 1, "reason": "x"})
    assert bad.status_code == 400 and bad.json()["message"]
    nobody = client.post(
        f"/api/rounds/{stage.pk}/edit/", {"round": 1, "action": "flip", "first": 999999, "reason": "x"}
    )
    assert (nobody.status_code, nobody.json()["code"]) == (400, "not_paired")
    no_reason = Round.objects.get(stage=stage).boards[0][0]
    blank = client.post(
        f"/api/rounds/{stage.pk}/edit/", {"round": 1, "action": "flip", "first": no_reason, "reason": " "}
    )
    assert blank.status_code == 400
    missing = client.post(f"/api/rounds/{stage.pk}/publish/", {"round": 7})
    assert (missing.status_code, missing.json()["code"]) == (404, "no_round")
    assert (Round.objects.count(), Match.objects.count(), AuditLog.objects.count()) == before
    assert Round.objects.get(stage=stage).status == Round.Status.DRAFT


def test_a_stage_paired_at_its_draw_has_no_round_to_pair_and_a_stage_without_lineups_none_to_close() -> None:
    tournament = services.tournament_create(name="Groups", preset="seed")
    boss = account("boss", "organizer")
    refused = api(boss).post(f"/api/rounds/{tournament.stages.order_by('order').first().pk}/pair/")
    assert (refused.status_code, refused.json()["code"]) == (409, "paired_at_draw")
    swiss = services.tournament_create(name="Swiss open", preset="swiss", stage_options={"rounds": 3})
    no_lineups = api(boss).post(f"/api/rounds/{swiss.stages.get().pk}/close-lineups/")
    assert (no_lineups.status_code, no_lineups.json()["code"]) == (409, "no_lineups")


def test_the_control_room_runs_the_cycle(test_format: Any) -> None:
    stage = cycle_stage()
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(account("boss", "organizer"))
    room = f"/organizer/t/{stage.tournament_id}/"
    assert "Pair round 1" in client.get(room).content.decode()

    def act(action: str, **fields: Any) -> str:
        client.post(f"{room}{action}/", {"stage": stage.pk, **fields})
        return client.get(room).content.decode()

    page = act("round-pair")
    assert "Round 1 paired" in page and "Publish" in page
    (a, b), (c, d) = Round.objects.get(stage=stage).boards
    page = act("round-edit", round=1, change="swap", first=a, second=c, reason="by hand")
    assert "by hand" in page and Round.objects.get(stage=stage).boards == [[c, b], [a, d]]
    page = act("round-publish", round=1)
    assert "Round 1 published" in page
    assert pairs_of(stage, 1) == [(c, b), (a, d)]


def test_a_draft_and_the_reasons_of_its_edits_are_the_organizers_until_published(test_format: Any) -> None:
    boss = account("boss", "organizer")
    stage = cycle_stage(organizer=boss)
    draft = round_pair(stage=stage)
    (a, _b), (c, _d) = draft.boards
    services.rounds.round_edit(stage=stage, number=1, action="swap", first=a, second=c, reason="his cousin")
    url = f"/api/rounds/{stage.pk}/"

    for stranger in (APIClient(), api(account("someone", "player")), api(account("host", "host"))):
        seen = stranger.get(url)
        assert seen.status_code == 200
        assert seen.json()["rounds"] == [] and seen.json()["draft"] is None
        assert "his cousin" not in seen.content.decode()
    mine = api(boss).get(url).json()
    assert mine["draft"] == 1 and mine["rounds"][0]["edits"][0]["reason"] == "his cousin"

    round_publish(stage=stage, number=1)
    public = APIClient().get(url).json()
    assert [r["number"] for r in public["rounds"]] == [1] and public["next_round"] == 2
