"""The recorder's page: one board of the hall, held at the table (a phone or a tablet), entered stone by
stone through the relay's API (static/js/relay.js)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _

from games.access import drafts_hidden, may_rule, visible_games
from games.enums import GameMode
from games.exports import export_rif
from games.models import Game
from relay.models import RelayMove
from relay.services import recorded as relay_recorded
from relay.services import relay_view
from tournament.models import Tournament

CELL, MARGIN, SIZE = 12, 10, 15  # a small board: 15 lines, 12 px apart


@login_required
def recorder(request: HttpRequest, pk: int) -> HttpResponse:
    """The page a referee or the organizer records a game at the board on; anyone else finds no such page."""
    game = get_object_or_404(visible_games(request.user).select_related("player_one", "player_two"), pk=pk)
    if not may_rule(request.user, game) or game.mode != GameMode.OVER_THE_BOARD:
        raise Http404
    labels = {
        "board_label": _("Board"),
        "expects": {
            "place": _("Tap the point of the next stone (a second tap places it)."),
            "play": _("Tap the point of the next stone (a second tap places it)."),
            "swap": _("Did the other player swap?"),
            "offer": _("Tap the %(n)s fifth stones offered, then send them."),
            "choose": _("Tap the fifth stone chosen."),
            "declare": _("How many fifth stones will be offered?"),
        },
        "swap": _("Swapped"),
        "no_swap": _("Kept"),
        "offer": _("Send the offered stones"),
        "declare": _("Declare"),
        "undo": _("Undo the last entry"),
        "undo_reason": _("undone at the board"),
        "takeover": _("Take this board over"),
        "recorded": _("%(n)s entries recorded."),
        "other": _("Other step"),
    }
    config = {"game": game.pk, "labels": labels}
    return render(request, "relay/record.html", {"game": game, "config": config})


def _boards(tournament: Tournament, viewer: object) -> list[dict[str, object]]:
    """Every relayed game of the tournament as the viewer may see it (the public: after the stage's delay):
    the players, the board, its stones placed on a small board, the last one marked."""
    games = (
        Game.objects.filter(match_game__match__tournament=tournament, is_public=True)
        .filter(pk__in=RelayMove.objects.values("game_id"))
        .select_related("player_one", "player_two")
        .order_by("board_number", "pk")
    )
    boards = []
    for game in games:
        view = relay_view(game, viewer)
        stones = []
        for number, point in enumerate(view["position"]["stones"], start=1):
            col, row = "abcdefghijklmno".index(point[0]), int(point[1:]) - 1
            x, y = MARGIN + col * CELL, MARGIN + (SIZE - 1 - row) * CELL
            stones.append({"x": x, "y": y, "colour": "black" if number % 2 else "white", "point": point})
        boards.append(
            {
                "game": game,
                "stones": stones,
                "last": stones[-1] if stones else None,
                "ply": view["ply"],
                "corrections": len(view["corrections"]),
                "delay": view["delay_minutes"],
            }
        )
    return boards


def multiboard_context(request: HttpRequest, pk: int) -> dict[str, object]:
    tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=pk)
    span = 2 * MARGIN + CELL * (SIZE - 1)
    lines = [MARGIN + i * CELL for i in range(SIZE)]
    return {"tournament": tournament, "boards": _boards(tournament, request.user), "span": span, "lines": lines}


def relayed_games_rif(request: HttpRequest, pk: int) -> HttpResponse:
    """Every relayed game of the tournament as RenjuNet's ``.rif``, as the viewer may see each (the public:
    after the stage's delay), the opening's swaps and offered fifths included."""
    tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=pk)
    games = list(
        Game.objects.filter(match_game__match__tournament=tournament, is_public=True)
        .filter(pk__in=RelayMove.objects.values("game_id"))
        .select_related("player_one", "player_two", "black", "white")
        .order_by("board_number", "pk")
    )
    records = {game.pk: relay_recorded(game, request.user) for game in games}
    body = export_rif(games, timezone.now(), records=records)
    response = HttpResponse(body, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="relay-{tournament.pk}.rif"'
    return response


def multiboard(request: HttpRequest, pk: int) -> HttpResponse:
    """Every board of the hall relayed, small and live (the public after the stage's delay)."""
    return render(request, "relay/multiboard.html", multiboard_context(request, pk))


def multiboard_part(request: HttpRequest, pk: int) -> HttpResponse:
    """The boards alone, fetched by the page every second (a 304 when nothing changed)."""
    return render(request, "relay/_multiboard.html", multiboard_context(request, pk))
