"""Rating pages: the lists, a list's table with filters, a player's page with their rating history drawn
as SVG (no external service), their games and tournaments."""

from __future__ import annotations

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games.access import drafts_hidden, visible_games, visible_players
from ratings import selectors
from ratings.models import RatingList


def lists(request: HttpRequest) -> HttpResponse:
    return render(request, "ratings/lists.html", {"lists": RatingList.objects.all()})


def rating_list(request: HttpRequest, pk: int) -> HttpResponse:
    chosen = get_object_or_404(RatingList, pk=pk)
    country = request.GET.get("country", "")[:60]
    unit = request.GET.get("unit", "")[:100]
    active = request.GET.get("active", "") == "1"
    rows = selectors.list_rows(chosen, country=country, unit=unit, active=active)
    return render(
        request,
        "ratings/list.html",
        {"list": chosen, "rows": rows, "country": country, "unit": unit, "active": active},
    )


def player_page(request: HttpRequest, pk: int) -> HttpResponse:
    player = get_object_or_404(visible_players(request.user), pk=pk)
    games = (
        visible_games(request.user)
        .filter(Q(black=player) | Q(white=player), is_public=True)
        .select_related("black", "white")
        .order_by("-id")[:50]
    )
    tournaments = drafts_hidden(player.entries.select_related("tournament"), request.user, "tournament__")
    tournaments = tournaments.order_by("-tournament_id")[:50]
    return render(
        request,
        "ratings/player.html",
        {
            "player": player,
            "ratings": selectors.player_ratings(player.pk),
            "games": selectors.game_lines(player.pk, list(games)),
            "tournaments": [e.tournament for e in tournaments],
        },
    )
