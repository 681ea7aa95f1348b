"""The recorder's page: one board of the hall, held at the table (a phone or a tablet), entered stone by
stone through the relay's API (static/js/relay.js)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.access import drafts_hidden, may_rule, visible_games
from games.enums import GameMode, GameStatus
from games.exports import export_rif
from games.models import Game
from games.parsing import whole
from relay.boards import board_states, relayed_games
from relay.models import Lease
from relay.services import recorded as relay_recorded
from tournament.models import Tournament

CELL, MARGIN, SIZE = 12, 10, 15  # a small board: 15 lines, 12 px apart
SCREEN_BOARDS = 18  # the projector's page: six boards across, three down, on a 1920×1080 screen


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
        "correct_from": _("Correct from ply %(n)s"),
        "reason": _("Why (everyone sees it)"),
        "remove_from": _("Remove from here, then enter again"),
        "cancel": _("Cancel"),
    }
    config = {"game": game.pk, "labels": labels}
    return render(request, "relay/record.html", {"game": game, "config": config, "boards": _my_boards(request, game)})


def _my_boards(request: HttpRequest, game: Game) -> list[Game]:
    """The boards this recorder holds (up to four, this one among them), to switch between at the table."""
    held = (
        Lease.objects.filter(holder_id=request.user.pk, game__status__in=GameStatus.active())
        .exclude(game=game)
        .select_related("game__player_one", "game__player_two")
        .order_by("game__board_number", "game_id")[:3]
    )
    return sorted([game, *(lease.game for lease in held)], key=lambda g: (g.board_number or 0, g.pk))


def _dots(stones: list[str]) -> list[dict[str, object]]:
    dots: list[dict[str, object]] = []
    for number, point in enumerate(stones, start=1):
        col, row = "abcdefghijklmno".index(point[0]), int(point[1:]) - 1
        x, y = MARGIN + col * CELL, MARGIN + (SIZE - 1 - row) * CELL
        dots.append({"x": x, "y": y, "colour": "black" if number % 2 else "white", "point": point})
    return dots


def multiboard_context(request: HttpRequest, pk: int, screen: bool = False, seconds: int = 20) -> dict[str, object]:
    """The tournament's relayed boards as the viewer may see them (board_states), each with its stones placed
    on a small board for the first paint; the page follows the public's socket unless it shows some board
    at once (a referee's, the organizer's: they poll)."""
    tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=pk)
    state = board_states(tournament, request.user, screen=screen)
    boards = [{**b, "dots": _dots(b["stones"]), "last": _dots(b["stones"])[-1:]} for b in state["boards"]]
    span = 2 * MARGIN + CELL * (SIZE - 1)
    lines = [MARGIN + i * CELL for i in range(SIZE)]
    return {
        "tournament": tournament,
        "boards": boards,
        "span": span,
        "lines": lines,
        "screen": screen,
        "topic": "" if state["live"] else f"relay:{tournament.pk}",
        "config": {
            "tournament": tournament.pk,
            "api": reverse("relay-boards", args=[tournament.pk]) + ("?screen=1" if screen else ""),
            "topic": "" if state["live"] else f"relay:{tournament.pk}",
            "geometry": {"cell": CELL, "margin": MARGIN, "size": SIZE},
            "board_label": _("Board %(n)s"),
            "boards": state["boards"],
            "screen": {"per_page": SCREEN_BOARDS, "seconds": seconds} if screen else None,
        },
    }


def relayed_games_rif(request: HttpRequest, pk: int) -> HttpResponse:
    """Every relayed game of the tournament as RenjuNet's ``.rif``, as the viewer may see each (the public:
    after the stage's delay), the opening's swaps and offered fifths included."""
    tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=pk)
    games = list(relayed_games(tournament).select_related("black", "white"))
    records = {game.pk: relay_recorded(game, request.user) for game in games}
    body = export_rif(games, timezone.now(), records=records)
    response = HttpResponse(body, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="relay-{tournament.pk}.rif"'
    return response


def multiboard(request: HttpRequest, pk: int) -> HttpResponse:
    """Every board of the hall relayed, small and live (the public after the stage's delay)."""
    return render(request, "relay/multiboard.html", multiboard_context(request, pk))


def screen(request: HttpRequest, pk: int) -> HttpResponse:
    """The hall's projector: sixteen boards to a 1920×1080 screen, in turn when there are more (``?seconds=``
    each page, 20 by default), at the public's delay; on a session that runs the tournament, at once for a
    stage whose organizer set its screen live (a spectators' room)."""
    seconds = whole(request.GET.get("seconds", ""), 3)
    seconds = seconds if seconds and 5 <= seconds <= 600 else 20
    return render(request, "relay/screen.html", multiboard_context(request, pk, screen=True, seconds=seconds))


def watch(request: HttpRequest, pk: int) -> HttpResponse:
    """One relayed game for spectators: the board, the record with the table clock's readings, the corrections,
    live (the public after the stage's delay); engine analysis only on the game's page once it has ended."""
    game = get_object_or_404(
        visible_games(request.user).filter(mode=GameMode.OVER_THE_BOARD).select_related("player_one", "player_two"),
        pk=pk,
    )
    live = may_rule(request.user, game)
    recording = live and game.status in GameStatus.active()
    record_url = reverse("relay-recorder", args=[game.pk]) if recording else ""
    config = {
        "game": game.pk,
        "topic": "" if live else f"relaygame:{game.pk}",
        "labels": {
            "board_label": _("Board"),
            "behind": _("%(m)s min behind"),
            "recorded": _("%(n)s entries recorded."),
            "settled": _("The result sheet's record, which settles the game."),
            "correction": _("Corrected from ply %(n)s: %(reason)s"),
            "black": _("Black"),
            "white": _("White"),
        },
    }
    return render(request, "relay/watch.html", {"game": game, "config": config, "record_url": record_url})
