"""Records fed from elsewhere: pushes with a key of their own scope (one tournament, pushes only), a round's
records uploaded after it (all or nothing), and the result sheet that settles a relayed game."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Game
from games.services import game_rule
from relay.models import Correction, PushToken, RelayMove
from tournament import services
from tournament.models import Stage
from tournament.tests.browser import account
from tournament.tests.helpers import started

pytestmark = pytest.mark.django_db
RIF = ["place h8", "place h9", "place j10", "no-swap", "place h6", "offer g8 j11", "choose j11", "place k11"]


def client(user: Any = None, key: str = "") -> APIClient:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        api.force_authenticate(user)
    if key:
        api.credentials(HTTP_AUTHORIZATION=f"Relay {key}")
    return api


def games_of(stage: Stage) -> list[Game]:
    return list(
        Game.objects.filter(match_game__match__group__stage=stage)
        .select_related("player_one", "player_two")
        .order_by("pk")
    )


def entries(game: Game) -> list[str]:
    return list(RelayMove.objects.filter(game=game).order_by("ply").values_list("text", flat=True))


def a_key(user: Any, tournament_id: int, name: str = "federation feed") -> str:
    made = client(user).post("/api/relay/keys/", {"tournament": tournament_id, "name": name}, format="json")
    assert made.status_code == 201, made.content
    return str(made.json()["key"])


def plain(actions: list[str]) -> str:
    return " ".join("{" + a + "}" for a in actions) + "\n"


def test_a_push_appends_what_is_new_leaves_a_repeat_alone_and_corrects_openly() -> None:
    tournament, stage = started(4, preset="renju-rif")
    game = games_of(stage)[0]
    key = a_key(account("boss", "organizer"), tournament.pk)
    feed = client(key=key)

    first = feed.post(f"/api/relay/{game.pk}/push/", {"record": plain(RIF[:4])}, format="json")
    assert (first.status_code, first.json()["outcome"]) == (201, "appended")
    again = feed.post(f"/api/relay/{game.pk}/push/", {"record": plain(RIF[:4])}, format="json")
    assert (again.status_code, again.json()["outcome"]) == (200, "unchanged")
    grown = feed.post(f"/api/relay/{game.pk}/push/", plain(RIF), content_type="text/plain")  # the body itself
    assert (grown.status_code, grown.json()["outcome"]) == (201, "appended")
    assert entries(game) == RIF and not Correction.objects.filter(game=game).exists()

    fixed = [*RIF[:7], "place l12"]
    changed = feed.post(f"/api/relay/{game.pk}/push/", {"record": plain(fixed)}, format="json")
    assert (changed.status_code, changed.json()["outcome"]) == (201, "corrected")
    assert entries(game) == fixed
    correction = Correction.objects.get(game=game)
    assert (correction.from_ply, correction.removed, correction.added) == (8, ["place k11"], ["place l12"])
    assert "federation feed" in correction.reason
    public = client().get(f"/api/relay/{game.pk}/").json()
    assert public["corrections"][0]["from_ply"] == 8  # everyone sees it was corrected

    bad = feed.post(f"/api/relay/{game.pk}/push/", {"record": plain([*fixed, "place h8"])}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_entry"  # an occupied point: nothing written
    assert entries(game) == fixed


def test_a_rif_push_holds_the_opening_steps() -> None:
    tournament, stage = started(4, preset="renju-rif")
    boss = account("boss", "organizer")
    source, target = games_of(stage)[:2]
    api = client(boss)
    for ply, action in enumerate(RIF):
        assert (
            api.post(f"/api/relay/{source.pk}/enter/", {"ply": ply, "action": action}, format="json").status_code == 201
        )
    rif = api.get(f"/api/relay/{source.pk}/record/", {"as": "rif"}).content.decode()
    answer = client(key=a_key(boss, tournament.pk)).post(
        f"/api/relay/{target.pk}/push/", rif, content_type="application/xml"
    )
    assert answer.status_code == 201, answer.content
    assert entries(target) == RIF


def test_a_push_key_reaches_its_tournaments_pushes_and_nothing_else() -> None:
    tournament, stage = started(4, preset="renju-rif")
    other, other_stage = started(4, preset="renju-rif")
    boss = account("boss", "organizer")
    key = a_key(boss, tournament.pk)
    feed = client(key=key)
    mine, theirs = games_of(stage)[0], games_of(other_stage)[0]
    record = {"record": plain(RIF[:2])}

    assert feed.post(f"/api/relay/{theirs.pk}/push/", record, format="json").status_code == 404  # not its tournament
    assert feed.post(f"/api/relay/{mine.pk}/enter/", {"ply": 0, "action": "place h8"}, format="json").status_code in (
        401,
        403,
    )
    assert feed.get("/api/me/").status_code in (401, 403)  # not a sign-in
    assert feed.post("/api/relay/keys/", {"tournament": tournament.pk, "name": "more"}, format="json").status_code in (
        401,
        403,
    )
    assert entries(mine) == [] and entries(theirs) == []

    user_token = Token.objects.create(user=boss).key  # the organizer's own API token is not a push key
    signed_in = APIClient(HTTP_AUTHORIZATION=f"Token {user_token}")
    assert signed_in.post(f"/api/relay/{mine.pk}/push/", record, format="json").status_code in (401, 403)
    forged = client(key=key + "x")
    assert forged.post(f"/api/relay/{mine.pk}/push/", record, format="json").status_code == 401

    rival = account("rival", "host")
    assert (
        client(rival)
        .post("/api/relay/keys/", {"tournament": tournament.pk, "name": "mine now"}, format="json")
        .status_code
        == 403
    )
    token = PushToken.objects.get(tournament=tournament)
    assert client(rival).post(f"/api/relay/keys/{token.pk}/revoke/").status_code == 403
    assert client(boss).post(f"/api/relay/keys/{token.pk}/revoke/").status_code == 200
    revoked = feed.post(f"/api/relay/{mine.pk}/push/", record, format="json")
    assert revoked.status_code == 401 and entries(mine) == []
    assert PushToken.objects.filter(digest__contains=key).count() == 0  # only a digest is kept


def test_a_board_recorded_at_the_table_takes_no_pushes() -> None:
    tournament, stage = started(4, preset="renju-rif")
    boss = account("boss", "organizer")
    game = games_of(stage)[0]
    assert (
        client(boss).post(f"/api/relay/{game.pk}/enter/", {"ply": 0, "action": "place h8"}, format="json").status_code
        == 201
    )
    pushed = client(key=a_key(boss, tournament.pk)).post(
        f"/api/relay/{game.pk}/push/", {"record": plain(RIF[:3])}, format="json"
    )
    assert pushed.status_code == 409 and pushed.json()["code"] == "recorded_at_board"
    assert entries(game) == ["place h8"]


def rif_of(games: list[tuple[Game, list[str]]]) -> str:
    players: dict[str, int] = {}
    for game, _actions in games:
        players[game.player_one.name] = len(players) + 1
        players[game.player_two.name] = len(players) + 1
    people = "".join(f'<player id="{n}" name="{name}"/>' for name, n in players.items())
    body = "".join(
        f'<game id="{i}" black="{players[g.player_one.name]}" white="{players[g.player_two.name]}" rule="1">'
        f"<actions>{plain(actions).strip()}</actions></game>"
        for i, (g, actions) in enumerate(games, start=1)
    )
    rules = '<rules><rule id="1" name="renju"/></rules>'
    return f"<database><players>{people}</players>{rules}<games>{body}</games></database>"


def test_a_rounds_records_typed_after_it_are_uploaded_all_or_nothing() -> None:
    tournament, stage = started(4, preset="renju-rif")
    boss = account("boss", "organizer")
    one, two = games_of(stage)[:2]
    api = client(boss)
    second = [*RIF[:7], "place l12"]

    broken = rif_of([(one, RIF), (two, [*RIF, "place h8"])])  # the second stone on an occupied point
    refused = api.post("/api/relay/upload/", {"tournament": tournament.pk, "rif": broken}, format="json")
    assert refused.status_code == 400 and entries(one) == [] and entries(two) == []  # nothing half-written

    done = api.post(
        "/api/relay/upload/", {"tournament": tournament.pk, "rif": rif_of([(one, RIF), (two, second)])}, format="json"
    )
    assert done.status_code == 200, done.content
    assert {g["game"]: g["outcome"] for g in done.json()["games"]} == {one.pk: "appended", two.pk: "appended"}
    assert (entries(one), entries(two)) == (RIF, second)

    by_id = api.post(
        "/api/relay/upload/",
        {"tournament": tournament.pk, "records": [{"game": one.pk, "record": plain(second)}]},
        format="json",
    )
    assert by_id.status_code == 200 and entries(one) == second
    assert Correction.objects.filter(game=one, reason="uploaded after the round").count() == 1

    rival = account("rival", "host")
    theirs = client(rival).post(
        "/api/relay/upload/", {"tournament": tournament.pk, "rif": rif_of([(one, RIF)])}, format="json"
    )
    assert theirs.status_code == 403 and entries(one) == second
    stranger = services.tournament_create(name="Another", preset="renju-rif")
    foreign = api.post(
        "/api/relay/upload/",
        {"tournament": stranger.pk, "records": [{"game": one.pk, "record": plain(RIF)}]},
        format="json",
    )
    assert foreign.status_code == 404 and entries(one) == second  # a game of another tournament


def test_the_result_sheet_settles_the_game_and_supersedes_a_relayed_record_that_differs() -> None:
    tournament, stage = started(4, preset="seed")
    boss = account("boss", "organizer")
    api = client(boss)
    agreeing, differing = games_of(stage)[:2]
    assert api.post("/api/relay/delay/", {"stage": stage.pk, "minutes": 30}, format="json").status_code == 200
    now = timezone.now()
    with time_machine.travel(now, tick=False):
        for game in (agreeing, differing):
            for ply, point in enumerate(["h8", "h9", "j10", "j9"]):
                entered = api.post(
                    f"/api/relay/{game.pk}/enter/", {"ply": ply, "action": f"place {point}"}, format="json"
                )
                assert entered.status_code == 201
        assert client().get(f"/api/relay/{differing.pk}/").json()["ply"] == 0  # the public waits thirty minutes
        game_rule(game_id=agreeing.pk, result="black", reason="resignation", record="h8 h9 j10 j9", actor=boss)
        game_rule(game_id=differing.pk, result="black", reason="resignation", record="h8 h9 j10 g7 k11", actor=boss)
        same, sheet = (client().get(f"/api/relay/{g.pk}/").json() for g in (agreeing, differing))
        assert (same["settled"], same["ply"], same["result"]) == (False, 4, "black")  # over: shown at once
        assert (sheet["settled"], sheet["position"]["stones"]) == (True, ["h8", "h9", "j10", "g7", "k11"])
        assert [m["action"] for m in sheet["moves"]][-1] == "place k11"
        boards = {b["game"]: b for b in client().get(f"/api/relay/boards/{tournament.pk}/").json()["boards"]}
        assert boards[differing.pk]["stones"] == ["h8", "h9", "j10", "g7", "k11"]
        assert "result sheet" in boards[differing.pk]["meta"] and boards[agreeing.pk]["stones"] == [
            "h8",
            "h9",
            "j10",
            "j9",
        ]
        late = api.post(f"/api/relay/{differing.pk}/enter/", {"ply": 4, "action": "place k11"}, format="json")
        assert late.status_code == 409 and late.json()["code"] == "game_over"


def test_the_public_view_says_when_it_next_changes_by_itself() -> None:
    _tournament, stage = started(4, preset="seed")
    boss = account("boss", "organizer")
    game = games_of(stage)[0]
    api = client(boss)
    assert api.post("/api/relay/delay/", {"stage": stage.pk, "minutes": 2}, format="json").status_code == 200
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        assert (
            api.post(f"/api/relay/{game.pk}/enter/", {"ply": 0, "action": "place h8"}, format="json").status_code == 201
        )
        clock.move_to(start + timedelta(seconds=30))
        assert (
            api.post(f"/api/relay/{game.pk}/enter/", {"ply": 1, "action": "place h9"}, format="json").status_code == 201
        )
        view = client().get(f"/api/relay/{game.pk}/").json()
        assert view["ply"] == 0 and view["refresh_at"] == pytest.approx((start + timedelta(minutes=2)).timestamp())
        clock.move_to(start + timedelta(minutes=2, seconds=1))
        view = client().get(f"/api/relay/{game.pk}/").json()
        assert view["ply"] == 1 and view["refresh_at"] == pytest.approx(
            (start + timedelta(minutes=2, seconds=30)).timestamp()
        )
        assert api.get(f"/api/relay/{game.pk}/").json()["refresh_at"] is None  # the organizer sees it all now
