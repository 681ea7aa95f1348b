"""A team event's Celery task: closing the lineups whose deadline has passed (the beat, every 15 s)."""

from __future__ import annotations

from celery import shared_task

from tournament.teams.services import close_all_due_lineups


@shared_task(name="tournament.close_lineups", ignore_result=True)
def close_lineups_task() -> int:
    """Team events: the boards of every team match whose lineup deadline has passed (beat, every 15 s)."""
    return close_all_due_lineups()
