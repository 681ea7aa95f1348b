"""Reads of the rating lists: a list's table (filtered by country, unit, activity), a player's ratings
with their history drawn as an SVG polyline, expected scores."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from ratings.compute import EloRule, expected
from ratings.models import RatedGame, Rating, RatingList, RatingPoint
from tournament.models import Entry, MatchGame, entry_rating


def list_rows(
    rating_list: RatingList, *, country: str = "", unit: str = "", active: bool = False, limit: int = 1000
) -> list[dict[str, Any]]:
    rows = (
        Rating.objects.filter(rating_list=rating_list)
        .select_related("player")
        .only(  # the table's columns: not the player's merged RenjuNet ids (a JSON column decoded per row)
            "player__name",
            "player__native_name",
            "player__country",
            "player__unit",
            "rating",
            "deviation",
            "games",
            "provisional",
            "last_played",
        )
        .order_by("-rating", "player__name")
    )
    if country:
        rows = rows.filter(player__country=country)
    if unit:
        rows = rows.filter(player__unit=unit)
    if active:
        since = timezone.localdate() - timedelta(days=rating_list.inactive_days)
        rows = rows.filter(last_played__gte=since)
    return [
        {
            "rank": rank,
            "player": r.player_id,
            "name": r.player.name,
            "native_name": r.player.native_name,
            "country": r.player.country,
            "unit": r.player.unit,
            "rating": round(r.rating),
            "deviation": round(r.deviation),
            "games": r.games,
            "provisional": r.provisional,
            "last_played": r.last_played,
        }
        for rank, r in enumerate(rows[:limit], start=1)
    ]


def chart(points: list[tuple[Any, float]], width: int = 600, height: int = 180) -> dict[str, Any]:
    """An SVG polyline of a rating history (days on x, rating on y), with its extremes for the axis."""
    if not points:
        return {"points": "", "width": width, "height": height, "low": 0, "high": 0, "first": None, "last": None}
    days = [p[0].toordinal() for p in points]
    values = [p[1] for p in points]
    low, high = min(values), max(values)
    span_x = max(days[-1] - days[0], 1)
    span_y = max(high - low, 1.0)
    pad = 10
    coords = [
        (pad + (d - days[0]) * (width - 2 * pad) / span_x, height - pad - (v - low) * (height - 2 * pad) / span_y)
        for d, v in zip(days, values, strict=True)
    ]
    return {
        "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in coords),
        "width": width,
        "height": height,
        "low": round(low),
        "high": round(high),
        "first": points[0][0],
        "last": points[-1][0],
    }


def player_ratings(player_id: int) -> list[dict[str, Any]]:
    """The player's rating on each list, with its history and chart."""
    out = []
    for rating in Rating.objects.filter(player_id=player_id).select_related("rating_list"):
        history = list(
            RatingPoint.objects.filter(rating_list=rating.rating_list, player_id=player_id)
            .order_by("day")
            .values_list("day", "rating")
        )
        out.append(
            {
                "list": rating.rating_list,
                "rating": round(rating.rating),
                "deviation": round(rating.deviation),
                "games": rating.games,
                "provisional": rating.provisional,
                "history": [{"day": d, "rating": round(r)} for d, r in history],
                "chart": chart(history),
            }
        )
    return out


def expectation(rating_list: RatingList, one: int, two: int) -> float | None:
    """The expected score of player ``one`` against ``two`` on the list (None if either is unrated)."""
    ratings = dict(
        Rating.objects.filter(rating_list=rating_list, player_id__in=[one, two]).values_list("player_id", "rating")
    )
    if one not in ratings or two not in ratings:
        return None
    return expected(ratings[one], ratings[two])


def game_lines(player_id: int, games: list[Any]) -> list[dict[str, Any]]:
    """The player's games, with the expected score and the Elo change (K by experience, from the
    ratings fixed at the tournament's start) for each game of a rated tournament."""
    rule = EloRule()
    links = {
        link.game_id: link.match.tournament
        for link in MatchGame.objects.filter(game__in=games).select_related("match__tournament")
    }
    out = []
    for game in games:
        line: dict[str, Any] = {"game": game}
        tournament = links.get(game.pk)
        other = game.white_id if game.black_id == player_id else game.black_id
        if tournament is not None and tournament.rated and other is not None:
            entries = {
                e.player_id: entry_rating(e)
                for e in Entry.objects.filter(tournament=tournament, player_id__in=[player_id, other]).select_related(
                    "player"
                )
            }
            own, opp = entries.get(player_id), entries.get(other)
            if own is not None and opp is not None:
                e = expected(own, opp)
                line["expected"] = f"{e:.2f}"
                if game.result:
                    score = (
                        0.5
                        if game.result == "draw"
                        else float((game.result == "black") == (game.black_id == player_id))
                    )
                    start = tournament.start_date or game.created_at.date()
                    earlier = RatedGame.objects.filter(played_on__lt=start)  # K by the games rated before it
                    before = earlier.filter(black_id=player_id).count() + earlier.filter(white_id=player_id).count()
                    line["change"] = f"{rule.k_for(before, own, own) * (score - e):+.1f}"
        out.append(line)
    return out
