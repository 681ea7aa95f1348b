"""The deployment of docs/deployment.md from outside: ``scripts/run.py --nodes 2`` (two web, two live-push
and two clock-worker processes behind nginx, one beat) driven through nginx only, by a browser and the API.

A player signs in through the proxy, opens their game, and the page's socket connects through nginx
(``LIVE_URL=/ws/live/``: the page's own host and port); the opponent's move, made through the API, reaches
the board over that socket, sooner than the page's slow safety-net poll.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from devtools.processes import Service, free_port, wait_until
from tournament.tests.browser import PASSWORD, open_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]

SETUP = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from games.models import Player
from games.services import game_create
from tournament.roles import sync_roles

groups = sync_roles()
made = []
for name in ("north", "south"):
    user = get_user_model().objects.create_user(name, password=%r)
    user.groups.add(groups["player"])
    made.append((Player.objects.create(name=name.title(), user=user), Token.objects.create(user=user).key))
game = game_create(player_one=made[0][0], player_two=made[1][0], mode="online", rules="freestyle", time_control="quick")
print(json.dumps({"game": game.pk, "tokens": [made[0][1], made[1][1]]}))
"""


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    var = tmp_path_factory.mktemp("nodes")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "VENUE", "LIVE_URL")},
        "VAR_DIR": str(var),
        "DATABASE_URL": f"sqlite:///{var / 'db.sqlite3'}",
        "PORT": str(port),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    made = subprocess.run(
        [*manage, "shell", "-c", SETUP % PASSWORD], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    fixture = json.loads(made.stdout.strip().splitlines()[-1])
    log = var / "run.log"
    stack = Service("run", [sys.executable, "scripts/run.py", "--nodes", "2"], env=env, cwd=str(ROOT), log=log)
    stack.start()
    try:
        wait_until(lambda: healthy(port) or not stack.running(), 90, "scripts/run.py --nodes 2")
        assert stack.running(), log.read_text()[-3000:]
        yield {"port": port, "base": f"http://127.0.0.1:{port}", "var": var, **fixture}
    finally:
        stack.stop(timeout=30)


def healthy(port: int) -> bool:
    status, body = call(port, "GET", "/healthz")
    return status == 200 and bool(body) and body.get("ok") is True


def call(port: int, method: str, path: str, token: str = "", body: dict[str, Any] | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Accept-Language": "en", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    try:
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        answer = conn.getresponse()
        raw = answer.read()
    except OSError:
        return 0, None
    finally:
        conn.close()
    try:
        return answer.status, json.loads(raw) if raw else None
    except ValueError:
        return answer.status, None


def test_every_process_runs_behind_nginx_and_only_nginx_listens_on_the_port(two_nodes: dict[str, Any]) -> None:
    conf = (two_nodes["var"] / "nginx" / "nginx.conf").read_text()
    port = two_nodes["port"]
    assert conf.count(f"server 127.0.0.1:{port + 10}") == 1 and conf.count(f"server 127.0.0.1:{port + 11}") == 1
    assert conf.count(f"server 127.0.0.1:{port + 20}") == 1 and conf.count(f"server 127.0.0.1:{port + 21}") == 1
    for inner in (port + 10, port + 11):  # each web process answers, on loopback
        assert healthy(inner)
    logs = two_nodes["var"] / "log"
    beat = (logs / "celery-beat.log").read_text()
    assert "this process sends the schedule" in beat


def test_a_move_reaches_the_players_board_over_the_socket_through_nginx(
    two_nodes: dict[str, Any], browser: Any
) -> None:
    base, game = two_nodes["base"], two_nodes["game"]
    page = open_page(browser, base, SimpleNamespace(username="south"))
    page.goto(f"{base}/g/{game}/")
    page.wait_for_function(f"() => window.LivePush && window.LivePush.connected('game:{game}')", timeout=15000)
    expect(page.locator("svg.board-svg .stone")).to_have_count(0)

    status, answer = call(
        two_nodes["port"], "POST", f"/api/games/{game}/move/", two_nodes["tokens"][0], {"ply": 0, "point": "h8"}
    )
    assert status == 200, answer

    # The page polls every 15 s while its socket is open: 5 s is the push's doing.
    expect(page.locator('svg.board-svg .stone.black[data-point="h8"]')).to_have_count(1, timeout=5000)
    assert page.evaluate(f"window.LivePush.connected('game:{game}')")
    page.context.close()
