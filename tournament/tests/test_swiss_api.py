"""The Swiss API: the public reads, the organizer's round cycle, refusals in the user's language, TRF
import (and a malformed file refused with its line, nothing written)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from games.models import Game
from tournament.models import Stage, Tournament
from tournament.tests.helpers import OPEN, win

pytestmark = pytest.mark.django_db


def organizer(language: str = "en") -> APIClient:
    user = get_user_model().objects.create_user(f"org-{language}")
    user.groups.add(Group.objects.get(name="organizer"))
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.force_authenticate(user)
    return client


def swiss_stage(client: APIClient, players: int = 7) -> tuple[int, int]:
    created = client.post("/api/tournaments/", {"name": "Open", "preset": "swiss"}, format="json").json()
    tid, stage = created["id"], created["stages"][0]["id"]
    for n in range(players):
        client.post(f"/api/tournaments/{tid}/register/", {"name": f"S{n}", "rating": 2000 + n}, format="json")
    client.post(f"/api/tournaments/{tid}/draw/", {"stage": stage, "seed": 3}, format="json")
    client.post(f"/api/tournaments/{tid}/start-stage/", {"stage": stage}, format="json")
    return tid, stage


def test_the_organizer_runs_rounds_and_the_public_reads_them() -> None:
    client = organizer()
    tid, stage = swiss_stage(client)
    anonymous = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    assert anonymous.post(f"/api/rounds/{stage}/pair/").status_code in (401, 403)
    paired = client.post(f"/api/rounds/{stage}/pair/")  # the one round API, as every round-by-round format's
    assert paired.status_code == 201 and paired.json()["draft"] == 1
    assert anonymous.get(f"/api/swiss/{stage}/").json()["rounds"] == []  # a draft is the organizer's
    draft = client.get(f"/api/swiss/{stage}/").json()["rounds"][0]
    assert draft["status"] == "draft" and len(draft["boards"]) == 4 and draft["boards"][-1]["second"] is None
    assert all(board["why"] for board in draft["boards"])  # why this pairing, for every board
    again = client.post(f"/api/rounds/{stage}/pair/")
    assert again.status_code == 409 and again.json()["code"] == "draft_open"
    no_reason = client.post(
        f"/api/rounds/{stage}/edit/",
        {"round": 1, "action": "flip", "first": draft["boards"][0]["first"]["entry"], "reason": ""},
        format="json",
    )
    assert no_reason.status_code == 400
    assert client.post(f"/api/rounds/{stage}/publish/", {"round": 1}, format="json").status_code == 200
    for game in Game.objects.filter(status__in=OPEN).select_related("black", "white"):
        win(game, game.black)
    public = anonymous.get(f"/api/swiss/{stage}/").json()
    assert public["standings"]["rows"][0]["score"] == 1.0
    assert [c["key"] for c in public["standings"]["columns"]][:2] == ["buchholz_cut1", "buchholz"]
    assert public["crosstable"][0]["cells"][0]["text"]
    boards = public["rounds"][0]["boards"]
    assert [b["result"] for b in boards] == ["1–0"] * 3 + ["1 (bye)"]  # black (the first move) won each game; the bye


def test_refusals_come_in_the_users_language() -> None:
    client = organizer("zh-hans")
    _tid, stage = swiss_stage(client, players=4)
    client.post(f"/api/rounds/{stage}/pair/")
    refused = client.post(f"/api/rounds/{stage}/pair/").json()
    assert refused["code"] == "draft_open" and "发布" in refused["message"]


def test_a_bye_for_a_player_of_another_tournament_is_not_found() -> None:
    client = organizer()
    _tid, stage = swiss_stage(client, players=4)
    other_tid, _other = swiss_stage(client, players=2)
    stranger = Tournament.objects.get(pk=other_tid).entries.first()
    answer = client.post(f"/api/swiss/{stage}/bye/", {"entry": stranger.pk, "round": 2}, format="json")
    assert answer.status_code == 404


def test_a_tournament_starts_from_a_trf_file_and_a_malformed_one_writes_nothing() -> None:
    client = organizer()
    _tid, stage = swiss_stage(client, players=5)
    client.post(f"/api/rounds/{stage}/pair/")
    client.post(f"/api/rounds/{stage}/publish/", {"round": 1}, format="json")
    for game in Game.objects.filter(status__in=OPEN).select_related("black", "white"):
        win(game, game.white)
    tid = Stage.objects.get(pk=stage).tournament_id
    text = client.get(f"/t/{tid}/swiss/{stage}.trf").content.decode()
    before = Tournament.objects.count()
    broken = text.replace(" 1 b ", " 1 x ", 1) if " 1 b " in text else text + "001    X\n"
    bad = client.post("/api/swiss/import-trf/", {"trf": broken + "001    Q      Nobody\n"}, format="json")
    assert bad.status_code == 400 and "line" in bad.json()["message"]
    assert Tournament.objects.count() == before  # nothing half-written
    made = client.post("/api/swiss/import-trf/", {"trf": text, "name": "Copy"}, format="json")
    assert made.status_code == 201
    copy_stage = made.json()["stage"]
    assert client.post(f"/api/rounds/{stage}/pair/").status_code == 201
    assert client.post(f"/api/rounds/{copy_stage}/pair/").status_code == 201
    ours = client.get(f"/api/swiss/{stage}/").json()["rounds"][-1]["boards"]
    theirs = client.get(f"/api/swiss/{copy_stage}/").json()["rounds"][-1]["boards"]

    def names(boards: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
        return [(b["first"]["name"], b["second"]["name"] if b["second"] else None) for b in boards]

    assert names(ours) == names(theirs)


def test_the_rif_export_carries_the_tournament_its_rounds_and_byes() -> None:
    from xml.etree import ElementTree

    from engine.records import parse_rif

    client = organizer()
    tid, stage = swiss_stage(client, players=5)
    for _ in range(2):
        client.post(f"/api/rounds/{stage}/pair/")
        number = Stage.objects.get(pk=stage).rounds.count()
        client.post(f"/api/rounds/{stage}/publish/", {"round": number}, format="json")
        for game in Game.objects.filter(status__in=OPEN).select_related("black", "white"):
            win(game, game.black)
    text = APIClient().get(f"/t/{tid}/games.rif").content.decode()
    root = ElementTree.fromstring(text)
    tournament = root.find("tournaments/tournament")
    assert tournament is not None and tournament.get("name") == "Open" and tournament.get("rounds") == "2"
    byes = tournament.findall("bye")
    assert [(b.get("round"), b.get("kind")) for b in byes] == [("1", "U"), ("2", "U")]  # five players: one a round
    names = {p.get("id"): p.get("name") for p in root.iterfind("players/player")}
    assert all(names[b.get("player")].startswith("S") for b in byes)  # byes name players by their ids
    games = root.findall("games/game")
    assert len(games) == 4 and all(g.get("tournament") == "1" for g in games)
    assert sorted({g.get("round", "").split(".")[1] for g in games}) == ["1", "2"]  # stage.round.game
    assert len(parse_rif(text)) == 4  # still a .rif our import (and RenjuNet's readers) take


def test_two_players_of_the_same_name_in_a_trf_stay_two_players() -> None:
    from tournament.swiss import trf as trf_format
    from tournament.swiss.state import FIRST, SECOND, RoundRecord, SwissPlayer, SwissState

    state = SwissState(
        "Namesakes",
        3,
        [
            SwissPlayer(1, "Wang Lei", 2100, rounds=[RoundRecord(2, FIRST, "1")]),
            SwissPlayer(2, "Wang Lei", 2000, rounds=[RoundRecord(1, SECOND, "0")]),
            SwissPlayer(3, "Li Na", 1900, rounds=[RoundRecord(None, None, "U")]),
        ],
    )
    made = organizer().post("/api/swiss/import-trf/", {"trf": trf_format.write(state)}, format="json")
    assert made.status_code == 201, made.content
    tournament = Tournament.objects.get(pk=made.json()["tournament"])
    assert tournament.entries.count() == 3
    assert tournament.entries.filter(player__name="Wang Lei").values("player").distinct().count() == 2
