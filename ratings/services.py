"""Feeding and computing the rating lists: a rated tournament's games become rated games when it
finishes (and again after a correction), dated at its end; a list is recomputed from all the rated games
of its category, its ratings and their history replaced in one transaction."""

from __future__ import annotations

import contextlib
import logging
from datetime import date
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import pgettext_lazy

from games.enums import UNPLAYED_REASONS, GameResult, GameStatus
from games.models import Game
from ratings.compute import EloRule, Result, date_of, day_of, elo_ratings, whr_ratings
from ratings.models import Category, RatedGame, Rating, RatingList, RatingPoint
from tournament.models import Entry, MatchGame, Tournament

logger = logging.getLogger(__name__)


def category_of(rules: str) -> str:
    """Renju's rule sets rate on the renju lists; free-style and standard gomoku on the gomoku lists."""
    return Category.RENJU if rules.startswith("renju") else Category.GOMOKU


def tournament_end(tournament: Any) -> date:
    """The day its games are dated: the tournament's end date, or the day its last game finished."""
    if tournament.end_date:
        return tournament.end_date  # type: ignore[no-any-return]  # a DateField
    last = (
        Game.objects.filter(match_game__match__tournament=tournament, status=GameStatus.FINISHED)
        .order_by("-finished_at")
        .values_list("finished_at", flat=True)
        .first()
    )
    return timezone.localdate(last) if last else timezone.localdate()


@transaction.atomic
def rate_tournament(*, tournament: Any) -> int:
    """The tournament's counted games, played over the board, as rated games dated at its end (a game no
    longer counted is removed); returns how many it has. Only for a rated, finished tournament."""
    if not tournament.rated or tournament.status != Tournament.Status.FINISHED:
        RatedGame.objects.filter(tournament=tournament).delete()
        return 0
    day = tournament_end(tournament)
    category = category_of(tournament.rules)
    links = (
        MatchGame.objects.filter(match__tournament=tournament, counted=True, game__status=GameStatus.FINISHED)
        .exclude(match__status="cancelled")
        .exclude(game__result_reason__in=UNPLAYED_REASONS)
        .exclude(game__result="")
        .select_related("game", "match")
    )
    keep = []
    for link in links:
        game = link.game
        result = {GameResult.BLACK: "B", GameResult.WHITE: "W", GameResult.DRAW: "D"}[GameResult(game.result)]
        RatedGame.objects.update_or_create(
            game=game,
            defaults={
                "category": category,
                "black_id": game.black_id,
                "white_id": game.white_id,
                "result": result,
                "played_on": day,
                "round": game.round,
                "tournament": tournament,
            },
        )
        keep.append(game.pk)
    RatedGame.objects.filter(tournament=tournament).exclude(game_id__in=keep).delete()
    return len(keep)


def results_of(category: str) -> list[Result]:
    rows = RatedGame.objects.filter(category=category).values_list("black_id", "white_id", "result", "played_on")
    return [Result(str(b), str(w), r, day_of(d)) for b, w, r, d in rows.order_by("played_on", "id").iterator()]


def recompute(*, rating_list: RatingList, results: list[Result] | None = None) -> int:
    """The list's ratings and their history from every rated game of its category (WHR being a
    whole-history method, each game can move every rating); returns the number of players rated.

    The computation (WHR: seconds to tens of seconds for a large base) runs outside any transaction, so
    moves and results elsewhere never wait for it; only the replacement of the rows is one transaction."""
    rating_list = RatingList.objects.get(pk=rating_list.pk)
    results = results_of(rating_list.category) if results is None else results
    whr = rating_list.method == RatingList.Method.WHR
    history = (
        whr_ratings(results, w2=rating_list.whr_w2, virtual_games=rating_list.virtual_games, offset=rating_list.offset)
        if whr
        else elo_ratings(results, EloRule())
    )
    played: dict[str, int] = {}
    last: dict[str, int] = {}
    for r in results:
        for name in (r.black, r.white):
            played[name] = played.get(name, 0) + 1
            last[name] = max(last.get(name, r.day), r.day)
    with transaction.atomic():
        RatingList.objects.select_for_update().filter(pk=rating_list.pk).first()  # one replacement at a time
        _replace(rating_list, history, played, last)
    return len(history)


def _replace(rating_list: RatingList, history: dict[str, Any], played: dict[str, int], last: dict[str, int]) -> None:
    Rating.objects.filter(rating_list=rating_list).delete()
    RatingPoint.objects.filter(rating_list=rating_list).delete()
    Rating.objects.bulk_create(
        [
            Rating(
                rating_list=rating_list,
                player_id=int(name),
                rating=points[-1].rating,
                deviation=points[-1].deviation,
                games=played.get(name, 0),
                provisional=played.get(name, 0) < rating_list.provisional_games,
                last_played=date_of(last[name]) if name in last else None,
            )
            for name, points in history.items()
            if points
        ],
        batch_size=2000,
    )
    RatingPoint.objects.bulk_create(
        (
            RatingPoint(
                rating_list=rating_list, player_id=int(name), day=date_of(p.day), rating=p.rating, deviation=p.deviation
            )
            for name, points in history.items()
            for p in points
        ),
        batch_size=5000,
    )
    rating_list.computed_at = timezone.now()
    rating_list.save(update_fields=["computed_at"])


def rating_on(rating_list: RatingList, player_id: int, day: date) -> float | None:
    """A player's rating on a day: the last one computed on or before it (None before their first game)."""
    point = (
        RatingPoint.objects.filter(rating_list=rating_list, player_id=player_id, day__lte=day)
        .order_by("-day")
        .values_list("rating", flat=True)
        .first()
    )
    return point


def after_tournament(tournament: Any) -> None:
    """Once the transaction that finished (or corrected) a rated tournament commits: its games rated and
    the lists of its category recomputed, by a Celery task (a failed publish is logged; the next
    recomputation catches up)."""
    if not tournament.rated:
        return
    tournament_id = tournament.pk

    def publish() -> None:  # by name: the task calls these services (ratings/tasks.py)
        with contextlib.suppress(Exception):
            current_app.tasks["ratings.rate_and_recompute"].apply_async((tournament_id,), retry=False)

    transaction.on_commit(publish)


DEFAULT_LISTS = {
    (Category.RENJU, RatingList.Method.WHR): pgettext_lazy("rating list", "Renju (WHR)"),
    (Category.RENJU, RatingList.Method.ELO): pgettext_lazy("rating list", "Renju (Elo)"),
    (Category.GOMOKU, RatingList.Method.WHR): pgettext_lazy("rating list", "Gomoku (WHR)"),
    (Category.GOMOKU, RatingList.Method.ELO): pgettext_lazy("rating list", "Gomoku (Elo)"),
}


@transaction.atomic
def ensure_default_lists(category: str) -> list[RatingList]:
    """The category's lists, made if it has none (a WHR list and an Elo list, named in the site's language):
    a rated tournament always has a list to feed, on a fresh install too."""
    existing = list(RatingList.objects.select_for_update().filter(category=category, organization=""))
    if existing:
        return existing
    with translation.override(settings.LANGUAGE_CODE):
        return [
            RatingList.objects.create(name=str(name), method=method, category=category)
            for (cat, method), name in DEFAULT_LISTS.items()
            if cat == category
        ]


def lists_fed_by(tournament: Any) -> list[RatingList]:
    """The lists a rated tournament's games go to when it finishes: every list of its category."""
    if not tournament.rated:
        return []
    return list(RatingList.objects.filter(category=category_of(tournament.rules)).order_by("-method", "name"))


def list_for(tournament: Any) -> RatingList | None:
    """The rating list a rated tournament's players are seeded and rated by: its category's, WHR first."""
    if not tournament.rated:
        return None
    lists = RatingList.objects.filter(category=category_of(tournament.rules), organization="")
    return lists.order_by("-method").first()  # "whr" sorts after "elo": WHR first


def fix_start_ratings(tournament: Any) -> None:
    """Each entry's rating at the tournament's start, from its rating list (the player's own rating when
    unrated there or when the tournament is not rated); fixed once, at the first draw."""
    if tournament.rated:
        ensure_default_lists(category_of(tournament.rules))
    rating_list = list_for(tournament)
    start = tournament.start_date or timezone.localdate()
    for entry in Entry.objects.filter(tournament=tournament, rating__isnull=True).select_related("player"):
        value = rating_on(rating_list, entry.player_id, start) if rating_list is not None else None
        rating = round(value) if value is not None else entry.player.rating
        if rating is not None:
            Entry.objects.filter(pk=entry.pk).update(rating=rating)
