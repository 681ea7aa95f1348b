"""A session signed in by a private link lasts only while that link does: when the organizer makes a new
link (or revokes it), the sessions opened with the old one are signed out at their next request."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse

from tournament.models import Entry

SESSION_LINK = "private_link"


class PrivateLinkMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        key = session.get(SESSION_LINK) if session is not None else None
        if key and not Entry.objects.filter(access_key=key).exists():
            logout(request)  # also clears the session, key included
        return self.get_response(request)
