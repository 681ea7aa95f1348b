"""Celery tasks: a finished rated tournament's games rated and its category's lists recomputed."""

from __future__ import annotations

from celery import shared_task

from ratings.models import RatingList
from ratings.services import category_of, ensure_default_lists, rate_tournament, recompute
from tournament.models import Tournament


@shared_task(name="ratings.rate_and_recompute", ignore_result=True)
def rate_and_recompute(tournament_id: int) -> int:
    tournament = Tournament.objects.get(pk=tournament_id)
    rate_tournament(tournament=tournament)
    if tournament.rated:
        ensure_default_lists(category_of(tournament.rules))  # rated after its start: the lists may not exist yet
    lists = RatingList.objects.filter(category=category_of(tournament.rules))
    for rating_list in lists:
        recompute(rating_list=rating_list)
    return lists.count()
