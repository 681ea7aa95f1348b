"""The error every refused tournament action raises: the games app's shape (a code, a message in the user's
language, an HTTP status), so the API and the pages report both alike. Low in the app: the formats, the
selectors and the services all raise it."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _

from games.parsing import whole
from games.services.base import GameError


class TournamentError(GameError):
    """A refused organizer action (same shape as the games app's errors: code, message, status)."""


def after_round(params: Mapping[str, str]) -> int | None:
    """The ``?after_round=N`` of a standings read: a round number (0: before the first), or None when absent;
    anything else refused by name in the reader's language."""
    text = params.get("after_round")
    if text is None or text == "":
        return None
    number = whole(text, 3)
    if number is None:
        raise TournamentError(
            "bad_after_round", _("after_round is a round number: %(value)s is not one.") % {"value": text[:20]}, 400
        )
    return number
