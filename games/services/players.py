"""Players by name: the one rule for finding or adding a player from a record, a CSV row or a form."""

from __future__ import annotations

from django.db import transaction

from games.models import Player


@transaction.atomic
def player_find_or_create(*, name: str, unit: str = "", rating: int | None = None) -> Player:
    """The player called ``name`` of ``unit`` (the earliest added, if several), or a new one.

    A name and a unit identify a player across records, imports and forms. A
    given ``rating`` fills in one the player lacks, never replaces one.
    """
    name, unit = name.strip(), unit.strip()
    player = Player.objects.select_for_update().filter(name=name, unit=unit).order_by("pk").first()
    if player is None:
        return Player.objects.create(name=name, unit=unit, rating=rating)
    if player.rating is None and rating is not None:
        player.rating = rating
        player.save(update_fields=["rating"])
    return player
