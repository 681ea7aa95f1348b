"""Stamp each request with the instant it arrived, before anything else runs.

Clocks time a move by when it reached the machine, not by when a thread got
to it (see config.arrivals).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from config import arrivals
from tournament.lan import from_this_machine

logger = logging.getLogger(__name__)


class ReceivedAtMiddleware:
    """``request.received_at``: when the request reached the machine (config.arrivals), and
    ``request.queued_ms``: how long it waited inside the server before Django saw it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        now = time.time()
        arrived = arrivals.arrival(request.META, now, settings.TRUST_X_REQUEST_START)
        # Our own attributes on the request (read by games.api through getattr): not in HttpRequest's type.
        request.received_at = datetime.fromtimestamp(arrived, tz=UTC)  # type: ignore[attr-defined]
        request.queued_ms = round((now - arrived) * 1000)  # type: ignore[attr-defined]
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


class BodyTooLargeMiddleware:
    """A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` gets 413 (JSON under /api/) before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and length > limit:
            return self.too_large(request, limit)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, RequestDataTooBig):
            return self.too_large(request, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return None

    @staticmethod
    def too_large(request: HttpRequest, limit: int) -> HttpResponse:
        message = _("The request is too large: at most %(n)s KB.") % {"n": limit // 1024}
        if request.path.startswith("/api/"):
            return JsonResponse({"code": "too_large", "message": message}, status=413)
        return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")


class VenueAdminMiddleware:
    """In venue mode (the server on the hall's Wi-Fi) ``/admin/`` answers only the server's own machine:
    a phone in the hall finds no such page, whatever password it tries. ``ADMIN_FROM_LAN=1`` lifts it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        admin = request.path.startswith("/admin/")
        if admin and settings.VENUE and not settings.ADMIN_FROM_LAN and not from_this_machine(request):
            raise Http404
        return self.get_response(request)
