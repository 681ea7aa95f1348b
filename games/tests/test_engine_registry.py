"""Registered outside engines (the Gomocup protocol) as practice opponents.

The outside engine in these tests is our own ``python -m engine pbrain`` (the registry's ``builtin``) and,
for the failures, a program in the engines folder that misbehaves on purpose; no outside binary is needed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import translation
from rest_framework.test import APIClient

import engine
from engine import parse_point
from games.messages import result_text
from games.models import Engine, Game, Move
from games.selectors import game_state
from games.services import GameError, game_act
from games.services.computer import computer_player, practice_start
from games.services.engines import engine_command, engine_register, engine_spec
from games.tests.factories import UserFactory
from games.tests.test_computer import human, run_computer

pytestmark = pytest.mark.django_db

MISBEHAVING = Path(engine.__file__).parent / "tests" / "engines" / "misbehaving.py"
FAST = {str(level): {"turn_ms": 400, "level": 1} for level in range(1, 6)}
SLOW = {str(level): {"turn_ms": 300} for level in range(1, 6)}


@pytest.fixture
def engines_dir(tmp_path: Path) -> Any:
    """An engines folder holding ``misbehaving`` (a program that runs misbehaving.py) and ``dead`` (exits)."""
    folder = tmp_path / "engines"
    folder.mkdir()
    for name, body in (
        ("misbehaving", f'exec "{sys.executable}" "{MISBEHAVING}" "$@"'),
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
    assert "name=" in registered.about and registered.levels["5"]["turn_ms"] == 6000
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
    assert "name=" in ours.about and ours.rules == ["renju", "freestyle"] and ours.levels["3"] == {"turn_ms": 1000}
