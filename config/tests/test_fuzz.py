"""API fuzzing: schemathesis generates requests from the OpenAPI schema, sent as each role.

No answer may be a 5xx; every 4xx carries a message; every answer is what the schema documents. Runs
in-process through the WSGI app on the test database.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group as Role
from django.core.cache import cache
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis import checks

from config.wsgi import application
from games.models import Player
from games.services import game_create

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
CONFORMANCE = [
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.not_a_server_error,
]
ROLES = ("anonymous", "player", "referee", "organizer")


@pytest.fixture
def headers() -> dict[str, dict[str, str]]:
    cache.clear()
    # Bodies as they are, uncompressed: schemathesis's in-process transport asks for gzip but does not decode it.
    plain = {"Accept-Language": "en", "Accept-Encoding": "identity"}
    out: dict[str, dict[str, str]] = {"anonymous": plain}
    users = {}
    for role in ROLES[1:]:
        user = get_user_model().objects.create_user(f"fuzz-{role}")
        user.groups.add(Role.objects.get(name=role))
        users[role] = user
        out[role] = {"Authorization": f"Token {Token.objects.create(user=user).key}", **plain}
    me = Player.objects.create(name="Fuzz", user=users["player"])
    other = Player.objects.create(name="Other")
    for mode in ("online", "otb"):
        game = game_create(player_one=me, player_two=other, mode=mode)
        game.referees.add(users["referee"])
    return out


@pytest.mark.django_db
# A body past 500 KB (a .rif or TRF field at its limit) is spooled by werkzeug's EnvironBuilder, which
# schemathesis's in-process transport leaves to the collector: its temporary file, not the application's.
@pytest.mark.filterwarnings("ignore:Exception ignored in.*FileIO:pytest.PytestUnraisableExceptionWarning")
@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors_and_every_refusal_explains_itself(case: Any, headers: dict[str, dict[str, str]]) -> None:
    for role in ROLES:
        response = case.call(headers=headers[role])
        assert response.status_code < 500, (role, case.method, case.path, response.status_code, response.text[:500])
        if 400 <= response.status_code < 500:
            kind = {k.lower(): v for k, v in response.headers.items()}.get("content-type", "")
            kind = kind[0] if isinstance(kind, list) else kind
            assert kind.startswith("application/json"), (
                role,
                case.method,
                case.path,
                response.status_code,
                kind,
                response.text[:300],
            )
            body = response.json()
            assert isinstance(body, dict) and body.get("message"), (role, case.path, body)
        # the answer is what the schema documents: its status, content type and body
        case.validate_response(response, checks=CONFORMANCE)
