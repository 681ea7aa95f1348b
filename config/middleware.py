"""Stamp each request with the instant it arrived, before anything else runs.

Clocks time a move by when it reached the server, not by when a worker got
to it (clocks.md §6.5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)


class ReceivedAtMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.received_at = timezone.now()  # type: ignore[attr-defined]
        return self.get_response(request)


class DependencyDownMiddleware:
    """While the database is unreachable, answer 503 with a clear message instead of a 500 and a traceback."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.error("database unavailable: %s", exception)
        message = _("The database is unavailable; try again in a moment.")
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"code": "unavailable", "message": message}, status=503)
        else:
            response = render(request, "503.html", {"message": message}, status=503)
        response["Retry-After"] = "5"
        return response
