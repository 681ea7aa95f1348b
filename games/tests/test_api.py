"""The games API over HTTP: reads, actions, stale plies and JSON errors."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.enums import ForbiddenMode, GameMode
from games.models import Game, Move
from games.services import game_create
from games.tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

T01 = ["g8", "a1", "i8", "c1", "h9", "e1", "h10", "k1"]


def user(name: str, role: str | None = None) -> Any:
    return UserFactory(username=name, role=role)


def client_for(account: Any = None, language: str = "en") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    if account is not None:
        client.force_authenticate(account)
    return client


@pytest.fixture
def seats() -> tuple[Any, Any]:
    return user("alice", "player"), user("bob", "player")


def new_game(seats: tuple[Any, Any], **kwargs: Any) -> Game:
    one = PlayerFactory(user=seats[0])
    two = PlayerFactory(user=seats[1])
    return game_create(player_one=one, player_two=two, **kwargs)


def move(client: APIClient, game: Game, ply: int, point: str) -> Any:
    return client.post(f"/api/games/{game.pk}/move/", {"ply": ply, "point": point}, format="json")


def test_players_play_a_game_to_a_five_and_everyone_reads_it(seats: tuple[Any, Any]) -> None:
    game = new_game(seats)
    alice, bob = client_for(seats[0]), client_for(seats[1])
    points = ["h8", "a1", "i8", "a3", "j8", "a5", "k8", "a7", "l8"]

    for ply, point in enumerate(points):
        response = move(alice if ply % 2 == 0 else bob, game, ply, point)
        assert response.status_code == 200, response.json()

    body = client_for().get(f"/api/games/{game.pk}/").json()
    assert (body["status"], body["result"], body["result_reason"]) == ("finished", "black", "five")
    assert body["position"]["stones"] == points
    assert [m["text"] for m in body["moves"]] == [f"place {p}" for p in points]


def test_a_repeated_move_is_answered_as_stored_and_a_different_one_for_that_ply_is_stale(
    seats: tuple[Any, Any],
) -> None:
    """A client that lost the answer sends the same move for the same ply again (bench/fairness.py does):
    it is answered with the game as it is, nothing stored twice; another move, or the opponent's, for a ply
    that has moved on is refused."""
    game = new_game(seats)
    alice, bob = client_for(seats[0]), client_for(seats[1])
    first = move(alice, game, 0, "h8")
    assert first.status_code == 200

    again = move(alice, game, 0, "h8")
    other = move(alice, game, 0, "h9")
    opponent = move(bob, game, 0, "h8")

    assert again.status_code == 200 and again.json()["ply"] == first.json()["ply"] == 1
    assert again.json()["clock"] == first.json()["clock"] or again.json()["position"] == first.json()["position"]
    assert (other.status_code, other.json()["code"]) == (409, "stale_ply")
    assert (opponent.status_code, opponent.json()["code"]) == (409, "stale_ply")
    assert Move.objects.filter(game=game).count() == 1


def test_errors_are_json_with_a_code_and_a_message_in_the_users_language(seats: tuple[Any, Any]) -> None:
    game = new_game(seats)
    move(client_for(seats[0]), game, 0, "h8")

    english = move(client_for(seats[1], "en"), game, 1, "h8").json()
    chinese = move(client_for(seats[1], "zh-hans"), game, 1, "h8").json()

    assert english == {"code": "occupied", "message": "That point is already occupied."}
    assert chinese["code"] == "occupied" and chinese["message"] != english["message"]


def test_malformed_input_is_a_400_with_fields(seats: tuple[Any, Any]) -> None:
    game = new_game(seats)

    response = client_for(seats[0]).post(f"/api/games/{game.pk}/move/", {"ply": -1}, format="json")

    body = response.json()
    assert response.status_code == 400
    assert body["code"] == "invalid" and "ply" in body["fields"]


def test_rif_opening_through_the_api_refuses_symmetric_offers(seats: tuple[Any, Any]) -> None:
    game = new_game(seats, protocol="rif")
    alice, bob = client_for(seats[0]), client_for(seats[1])
    script = [(alice, "place h8"), (alice, "place h9"), (alice, "place j10"), (bob, "no-swap"), (bob, "place i10")]
    for ply, (client, text) in enumerate(script):
        response = client.post(f"/api/games/{game.pk}/move/", {"ply": ply, "action": text}, format="json")
        assert response.status_code == 200, response.json()
    detail = client_for().get(f"/api/games/{game.pk}/").json()
    assert detail["position"]["opening"].startswith("3 3D")

    symmetric = bob.post(f"/api/games/{game.pk}/move/", {"ply": 5, "action": "offer g9 k11"}, format="json")

    assert symmetric.status_code == 400, symmetric.json()
    assert symmetric.json()["code"] == "protocol"


def test_claim_in_claim_mode_through_the_api(seats: tuple[Any, Any]) -> None:
    game = new_game(seats, forbidden_mode=ForbiddenMode.CLAIM)
    clients = client_for(seats[0]), client_for(seats[1])
    for ply, point in enumerate([*T01, "h8"]):
        assert move(clients[ply % 2], game, ply, point).status_code == 200

    response = clients[1].post(f"/api/games/{game.pk}/claim-forbidden/", {"move_number": 9}, format="json")

    assert response.status_code == 201
    assert (response.json()["status"], response.json()["verdict"]) == ("upheld", "double-three")
    assert client_for().get(f"/api/games/{game.pk}/").json()["result"] == "white"


@pytest.mark.parametrize(("language", "text"), [("en", "1 real three"), ("zh-hans", "活三")])
def test_a_rejected_claim_carries_the_engines_reason(seats: tuple[Any, Any], language: str, text: str) -> None:
    game = new_game(seats, forbidden_mode=ForbiddenMode.CLAIM)
    clients = client_for(seats[0], language), client_for(seats[1], language)
    for ply, point in enumerate(["g8", "a1", "i8", "c1", "h8"]):  # h8 makes one open three: legal
        assert move(clients[ply % 2], game, ply, point).status_code == 200

    response = clients[1].post(f"/api/games/{game.pk}/claim-forbidden/", {"move_number": 5}, format="json")

    body = response.json()
    assert (response.status_code, body["status"], body["verdict"]) == (201, "rejected", "none")
    assert text in body["reason"] and body["explanation"]["threes"] == 1 and body["explanation"]["fours"] == 0


def test_over_the_board_report_and_confirmation(seats: tuple[Any, Any]) -> None:
    game = new_game(seats, mode=GameMode.OVER_THE_BOARD)

    report = client_for(seats[0]).post(
        f"/api/games/{game.pk}/report-result/", {"result": "white", "reason": "resignation"}, format="json"
    )
    confirm = client_for(seats[1]).post(f"/api/games/{game.pk}/confirm-result/", {}, format="json")

    assert report.status_code == 201 and confirm.status_code == 200
    assert (confirm.json()["result"], confirm.json()["result_reason"]) == ("white", "resignation")


def test_record_export_as_text_and_rif(seats: tuple[Any, Any]) -> None:
    game = new_game(seats)
    move(client_for(seats[0]), game, 0, "h8")

    text = client_for().get(f"/api/games/{game.pk}/record/")
    rif = client_for().get(f"/api/games/{game.pk}/record/?as=rif")

    assert text.status_code == 200 and text.content.decode().rstrip().endswith("h8")
    assert rif["Content-Type"].startswith("application/xml") and b"<move>h8</move>" in rif.content


def test_private_games_are_hidden_from_the_public(seats: tuple[Any, Any]) -> None:
    game = new_game(seats, is_public=False)

    assert client_for().get(f"/api/games/{game.pk}/").status_code == 404
    assert client_for(seats[0]).get(f"/api/games/{game.pk}/").status_code == 200
    assert game.pk not in [g["id"] for g in client_for().get("/api/games/").json()["results"]]


@pytest.mark.parametrize("action", ["move", "pass"])
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_move_on_a_game_one_may_not_see_reads_as_one_that_is_not_there(
    seats: tuple[Any, Any], action: str, language: str
) -> None:
    """Moves read the game once, under its lock: the checks get_object made are made there, the same way."""
    one, two = PlayerFactory(user=seats[0]), PlayerFactory(user=seats[1])
    hidden = game_create(player_one=one, player_two=two, is_public=False)
    public = game_create(player_one=one, player_two=two)
    stranger = user("mallory", "player")
    PlayerFactory(user=stranger)
    body = {"ply": 0, "point": "h8"} if action == "move" else {"ply": 0}  # a pass takes no point (refused by name)

    def answer(account: Any, pk: Any) -> tuple[int, Any]:
        reply = client_for(account, language).post(f"/api/games/{pk}/{action}/", body, format="json")
        return reply.status_code, reply.json()

    missing = answer(stranger, 987654)
    assert missing[0] == 404 and missing[1]["code"] == "not_found"
    assert answer(stranger, hidden.pk) == missing
    assert answer(None, hidden.pk) == answer(None, public.pk) == answer(None, 987654)  # no account: the same refusal
    assert answer(None, hidden.pk)[0] in (401, 403)
    assert answer(stranger, "9" * 25) == missing
    assert answer(stranger, public.pk)[1]["code"] == "not_your_game"
    assert Move.objects.filter(game__in=[hidden, public]).count() == 0
    assert answer(seats[0], hidden.pk)[0] == 200  # its own player plays it


def test_schema_documents_every_action() -> None:
    schema = client_for().get("/api/schema/").content.decode()

    for action in [
        "move",
        "pass",
        "resign",
        "claim-forbidden",
        "report-result",
        "confirm-result",
        "dispute-result",
        "rule",
        "override",
        "record",
        "import",
    ]:
        assert f"/{action}/" in schema


@pytest.mark.parametrize(
    ("action", "body", "by_referee"),
    [
        ("move", {"ply": 0, "point": "h8"}, False),
        ("pass", {"ply": 0}, False),
        ("offer-draw", {}, False),
        ("answer-draw", {"accept": True}, False),
        ("resign", {}, False),
        ("clock", {"op": "start"}, True),
        ("clock", {"op": "add_time", "seat": 1, "ms": 30000, "target": "main"}, True),
    ],
)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_over_the_board_games_refuse_every_online_action(
    seats: tuple[Any, Any], action: str, body: dict[str, Any], by_referee: bool, language: str
) -> None:
    game = new_game(seats, mode=GameMode.OVER_THE_BOARD, time_control="quick")
    caller = seats[0]
    if by_referee:
        caller = user("ref", "referee")
        game.referees.add(caller)

    response = client_for(caller, language).post(f"/api/games/{game.pk}/{action}/", body, format="json")

    assert response.status_code == 409, response.json()
    assert response.json()["code"] == "over_the_board"
    expected = "线下" if language == "zh-hans" else "over the board"
    assert expected in response.json()["message"]
    game.refresh_from_db()
    assert (game.ply, game.status, game.deadline, game.clock["status"]) == (0, "playing", None, "waiting")
    assert not Move.objects.filter(game=game).exists()


@pytest.mark.parametrize(
    ("assigned", "language", "expected"), [("斜月", "en", 201), ("3d", "en", 201), ("长星", "zh-hans", 201)]
)
def test_an_organizer_creates_a_chinese_assigned_game_by_number_code_or_name(
    seats: tuple[Any, Any], assigned: str, language: str, expected: int
) -> None:
    one, two = PlayerFactory(user=seats[0]), PlayerFactory(user=seats[1])
    body = {
        "player_one": one.pk,
        "player_two": two.pk,
        "protocol": "chinese-assigned",
        "protocol_options": {"assigned_opening": assigned},
    }

    response = client_for(user("org", "organizer"), language).post("/api/games/", body, format="json")

    assert response.status_code == expected, response.json()
    assert response.json()["protocol_options"] == {"assigned_opening": assigned}


@pytest.mark.parametrize(("assigned", "language", "text"), [("99", "en", "no opening 99"), ("斜星", "zh-hans", "没有")])
def test_an_unknown_assigned_opening_is_refused_at_creation(
    seats: tuple[Any, Any], assigned: str, language: str, text: str
) -> None:
    one, two = PlayerFactory(user=seats[0]), PlayerFactory(user=seats[1])
    body = {"player_one": one.pk, "player_two": two.pk, "protocol": "chinese-assigned"}
    body["protocol_options"] = {"assigned_opening": assigned}

    response = client_for(user("org", "organizer"), language).post("/api/games/", body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "bad_setup" and text in response.json()["message"]
    assert not Game.objects.exists()


def test_an_assigned_opening_in_another_orientation_is_played_online(seats: tuple[Any, Any]) -> None:
    game = new_game(seats, protocol="chinese-assigned", protocol_options={"assigned_opening": "斜月"})
    alice = client_for(seats[0], "zh-hans")

    responses = [move(alice, game, ply, point) for ply, point in enumerate(["h8", "g7", "i9"])]
    wrong = move(client_for(seats[1], "zh-hans"), game, 3, "z99")

    assert [r.status_code for r in responses] == [200, 200, 200]
    assert wrong.status_code == 400 and "z99" in wrong.json()["message"] and "board" not in wrong.json()["message"]
    assert "place" not in wrong.json()["message"] and "动作格式" not in wrong.json()["message"]  # no internal word
    assert "棋盘" in wrong.json()["message"]


def test_a_game_scheduled_to_start_is_lost_on_time_by_a_player_who_never_comes(seats: tuple[Any, Any]) -> None:
    one, two = PlayerFactory(user=seats[0]), PlayerFactory(user=seats[1])
    starts = timezone.now() - timedelta(seconds=40)  # quick play: 30 s a move (plus the 3 s lag allowance)
    body = {"player_one": one.pk, "player_two": two.pk, "rules": "freestyle", "time_control": "quick"}

    created = client_for(user("org", "organizer")).post(
        "/api/games/", {**body, "starts_at": starts.isoformat()}, format="json"
    )
    assert created.status_code == 201, created.json()
    game = client_for().get(f"/api/games/{created.json()['id']}/").json()

    assert (game["status"], game["result"], game["result_reason"]) == ("finished", "white", "time")
    waiting = client_for(user("org", "organizer")).post("/api/games/", body, format="json").json()
    assert waiting["clock"]["status"] == "waiting"  # without a start the clock waits for the first stone
