"""The schema check used by the URL walk can fail: bodies, statuses and types it does not document are caught."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import JsonResponse

from config.tests.contract import check_against_schema

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (200, []),  # an array where an object is documented
        (200, {"username": 5, "roles": [], "player": None}),  # a number where a string is documented
        (200, {"username": "a", "roles": ["wizard"], "player": None}),  # outside the enum
        (418, {"code": "teapot", "message": "no"}),  # an undocumented status
        (404, {"nope": 1}),  # an error without code and message
    ],
)
def test_answers_the_schema_does_not_document_are_refused(status: int, body: Any) -> None:
    with pytest.raises((AssertionError, Exception)):  # noqa: B017 - schemathesis raises its FailureGroup
        check_against_schema("get", "/api/me/", JsonResponse(body, status=status, safe=False))


def test_a_documented_answer_passes() -> None:
    check_against_schema("get", "/api/me/", JsonResponse({"username": "a", "roles": ["player"], "player": 3}))
