"""Registered outside engines (the Gomocup protocol) as practice opponents.

The outside engine in these tests is our own ``python -m engine pbrain`` (the registry's ``builtin``) and,
for the failures, a program in the engines folder that misbehaves on purpose; no outside binary is needed.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import translation
from rest_framework.test import APIClient

import engine
from engine import parse_point
from engine.tests.processes import leftovers
from games.messages import result_text
from games.models import Engine, Game, Move
from games.selectors import game_state
from games.services import GameError, game_act
from games.services.computer import computer_player
from games.services.engines import engine_command, engine_register, engine_spec
from games.services.practice import practice_start
from games.tests.factories import PlayerFactory, UserFactory
from games.tests.helpers import MISSED, finished_game, human, run_computer

pytestmark = pytest.mark.django_db

MISBEHAVING = Path(engine.__file__).parent / "tests" / "engines" / "misbehaving.py"
SYSTEM_PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "/usr/bin/python3"
FAST = {str(level): {"turn_ms": 400, "level": 1} for level in range(1, 6)}
SLOW = {str(level): {"turn_ms": 300} for level in range(1, 6)}


@pytest.fixture
def engines_dir(tmp_path: Path) -> Any:
    """An engines folder holding ``misbehaving`` (a program that runs misbehaving.py) and ``dead`` (exits).
    An outside engine runs in a box that reads only the system and its own folder (engine.sandbox): so the
    script is copied in, and run by the system's Python, as an engine author's would be."""
    folder = tmp_path / "engines"
    folder.mkdir()
    shutil.copy(MISBEHAVING, folder / "misbehaving.py")
    for name, body in (
        ("misbehaving", f'exec {SYSTEM_PYTHON} "$(dirname "$0")/misbehaving.py" "$@"'),
        ("dead", "exit 1"),
    ):
        program = folder / name
        program.write_text(f"#!/bin/sh\n{body}\n")
        program.chmod(0o755)
    (folder / "not-executable").write_text("#!/bin/sh\n")
    with override_settings(ENGINES_DIR=folder):
        yield folder


def test_a_command_runs_only_the_builtin_engine_or_a_program_in_the_engines_folder(engines_dir: Path) -> None:
    argv, _cwd = engine_command("builtin")
    assert argv == (sys.executable, "-m", "engine", "pbrain")
    argv, cwd = engine_command("misbehaving chatty")
    assert argv == (str(engines_dir / "misbehaving"), "chatty") and cwd == str(engines_dir)
    for refused in ("/bin/sh -c true", "../../bin/sh", "sh", "not-executable", "", "missing", "'unclosed"):
        with pytest.raises(GameError) as error:
            engine_command(refused)
        assert error.value.code == "engine_command", refused


def test_registering_asks_the_engine_about_itself_and_refuses_what_cannot_play(engines_dir: Path) -> None:
    registered = engine_register(name="Ours", command="builtin", rules=["renju", "freestyle"])
    assert registered.about == "gomoku-tournament engine 1.0" and "name=" in registered.about_raw
    assert registered.levels["5"]["turn_ms"] == 6000
    assert registered.rules == ["renju", "freestyle"]
    with translation.override("en"):
        with pytest.raises(GameError, match="did not answer ABOUT"):
            engine_register(name="Dead", command="dead", rules=["renju"])
        with pytest.raises(GameError, match="already an engine named"):
            engine_register(name="Ours", command="builtin", rules=["renju"])
        with pytest.raises(GameError, match="Choose the rules"):
            engine_register(name="X", command="builtin", rules=["go"])
        for levels in ({"1": {"turn_ms": 100}}, {**FAST, "3": {"turn_ms": 5}}, {**FAST, "2": {"turn_ms": 100, "x": 1}}):
            with pytest.raises(GameError, match="level|Level"):
                engine_register(name="X", command="builtin", rules=["renju"], levels=levels)
    assert list(Engine.objects.values_list("name", flat=True)) == ["Ours"]  # nothing half-written
    with translation.override("zh-hans"), pytest.raises(GameError) as chinese:
        engine_register(name="Dead", command="dead", rules=["renju"])
    assert "ABOUT" in chinese.value.message and "引擎" in chinese.value.message


def test_a_level_of_an_engine_is_its_own_computer_player_and_its_budget_bounds_the_move(engines_dir: Path) -> None:
    ours = engine_register(name="Ours", command="builtin", rules=["renju"], levels=FAST)
    assert computer_player(2, ours).pk == computer_player(2, ours).pk
    assert computer_player(2, ours).pk != computer_player(2).pk  # the built-in engine's level 2 is another
    assert computer_player(2, ours).engine == ours
    assert engine_spec(ours, 3).turn_ms == 400 and engine_spec(ours, 3, most_ms=150).turn_ms == 150


def test_a_practice_game_against_a_registered_engine_goes_through_the_players_service(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path
) -> None:
    ours = engine_register(name="Ours", command="builtin", rules=["freestyle"], levels=FAST)
    me = human()
    with django_capture_on_commit_callbacks(execute=True):
        game = practice_start(player=me, level=1, rules="freestyle", time_control="quick", engine=ours)
    assert game.player_two.engine == ours
    for ply, point in enumerate(["h8", "h9"]):
        with django_capture_on_commit_callbacks(execute=True):
            game_act(game_id=game.pk, player=me, action=f"place {point}", expected_ply=2 * ply)
        with django_capture_on_commit_callbacks(execute=True):
            played = run_computer(sent)
        board = game_state(Game.objects.get(pk=game.pk)).board
        assert board.stone_count == 2 * (ply + 1) and board.is_empty(parse_point(played[0].split()[-1])) is False
    assert Move.objects.filter(game=game, player_number=2).count() == 2
    with translation.override("en"), pytest.raises(GameError, match="does not play renju"):
        practice_start(player=me, level=1, rules="renju", engine=ours)
    ours.enabled = False
    ours.save()
    with translation.override("en"), pytest.raises(GameError, match="no such engine"):
        practice_start(player=me, level=1, rules="freestyle", engine=ours)


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("sleep", "engine_timeout"),
        ("crash", "engine_crash"),
        ("garbage", "engine_garbage"),
        ("occupied", "engine_illegal"),
    ],
)
def test_an_engine_that_misbehaves_forfeits_the_game_and_is_reported(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path, mode: str, code: str
) -> None:
    bad = engine_register(
        name=f"bad-{mode}",
        command=f"misbehaving {mode} 7,7",
        rules=["renju"],
        levels=SLOW,
    )
    me = human()
    game = practice_start(player=me, level=4, rules="renju", time_control="quick", engine=bad)
    with django_capture_on_commit_callbacks(execute=True):
        game_act(game_id=game.pk, player=me, action="place h8", expected_ply=0)  # 7,7 is h8: occupied
    with django_capture_on_commit_callbacks(execute=True):
        assert run_computer(sent) == [code]
    game.refresh_from_db()
    assert (game.status, game.result, game.result_reason, game.result_detail) == ("finished", "black", "forfeit", code)
    bad.refresh_from_db()
    assert bad.failures == 1 and f"game {game.pk}" in bad.last_failure and bad.last_failure_at is not None
    assert Move.objects.filter(game=game).count() == 1  # the engine's answer never reached the board
    with translation.override("zh-hans"):
        assert "引擎" in result_text(game)


def test_the_engines_over_the_api_and_on_the_console(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path
) -> None:
    ours = engine_register(name="Ours", command="builtin", rules=["renju", "freestyle"], levels=FAST)
    engine_register(name="Off", command="builtin", rules=["renju"], enabled=False)
    me = human()
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(me.user)
    listed = client.get("/api/engines/").json()
    assert [e["name"] for e in listed] == ["Ours"] and listed[0]["levels"]["1"]["turn_ms"] == 400
    with django_capture_on_commit_callbacks(execute=True):
        reply = client.post(
            "/api/games/practice/", {"level": 2, "seat": 2, "engine": ours.pk, "rules": "freestyle"}, format="json"
        )
    assert reply.status_code == 201, reply.content
    with django_capture_on_commit_callbacks(execute=True):
        assert run_computer(sent)[0].startswith("place")  # no opening protocol: the engine plays the first stone
    game = Game.objects.get(pk=reply.json()["id"])
    assert game.player_one.engine == ours and game.ply == 1
    refused = client.post("/api/games/practice/", {"level": 2, "engine": 999999}, format="json")
    assert refused.status_code == 400 and "no such engine" in refused.json()["message"]
    page = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    page.force_login(me.user)
    console = page.get("/me/").content.decode()
    assert 'name="engine"' in console and ">Ours<" in console and ">Off<" not in console
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(me.user)
    for malformed in ("x1", "999999"):  # a tampered form: said so, nothing started
        after = page.post("/me/practice/", {"level": "2", "seat": "1", "engine": malformed}, follow=True)
        assert "no such engine" in after.content.decode(), malformed
    assert Game.objects.count() == 1


def test_the_organizer_registers_an_engine_in_the_admin_panel(engines_dir: Path) -> None:
    from tournament.roles import sync_roles

    sync_roles()
    organizer = UserFactory(username="org", role="organizer")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    form = {"name": "Ours", "command": "builtin", "rules": ["renju", "freestyle"], "enabled": "on"}
    levels = json.dumps({n: {"turn_ms": ms} for n, ms in zip("12345", (100, 300, 1000, 3000, 6000), strict=True)})
    refused = client.post("/admin/games/engine/add/", {**form, "command": "/bin/sh", "levels": levels})
    assert refused.status_code == 200 and "is not a program in the engines folder" in refused.content.decode()
    assert not Engine.objects.exists()
    saved = client.post("/admin/games/engine/add/", {**form, "levels": levels})
    assert saved.status_code == 302, saved.content.decode()[:2000]
    ours = Engine.objects.get()
    assert ours.about == "gomoku-tournament engine 1.0" and "name=" in ours.about_raw
    assert ours.rules == ["renju", "freestyle"] and ours.levels["3"] == {"turn_ms": 1000}


# -- a registered engine as analyser ------------------------------------------------------------------------

# The game of games/tests/test_computer.py (MISSED): Black's move 11 (b2) lets its VCF k8 l8 k7 k6 k11 go.
ANALYSER = {**FAST, "5": {"turn_ms": 3000, "level": 3}}  # level 3 of ours plays a VCF of up to 10 fours


def test_a_registered_engine_analyses_every_position_of_a_game(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path
) -> None:
    from engine import Board, Renju
    from engine.search.threats import Threats
    from games.models import Analysis

    ours = engine_register(name="Ours", command="builtin", rules=["renju"], levels=ANALYSER)
    game = finished_game(MISSED)
    organizer = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    organizer.force_authenticate(UserFactory(username="org", role="organizer"))
    for bad, code in (({"engine": 999999}, "unknown_engine"), ({"engine": "x"}, "invalid")):
        refused = organizer.post(f"/api/games/{game.pk}/analysis/", bad, format="json")
        assert refused.status_code == 400 and refused.json()["code"] == code, refused.content
    assert not Analysis.objects.filter(game=game).exists() and sent == []  # nothing stored, nothing queued
    with django_capture_on_commit_callbacks(execute=True):
        asked = organizer.post(f"/api/games/{game.pk}/analysis/", {"engine": ours.pk}, format="json")
    assert asked.status_code == 202, asked.content
    assert run_computer(sent) == ["done"]
    body = organizer.get(f"/api/games/{game.pk}/analysis/").json()
    assert body["status"] == "done" and body["engine"] == "Ours" and body["error"] == ""
    stones = MISSED.split()
    assert [s["number"] for s in body["suggestions"]] == list(range(2, len(stones) + 1))
    for suggestion in body["suggestions"]:  # every answer an empty point of the position it was asked about
        before = Board.replay(" ".join(stones[: suggestion["number"] - 1]))
        assert before.is_empty(parse_point(suggestion["point"])), suggestion
    # Before move 11 Black has a VCF: the engine starts one (a four), where Black played b2.
    before = Board.replay(" ".join(stones[:10]))
    before.push(parse_point(body["suggestions"][9]["point"]))
    assert Threats(before, Renju()).fives(1), body["suggestions"][9]
    assert {m["number"]: m for m in body["marks"]}[11]["missed"] is True  # the solver's part is there too
    with django_capture_on_commit_callbacks(execute=True):  # the same engine again: the stored one
        again = organizer.post(f"/api/games/{game.pk}/analysis/", {"engine": ours.pk}, format="json")
    assert again.status_code == 200 and sent == []
    with django_capture_on_commit_callbacks(execute=True):
        plain = organizer.post(f"/api/games/{game.pk}/analysis/", {}, format="json")  # no engine asked: kept
    assert plain.status_code == 200 and plain.json()["engine"] == "Ours" and sent == []
    assert Analysis.objects.get(game=game).engine == ours


def test_an_engine_that_fails_in_an_analysis_leaves_the_solvers_part_and_is_reported(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path
) -> None:
    from games.models import Analysis
    from games.services.analysis import analysis_request

    bad = engine_register(name="Crasher", command="misbehaving crash", rules=["renju"], levels=SLOW)
    game = finished_game(MISSED)
    with translation.override("en"):
        with django_capture_on_commit_callbacks(execute=True):
            analysis_request(game=game, engine=bad)
        assert run_computer(sent) == ["done"]
    analysis = Analysis.objects.get(game=game)
    assert analysis.status == Analysis.Status.DONE and analysis.suggestions == []
    assert analysis.error.startswith("Crasher stopped at move 2") and analysis.marks
    bad.refresh_from_db()
    assert bad.failures == 1 and f"analysis of game {game.pk}" in bad.last_failure


def test_a_position_is_analysed_with_a_registered_engine(engines_dir: Path) -> None:
    ours = engine_register(name="Ours", command="builtin", rules=["renju"], levels=ANALYSER)
    free = engine_register(name="Free", command="builtin", rules=["freestyle"], levels=FAST)
    bad = engine_register(name="Sleeper", command="misbehaving sleep", rules=["renju"], levels=SLOW)
    referee = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    referee.force_authenticate(UserFactory(username="ref", role="organizer"))
    moves = "g8 i7 i8 j6 h9 k5 h10 a1 m3 a3 g9"  # White to move wins at once: l4 (a five)
    answer = referee.post("/api/games/analyse-position/", {"moves": moves, "engine": ours.pk}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["engine"] == "Ours" and answer.json()["best"] == "l4"
    assert referee.post("/api/games/analyse-position/", {"moves": moves}, format="json").json()["engine"] is None
    wrong = referee.post("/api/games/analyse-position/", {"moves": moves, "engine": free.pk}, format="json")
    assert wrong.status_code == 400 and "does not play renju" in wrong.json()["message"]
    Engine.objects.filter(pk=free.pk).update(enabled=False)
    off = referee.post("/api/games/analyse-position/", {"moves": moves, "engine": free.pk, "rules": "freestyle"})
    assert off.status_code == 400 and off.json()["code"] == "unknown_engine"
    failed = referee.post("/api/games/analyse-position/", {"moves": moves, "engine": bad.pk}, format="json")
    assert failed.status_code == 502 and failed.json()["message"].startswith("Sleeper gave no move")
    bad.refresh_from_db()
    assert bad.failures == 1 and "position analysis" in bad.last_failure


def test_outside_engines_have_their_own_queue_so_the_builtin_levels_never_wait_behind_them(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path
) -> None:
    outside = engine_register(name="outside", command="misbehaving chatty", rules=["freestyle"], levels=SLOW)
    me, other = human(), PlayerFactory(user=UserFactory(username="other", role="player"))
    with django_capture_on_commit_callbacks(execute=True):
        bad_game = practice_start(player=me, level=1, rules="freestyle", time_control="quick", engine=outside, seat=2)
    with django_capture_on_commit_callbacks(execute=True):
        builtin_game = practice_start(player=other, level=1, rules="freestyle", time_control="quick", seat=2)
    queues = {args[0]: queue for name, args, queue in sent if name == "computer_move"}
    assert queues == {bad_game.pk: "engines", builtin_game.pk: "computer"}


def test_an_engine_that_hides_behind_a_child_forfeits_on_time_and_leaves_nothing(
    django_capture_on_commit_callbacks: Any, sent: list[Any], engines_dir: Path
) -> None:
    """The review's engine: a child kept the output open, the worker waited 90 s and the engine lost on time
    instead of by forfeit. Now the worker is back within the turn and the engine forfeits (engine_timeout)."""
    holder = engine_register(name="holder", command="misbehaving holder", rules=["renju"], levels=SLOW)
    me = human()
    game = practice_start(player=me, level=1, rules="renju", time_control="quick", engine=holder)
    with django_capture_on_commit_callbacks(execute=True):
        game_act(game_id=game.pk, player=me, action="place h8", expected_ply=0)
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        assert run_computer(sent) == ["engine_timeout"]
    # back within the turn and the grace (0.3 + 2 s), not the 90 s the child held the output open
    assert time.monotonic() - started < 30
    game.refresh_from_db()
    assert (game.result_reason, game.result_detail) == ("forfeit", "engine_timeout")
    assert leftovers() == []
