"""The error every refused tournament action raises: the games app's shape (a code, a message in the user's
language, an HTTP status), so the API and the pages report both alike. Low in the app: the formats, the
selectors and the services all raise it."""

from __future__ import annotations

from games.services.base import GameError


class TournamentError(GameError):
    """A refused organizer action (same shape as the games app's errors: code, message, status)."""
