"""The recorder's page: one board of the hall, held at the table (a phone or a tablet), entered stone by
stone through the relay's API (static/js/relay.js)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from games.access import may_rule, visible_games
from games.enums import GameMode


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
