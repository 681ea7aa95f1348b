"""A session signed in by a private link lasts only while that link does: when the organizer makes a new
link (or revokes it), the sessions opened with the old one are signed out at their next request. While it
lasts, the session's account carries its link's tournament (``games.access.LINK_TOURNAMENT``), so that it
acts only in the tournaments that tournament's organizers run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse

from games.access import LINK_TOURNAMENT
from tournament.models import Entry

SESSION_LINK = "private_link"


def link_tournament(key: str | None) -> int | None:
    """The tournament of the entry whose private link is ``key``; ``None`` when no entry has it (revoked)."""
    if not key:
        return None
    found: int | None = Entry.objects.filter(access_key=key).values_list("tournament_id", flat=True).first()
    return found


def mark_link_session(user: Any, tournament_id: int) -> None:
    """Tell the access rules that ``user`` was signed in by a link of ``tournament_id``."""
    setattr(user, LINK_TOURNAMENT, tournament_id)


class PrivateLinkMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        key = session.get(SESSION_LINK) if session is not None else None
        if key:
            origin = link_tournament(key)
            if origin is None:
                logout(request)  # also clears the session, key included
            elif request.user.is_authenticated:
                mark_link_session(request.user, origin)
        return self.get_response(request)
