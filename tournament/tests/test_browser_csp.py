"""The Content-Security-Policy in a real browser: every kind of page works under it (Chromium reports any
script, style or socket it blocks on the console), so the policy is a guard, never a broken page."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from games.models import Game
from tournament.demo_tournament import DEMO_NAME
from tournament.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_every_kind_of_page_runs_under_the_policy_without_a_violation(browser: Any, live_server: Any) -> None:
    call_command("load_demo", verbosity=0)
    tournament = Tournament.objects.get(name=DEMO_NAME)
    game = Game.objects.filter(match_game__match__tournament=tournament).first()
    assert game is not None
    organizer = get_user_model().objects.get(username="organizer")
    context = browser.new_context(locale="en", extra_http_headers={"Accept-Language": "en"})
    page = context.new_page()
    violations: list[str] = []

    def seen(message: Any) -> None:
        # Outside hosts are blocked on purpose (ReDoc's logo from its CDN): the hall has no internet anyway.
        if "Content Security" in message.text and "'https://" not in message.text:
            violations.append(message.text)

    page.on("console", seen)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", organizer.username)
    page.fill("#id_password", "demo-pass-2026")
    page.locator("main button[type=submit]").click()
    pages = [
        "/",
        f"/t/{tournament.pk}/",
        f"/t/{tournament.pk}/screen/",
        f"/t/{tournament.pk}/call-sheet/",
        f"/g/{game.pk}/",
        "/me/",
        "/referee/",
        "/organizer/",
        f"/organizer/t/{tournament.pk}/",
        f"/organizer/t/{tournament.pk}/players/",
        "/api/docs/",
        "/api/redoc/",
        "/admin/",
    ]
    for path in pages:
        answer = page.goto(f"{live_server.url}{path}")
        assert answer is not None and answer.ok, path
        assert "script-src 'self'" in (answer.headers.get("content-security-policy") or ""), path
        page.wait_for_load_state("load")
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=15_000)  # Swagger UI ran from its own script file
    page.goto(f"{live_server.url}/api/redoc/")
    page.wait_for_selector("redoc .api-info, .api-content", timeout=15_000)  # ReDoc ran from its script file
    page.goto(f"{live_server.url}/g/{game.pk}/")
    page.wait_for_selector("svg.board-svg", timeout=15_000)  # the board's scripts ran
    assert violations == []
