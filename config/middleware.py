"""Stamp each request with the instant it arrived, before anything else runs.

Clocks time a move by when it reached the server, not by when a worker got
to it (clocks.md §6.5).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone


class ReceivedAtMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.received_at = timezone.now()  # type: ignore[attr-defined]
        return self.get_response(request)
