"""Hardening: deploy checks, CSRF, rate limits, expiring sessions and tokens, no secrets, clean 503s."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import OperationalError
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tournament.tests.helpers import every_template

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def test_deploy_checks_are_clean_with_production_settings() -> None:
    env = dict(
        os.environ,
        HTTPS="true",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(60),
        ALLOWED_HOSTS="gomoku.example.org",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 0, result.stdout + result.stderr


def test_every_post_form_carries_a_csrf_token() -> None:
    forms = []
    for template in every_template():
        text = template.read_text()
        for match in re.finditer(r"<form[^>]*method=\"post\"[^>]*>(.*?)</form>", text, re.S | re.I):
            # inside a live part the field is {% live_csrf %}: written empty there, filled by the page's token
            body = match.group(1)
            forms.append((template.name, "{% csrf_token %}" in body or "{% live_csrf %}" in body))
    assert forms and all(ok for _name, ok in forms), [name for name, ok in forms if not ok]


def test_posts_without_a_csrf_token_are_refused() -> None:
    user = get_user_model().objects.create_user("csrf", password="pw-12345")
    client = Client(enforce_csrf_checks=True)

    assert client.post("/accounts/login/", {"username": "csrf", "password": "pw-12345"}).status_code == 403
    client.force_login(user)
    api = client.post("/api/games/1/resign/", {}, content_type="application/json")
    assert api.status_code == 403 and "CSRF" in api.json()["message"]


def test_failed_logins_slow_that_device_down_but_never_lock_the_owner_out() -> None:
    get_user_model().objects.create_user("target", password="right-pass-1")
    phone = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="192.168.1.50")  # a stranger on the hall's Wi-Fi
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for _attempt in range(5):
            phone.post("/accounts/login/", {"username": "target", "password": "wrong"})

        blocked = phone.post("/accounts/login/", {"username": "target", "password": "right-pass-1"})
        token = APIClient(REMOTE_ADDR="192.168.1.50").post(
            "/api/auth/token/", {"username": "target", "password": "right-pass-1"}
        )
        owner = Client(REMOTE_ADDR="192.168.1.77")  # the owner, elsewhere in the hall: not held up
        at_the_server = Client(REMOTE_ADDR="127.0.0.1")  # the server's own keyboard: never held up

        assert b"Too many failed attempts from this device" in blocked.content
        assert "_auth_user_id" not in phone.session
        assert token.status_code == 429 and token.json()["code"] == "throttled"
        assert owner.post("/accounts/login/", {"username": "target", "password": "right-pass-1"}).status_code == 302
        assert at_the_server.login(username="target", password="right-pass-1")

        clock.shift(3)  # the wait after five failures is two seconds, not five minutes
        late = phone.post("/accounts/login/", {"username": "target", "password": "right-pass-1"})
        assert late.status_code == 302 and "_auth_user_id" in phone.session


def test_each_further_failure_doubles_the_wait_up_to_the_cap(settings: Any) -> None:
    from config.security import login_blocked

    get_user_model().objects.create_user("target", password="right-pass-1")
    guesser = Client(REMOTE_ADDR="10.0.0.9")
    request = type("R", (), {"META": {"REMOTE_ADDR": "10.0.0.9"}})()
    waits = []
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for _attempt in range(13):
            wait = login_blocked(request, "target")
            clock.shift(wait)  # the guesser waits exactly as long as told, then guesses again
            guesser.post("/accounts/login/", {"username": "target", "password": "wrong"})
            waits.append(login_blocked(request, "target"))
    assert waits[:4] == [0, 0, 0, 0]
    assert waits[4:] == [2, 4, 8, 16, 32, 64, 128, 256, settings.LOGIN_DELAY_MAX_S]


def test_move_submissions_are_rate_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.throttles import MoveThrottle

    monkeypatch.setattr(MoveThrottle, "THROTTLE_RATES", {"moves": "3/min"})
    user = get_user_model().objects.create_user("fast")
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)

    answers = [client.post("/api/games/999/move/", {"ply": 0, "point": "h8"}, format="json") for _ in range(4)]

    assert [a.status_code for a in answers] == [404, 404, 404, 429]
    assert answers[-1].json()["code"] == "throttled" and answers[-1].json()["message"]
    assert client.get("/api/games/").status_code == 200  # reading is never limited


def test_results_entered_are_limited_apart_from_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """An organizer entering a round's results is not stopped by the moves' limit (issue 60), nor a player's
    moves by the results they reported."""
    from games.throttles import MoveThrottle

    monkeypatch.setattr(MoveThrottle, "THROTTLE_RATES", {"moves": "3/min", "writes": "5/min"})
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(get_user_model().objects.create_user("busy"))
    result = {"result": "black", "reason": "five"}

    reports = [client.post(f"/api/games/{999 + n}/report-result/", result, format="json") for n in range(6)]
    move = client.post("/api/games/999/move/", {"ply": 0, "point": "h8"}, format="json")

    assert [a.status_code for a in reports] == [404] * 5 + [429]
    assert move.status_code == 404  # the moves' own count is untouched


def test_sessions_expire() -> None:
    user = get_user_model().objects.create_user("sleepy")
    client = Client()
    client.force_login(user)
    assert client.get("/me/").status_code == 200

    with time_machine.travel(timezone.now() + timedelta(hours=13), tick=False):
        assert client.get("/me/").status_code == 302


def test_tokens_expire_and_a_new_one_can_be_obtained() -> None:
    user = get_user_model().objects.create_user("bot", password="bot-pass-1")
    key = APIClient().post("/api/auth/token/", {"username": "bot", "password": "bot-pass-1"}).json()["token"]
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/me/").status_code == 200

    with time_machine.travel(timezone.now() + timedelta(hours=25), tick=False):
        expired = client.get("/api/me/")
        fresh = APIClient().post("/api/auth/token/", {"username": "bot", "password": "bot-pass-1"}).json()["token"]

    assert expired.status_code == 401 and "expired" in expired.json()["message"]
    assert fresh != key and Token.objects.get(user=user).key == fresh


def test_no_secrets_in_the_repository() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    patterns = [
        re.compile(p)
        for p in (
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
            r"AKIA[0-9A-Z]{16}",
            r"SECRET_KEY\s*=\s*['\"][^'\"]{8,}['\"]",
            r"postgres://\w+:(?!PASSWORD@)[^@\s]{6,}@",
        )
    ]
    found = []
    for name in tracked.split():
        path = ROOT / name
        if not path.is_file() or path.suffix in (".mo", ".png", ".whl") or name.endswith("test_security.py"):
            continue
        text = path.read_text(errors="ignore")
        found += [(name, p.pattern) for p in patterns if p.search(text)]
    assert found == []
    assert "var/" in (ROOT / ".gitignore").read_text() and "var/secret_key" not in tracked


def test_database_outage_answers_503_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.api import GameViewSet
    from tournament import views

    def down(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(GameViewSet, "list", down)
    monkeypatch.setattr(views, "_visible_tournaments", down)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en").get("/api/games/")
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get("/")

    assert api.status_code == 503 and api.json() == {
        "code": "unavailable",
        "message": "The database is unavailable; try again in a moment.",
    }
    assert page.status_code == 503 and b"database is unavailable" in page.content


def test_failures_on_other_accounts_from_one_address_do_not_lock_out_a_player(settings: Any) -> None:
    get_user_model().objects.create_user("innocent", password="right-pass-2")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS - 1):
        client.post("/accounts/login/", {"username": f"typo{n}", "password": "wrong"})

    client.post("/accounts/login/", {"username": "innocent", "password": "right-pass-2"})

    assert "_auth_user_id" in client.session
