"""The tournaments' Celery task common to every format: calling the online games that waited for room."""

from __future__ import annotations

from celery import shared_task

from tournament.services.common import call_for_room


@shared_task(name="tournament.call_for_room", ignore_result=True)
def call_for_room_task() -> int:
    """The online matches that waited for room on the server, called once games have ended (beat, every 2 s)."""
    return call_for_room()
