"""A team event run through the one round API alone, as a federation would drive it: created, its teams
entered, drawn and started through the API; each round paired as a draft of team pairs, edited (home and away
flipped, two teams swapped, with the warnings kept), published, its lineups sent by a captain and closed by the
organizer, played, and the next round paired; a round unpaired before it starts takes its team matches and
lineups with it. A second organizer on the same server and a player are refused, with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from games.models import Game, Player
from tournament.models import AuditLog, Lineup, Match, Round, TeamMatch
from tournament.tests.helpers import OPEN, win

pytestmark = pytest.mark.django_db

TEAMS = ["Estonia", "Russia", "Japan", "Sweden"]


def client_for(username: str, role: str) -> tuple[Any, APIClient]:
    user = get_user_model().objects.create_user(username)
    user.groups.add(Group.objects.get(name=role))
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return user, client


def team_event(client: APIClient, lineup_minutes: int = 30) -> int:
    options = {"boards": 2, "reserves": 0, "system": "round_robin", "lineup_minutes": lineup_minutes}
    created = client.post(
        "/api/tournaments/", {"name": "Team cup", "preset": "teams", "stage_options": options}, format="json"
    )
    assert created.status_code == 201, created.content
    tid, stage = created.json()["id"], created.json()["stages"][0]["id"]
    for name in TEAMS:
        players = [{"name": f"{name} {n}", "rating": 2000 - n} for n in (1, 2)]
        entered = client.post(f"/api/team-events/{stage}/team/", {"name": name, "players": players}, format="json")
        assert entered.status_code == 201, entered.content
    assert client.post(f"/api/tournaments/{tid}/draw/", {"stage": stage, "seed": 7}, format="json").status_code == 200
    assert client.post(f"/api/tournaments/{tid}/start-stage/", {"stage": stage}, format="json").status_code == 200
    return int(stage)


def team_ids(client: APIClient, stage: int) -> dict[str, int]:
    return {t["name"]: t["id"] for t in client.get(f"/api/team-events/{stage}/").json()["teams"]}


def test_a_team_event_is_paired_edited_published_its_lineups_closed_and_played_through_the_round_api() -> None:
    _boss, client = client_for("federation", "organizer")
    stage = team_event(client)
    names = {v: k for k, v in team_ids(client, stage).items()}

    paired = client.post(f"/api/rounds/{stage}/pair/")
    assert paired.status_code == 201, paired.content
    draft = paired.json()["rounds"][0]
    assert (draft["number"], draft["status"], paired.json()["draft"]) == (1, "draft", 1)
    assert {b["first_name"] for b in draft["boards"]} | {b["second_name"] for b in draft["boards"]} == set(TEAMS)
    assert not TeamMatch.objects.exists()  # a draft writes no team match
    first, second = draft["boards"][0]["first"], draft["boards"][1]["first"]

    flipped = client.post(
        f"/api/rounds/{stage}/edit/", {"round": 1, "action": "flip", "first": first, "reason": "hall"}, format="json"
    )
    assert flipped.status_code == 200, flipped.content
    board = flipped.json()["rounds"][0]["boards"][0]
    assert (board["second"], board["second_name"]) == (first, names[first])
    swapped = client.post(
        f"/api/rounds/{stage}/edit/",
        {"round": 1, "action": "swap", "first": first, "second": second, "reason": "travel"},
        format="json",
    )
    assert swapped.status_code == 200 and swapped.json()["rounds"][0]["edited"]
    shown = swapped.json()["rounds"][0]["boards"]

    published = client.post(f"/api/rounds/{stage}/publish/", {"round": 1}, format="json")
    assert published.status_code == 200 and published.json()["rounds"][0]["status"] == "published"
    made = list(TeamMatch.objects.order_by("order").values_list("home_id", "away_id"))
    assert made == [(b["first"], b["second"]) for b in shown]  # the edited draft is what was published
    assert not Match.objects.exists()  # the lineups are awaited (30 minutes)

    round_1 = client.get(f"/api/team-events/{stage}/").json()["rounds"][0]["matches"]
    one = round_1[0]
    home_players = [
        p["entry"]
        for t in client.get(f"/api/team-events/{stage}/").json()["teams"]
        if t["id"] == one["home"]["id"]
        for p in t["players"]
    ]
    sent = client.post(
        f"/api/team-events/{stage}/lineup/",
        {"team_match": one["id"], "team": one["home"]["id"], "entries": home_players},
        format="json",
    )
    assert sent.status_code == 200, sent.content
    refused = client.post(f"/api/rounds/{stage}/pair/")
    assert (refused.status_code, refused.json()["code"]) == (409, "round_unfinished")

    closed = client.post(f"/api/rounds/{stage}/close-lineups/")
    assert closed.status_code == 200, closed.content
    assert Match.objects.count() == 4  # two team matches of two boards
    assert Lineup.objects.filter(fallback=True).count() == 3  # the three lineups not sent: the standing order
    boards = [b for m in client.get(f"/api/team-events/{stage}/").json()["rounds"][0]["matches"] for b in m["boards"]]
    assert all(b["match"] and b["game"] for b in boards)

    for game in Game.objects.filter(status__in=OPEN).select_related("black", "white"):
        win(game, game.black)
    rounds = client.get(f"/api/rounds/{stage}/").json()
    assert rounds["rounds"][0]["status"] == "closed" and rounds["next_round"] == 2
    second_round = client.post(f"/api/rounds/{stage}/pair/")
    assert second_round.status_code == 201 and second_round.json()["draft"] == 2
    pairs = {frozenset((b["first"], b["second"])) for b in second_round.json()["rounds"][0]["boards"]}
    assert not pairs & {frozenset(p) for p in made}  # the round robin's next round: no team meets again
    actions = list(AuditLog.objects.filter(action__startswith="round_").values_list("action", flat=True))
    assert actions[:4] == ["round_pair", "round_edit", "round_edit", "round_publish"]


def test_an_edit_that_pairs_two_teams_again_is_kept_with_its_warning() -> None:
    _boss, client = client_for("federation", "organizer")
    stage = team_event(client, lineup_minutes=0)
    client.post(f"/api/rounds/{stage}/pair/")
    client.post(f"/api/rounds/{stage}/publish/", {"round": 1}, format="json")
    met = TeamMatch.objects.order_by("order").first()
    assert met is not None
    for game in Game.objects.filter(status__in=OPEN).select_related("black", "white"):
        win(game, game.white)
    draft = client.post(f"/api/rounds/{stage}/pair/").json()["rounds"][0]["boards"]
    # swap so that round 1's first pair meets again
    partner = next(b for b in draft if met.home_id in (b["first"], b["second"]))
    other = next(b for b in draft if b is not partner)
    moving = partner["second"] if partner["first"] == met.home_id else partner["first"]
    assert met.away_id in (other["first"], other["second"])
    edited = client.post(
        f"/api/rounds/{stage}/edit/",
        {"round": 2, "action": "swap", "first": moving, "second": met.away_id, "reason": "asked"},
        format="json",
    ).json()
    warnings = edited["rounds"][0]["edits"][-1]["warning_texts"]
    assert warnings and warnings[0].startswith("a rematch")


def test_a_round_unpaired_before_it_starts_takes_its_team_matches_and_lineups_with_it() -> None:
    _boss, client = client_for("federation", "organizer")
    stage = team_event(client, lineup_minutes=0)
    client.post(f"/api/rounds/{stage}/pair/")
    client.post(f"/api/rounds/{stage}/publish/", {"round": 1}, format="json")
    assert (TeamMatch.objects.count(), Lineup.objects.count(), Match.objects.count()) == (2, 4, 4)
    taken = client.post(f"/api/rounds/{stage}/unpair/", {"round": 1}, format="json")
    assert taken.status_code == 200, taken.content
    assert (TeamMatch.objects.count(), Lineup.objects.count(), Round.objects.count()) == (0, 0, 0)
    assert not Match.objects.exclude(status=Match.Status.CANCELLED).exists()
    again = client.post(f"/api/rounds/{stage}/pair/")
    assert again.status_code == 201 and again.json()["rounds"][0]["number"] == 1


def test_a_round_whose_board_has_begun_cannot_be_unpaired() -> None:
    _boss, client = client_for("federation", "organizer")
    stage = team_event(client, lineup_minutes=0)
    client.post(f"/api/rounds/{stage}/pair/")
    client.post(f"/api/rounds/{stage}/publish/", {"round": 1}, format="json")
    game = Game.objects.filter(status__in=OPEN).first()
    assert game is not None
    win(game, game.black)
    refused = client.post(f"/api/rounds/{stage}/unpair/", {"round": 1}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "round_started")
    assert TeamMatch.objects.count() == 2


def test_a_second_organizer_and_a_player_cannot_pair_edit_publish_or_close_anothers_team_rounds() -> None:
    _boss, client = client_for("federation", "organizer")
    stage = team_event(client)
    client.post(f"/api/rounds/{stage}/pair/")
    _rival, rival = client_for("rival", "host")
    rival.post("/api/tournaments/", {"name": "Rival cup", "preset": "teams"}, format="json")
    player_user, player = client_for("captain", "player")
    Player.objects.filter(name=f"{TEAMS[0]} 1").update(user=player_user)
    before = (Round.objects.get().boards, TeamMatch.objects.count(), AuditLog.objects.count())
    for stranger in (rival, player, APIClient()):
        for path, body in (
            ("pair/", {}),
            ("edit/", {"round": 1, "action": "flip", "first": Round.objects.get().boards[0][0], "reason": "x"}),
            ("publish/", {"round": 1}),
            ("unpair/", {"round": 1}),
            ("close-lineups/", {}),
        ):
            answer = stranger.post(f"/api/rounds/{stage}/{path}", body, format="json")
            assert answer.status_code in (401, 403, 404), (path, answer.status_code)
    assert (Round.objects.get().boards, TeamMatch.objects.count(), AuditLog.objects.count()) == before
    assert player.get(f"/api/rounds/{stage}/").json()["rounds"] == []  # the draft is the organizer's
