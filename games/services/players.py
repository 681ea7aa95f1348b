"""Players by name: the one rule for finding or adding a player from a record, a CSV row or a form."""

from __future__ import annotations

import unicodedata

from django.db import transaction
from django.utils.translation import gettext as _

from games.models import NAME_MAX, UNIT_MAX, Player
from games.services.base import GameError

# Kept although they are format characters: joiners that some scripts (and emoji) need inside a name.
_JOINERS = {"\u200c", "\u200d"}


def clean_text(text: str) -> str:
    """A name as people typed it, without what only misleads: control characters (Cc) and invisible format
    characters (Cf: the bidi overrides and isolates that turn "abc" into "cba" on screen, zero-width spaces,
    soft hyphens), whitespace runs folded to one space. Used for every name entered (players, units,
    tournaments, teams) so a sheet, a page or a spreadsheet shows what the organizer reads."""
    kept = "".join(
        " " if ch in "\t\n\r\v\f" else ch
        for ch in text
        if ch in _JOINERS or ch in "\t\n\r\v\f" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    )
    return " ".join(kept.split())


def check_name(name: str, unit: str = "") -> tuple[str, str]:
    """A player's name and unit, stripped, or a clear refusal: a name is needed, and both have limits
    (a name of a hundred characters stretches every table and sheet it is printed on)."""
    name, unit = clean_text(name), clean_text(unit)
    if not name:
        raise GameError("bad_name", _("A player needs a name."))
    if len(name) > NAME_MAX:
        raise GameError(
            "bad_name",
            _("The name %(start)s… is %(n)s characters long; at most %(max)s are allowed.")
            % {"start": name[:20], "n": len(name), "max": NAME_MAX},
        )
    if len(unit) > UNIT_MAX:
        raise GameError(
            "bad_name",
            _("The unit %(start)s… is %(n)s characters long; at most %(max)s are allowed.")
            % {"start": unit[:20], "n": len(unit), "max": UNIT_MAX},
        )
    return name, unit


@transaction.atomic
def player_find_or_create(*, name: str, unit: str = "", rating: int | None = None) -> Player:
    """The player called ``name`` of ``unit`` (the earliest added, if several), or a new one.

    A name and a unit identify a player across records, imports and forms. A
    given ``rating`` fills in one the player lacks, never replaces one.
    """
    name, unit = check_name(name, unit)
    player = Player.objects.select_for_update().filter(name=name, unit=unit).order_by("pk").first()
    if player is None:
        return Player.objects.create(name=name, unit=unit, rating=rating)
    if player.rating is None and rating is not None:
        player.rating = rating
        player.save(update_fields=["rating"])
    return player
