"""Web pages: public tournament pages (standings, crosstables, brackets, schedule),
the player and referee consoles, and the organizer's printable sheets and exports.

Pages are server-rendered; parts that change during play are also served as
fragments that ``static/js/live.js`` polls, so they update without a reload.
"""

from __future__ import annotations

import csv
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.access import (
    account,
    console_topic,
    drafts_hidden,
    games_in_scope,
    is_organizer,
    link_scope,
    may_organize,
    referees_any,
)
from games.enums import GameStatus, ReportStatus
from games.exports import export_plain, export_rif
from games.models import Game, GameEvent, Player, ResultReport
from games.parsing import whole
from games.selectors import awaiting_move
from games.services.arbiter import open_calls_for
from games.views import practice_options
from tournament import selectors
from tournament.checkin import check_in_round
from tournament.invitations import open_invitations
from tournament.models import CheckIn, Entry, Match, Stage, Tournament
from tournament.pdf import pdf_response
from tournament.registration_views import public_url, qr, slips_context
from tournament.selectors import schedule_context, standings_context
from tournament.stage_formats import console_parts, stage_standings

STATE_LABELS = {
    "withdrawn": _("withdrawn"),
    "qualified": _("qualified"),
    "eliminated": _("eliminated"),
    "playoff pending": _("playoff pending"),
    "final": "",
}


def _standings(tournament: Tournament) -> dict[str, Any]:
    return standings_context(tournament, STATE_LABELS)


def fragments(tournament: Tournament) -> dict[str, str]:
    """The live parts of the tournament page, rendered once for every watcher (config.live)."""
    context = {"tournament": tournament}
    return {
        "standings": render_to_string("tournament/_standings.html", {**context, **_standings(tournament)}),
        "schedule": render_to_string("tournament/_schedule.html", {**context, **schedule_context(tournament)}),
    }


def _visible_tournaments(request: HttpRequest) -> Any:
    """Every tournament but drafts; a draft only to its organizers."""
    return drafts_hidden(Tournament.objects.all(), request.user)


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"tournaments": _visible_tournaments(request).order_by("-id")[:50]})


def tournament_page(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(
        request,
        "tournament/tournament.html",
        {"tournament": tournament, **_standings(tournament), **schedule_context(tournament)},
    )


def screen(request: HttpRequest, pk: int) -> HttpResponse:
    """The hall's projector: the boards and pairings now, then the standings, in turn, large and live
    (``?seconds=`` each part, 15 by default)."""
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    hall_url = public_url(request, f"/t/{tournament.pk}/")
    context = {
        "tournament": tournament,
        "seconds": seconds if (seconds := whole(request.GET.get("seconds", ""), 3)) and 5 <= seconds <= 600 else 15,
        "hall_url": hall_url,
        "hall_qr": qr(hall_url, 3),
        **_standings(tournament),
        **schedule_context(tournament),
    }
    return render(request, "tournament/screen.html", context)


def standings_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(request, "tournament/_standings.html", {"tournament": tournament, **_standings(tournament)})


def schedule_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(request, "tournament/_schedule.html", {"tournament": tournament, **schedule_context(tournament)})


def call_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """Printable: who plays on which board now, and who is next."""
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(request, "tournament/call_sheet.html", {"tournament": tournament, **schedule_context(tournament)})


def result_sheets(request: HttpRequest, pk: int) -> HttpResponse:
    """Printable result slips for the games on the boards, to be signed by both players."""
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(request, "tournament/result_sheets.html", {"tournament": tournament, **schedule_context(tournament)})


PDF_SHEETS = {
    "call-sheet": "tournament/call_sheet.html",
    "result-sheets": "tournament/result_sheets.html",
    "standings": "tournament/standings_print.html",
    "certificates": "tournament/certificates.html",
    "slips": "tournament/player_slips.html",
}


def tournament_pdf(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """The printable sheets as PDF files: call sheet (pairings by board), result slips, standings with
    crosstables, certificates for the top places (``?places=3``), and the players' QR slips (organizer)."""
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    if kind not in PDF_SHEETS:
        raise Http404
    context: dict[str, Any] = {"tournament": tournament}
    if kind in ("call-sheet", "result-sheets"):
        context.update(schedule_context(tournament))
    elif kind == "standings":
        context.update(_standings(tournament))
    elif kind == "certificates":
        places = whole(request.GET.get("places", ""), 2)
        count = places if places and places <= 64 else 3
        final = tournament.status == Tournament.Status.FINISHED  # no certificate for a place still in play
        context["places"] = [row for row in selectors.ranking(tournament) if row["rank"] <= count] if final else []
    else:
        if not may_organize(request.user, tournament):
            raise Http404
        context.update(slips_context(request, tournament))
    return pdf_response(request, PDF_SHEETS[kind], context, f"{kind}-{tournament.pk}.pdf")


FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as text, never runs: text starting with = + - @ (or a tab or return, or
    their full-width forms) gets a leading apostrophe (OWASP's CSV injection advice). Numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class SafeCsvWriter:
    """A csv writer whose every text cell goes through :func:`csv_cell`."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def writerow(self, row: Any) -> Any:
        return self.writer.writerow([csv_cell(value) for value in row])


def standings_csv(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="standings-{tournament.pk}.csv"'
    response.write("\ufeff")  # so spreadsheet programs read the Chinese names as UTF-8
    writer = SafeCsvWriter(csv.writer(response))
    writer.writerow(
        [
            "stage",
            "group",
            "rank",
            "player",
            "unit",
            "played",
            "wins",
            "draws",
            "losses",
            "points",
            "sonneborn_berger",
            "white_wins",
            "state",
        ]
    )
    for stage in tournament.stages.exclude(status=Stage.Status.PENDING).order_by("order"):
        for table in stage_standings(stage):
            for row in table["rows"]:
                writer.writerow(
                    [
                        stage.name,
                        table["name"],
                        row["rank"],
                        row["player"],
                        row["unit"],
                        row["played"],
                        row["wins"],
                        row["draws"],
                        row["losses"],
                        row["points"],
                        row["tiebreaks"].get("sonneborn_berger", ""),  # a group's; a bracket has none
                        row["tiebreaks"].get("white_wins", ""),
                        row["state"],
                    ]
                )
    return response


def records_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    games = list(
        Game.objects.filter(match_game__match__tournament=tournament, is_public=True)
        .select_related("black", "white", "player_one", "player_two")
        .order_by("pk")
    )
    if fmt == "rif":
        body, kind = export_rif(games, timezone.now(), selectors.rif_tournament(tournament)), "application/xml"
    else:
        body, kind = "\n".join(export_plain(g) for g in games), "text/plain"
    response = HttpResponse(body, content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="games-{tournament.pk}.{fmt}"'
    return response


def player_console_context(player: Player | None, scope: set[int] | None = None) -> dict[str, Any]:
    """What a player's console shows: games waiting for their move, the next match, results to confirm, games;
    with ``scope`` (a private link's session: games.access.link_scope), only what that link reaches."""
    next_match = None
    games: list[Game] = []
    your_move: list[Game] = []
    if player is not None:
        your_move = games_in_scope(awaiting_move(player), scope)
        mine = Q(first__player=player) | Q(second__player=player)
        if scope is not None:
            mine &= Q(tournament_id__in=scope)
        next_match = (
            Match.objects.filter(mine, status=Match.Status.CALLED)
            .select_related("first__player", "second__player", "tournament")
            .first()
            or Match.objects.filter(mine, status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING)
            .select_related("first__player", "second__player", "tournament")
            .order_by("group__stage__order", "round")
            .first()
        )
        games = games_in_scope(
            list(
                Game.objects.filter(Q(player_one=player) | Q(player_two=player))
                .select_related("black", "white", "player_one", "player_two")
                .order_by("-id")[:30]
            ),
            scope,
        )
    current = None
    if next_match is not None and next_match.status == Match.Status.CALLED:
        current = next_match.games.order_by("-match_game__number").select_related("black", "white").first()
    waiting_reports = (
        ResultReport.objects.filter(game__in=[g.pk for g in games], status=ReportStatus.PENDING)
        .exclude(reporter=player)
        .select_related("game")
    )
    return {
        "player": player,
        "check_ins": _open_check_ins(player, scope),
        "next_match": next_match,
        "current": current,
        "games": games,
        "waiting_reports": waiting_reports,
        "your_move": your_move,
    }


def _open_check_ins(player: Player | None, scope: set[int] | None) -> list[dict[str, Any]]:
    """The player's tournaments whose check-in is open and who has not checked in for that round yet."""
    if player is None:
        return []
    out = []
    entries = Entry.objects.filter(player=player, withdrawn=False).exclude(tournament__check_in=CheckIn.OFF)
    if scope is not None:
        entries = entries.filter(tournament_id__in=scope)
    for entry in entries.exclude(tournament__status=Tournament.Status.FINISHED).select_related("tournament"):
        number = check_in_round(entry.tournament)
        if number is not None and entry.checked_in_round < number:
            out.append({"entry": entry, "tournament": entry.tournament, "round": number})
    return out


@login_required
def player_console(request: HttpRequest) -> HttpResponse:
    player = Player.objects.filter(user=account(request.user)).first()
    scope = link_scope(request.user)
    context = {
        **player_console_context(player, scope),
        "practice": practice_options(),
        "console_parts": console_parts(player, scope),
        "console_topic": console_topic(request.user, player) if player is not None else "",
        "invitations": open_invitations(request.user),
    }
    return render(request, "tournament/player_console.html", context)


@login_required
def player_console_live(request: HttpRequest) -> HttpResponse:
    """The console's changing part, for pages without a socket (they poll it with If-None-Match)."""
    player = Player.objects.filter(user=account(request.user)).first()
    context = {**player_console_context(player, link_scope(request.user)), "live_fragment": True}
    return render(request, "tournament/_player_console.html", context)


def referee_console_context(user: Any) -> dict[str, Any]:
    """A referee's (or the organizer's) tournaments, open disputes, games in play and own recent actions."""
    site = is_organizer(user)
    runs = Tournament.objects.filter(organizers=user)
    if not (site or runs.exists() or referees_any(user)):
        raise Http404
    if site:
        tournaments = Tournament.objects.all()
        games = Game.objects.filter(match_game__match__tournament__in=tournaments)
    else:
        tournaments = Tournament.objects.filter(Q(referees=user) | Q(organizers=user)).distinct()
        games = Game.objects.filter(Q(referees=user) | Q(match_game__match__tournament__in=runs))
    games = games.select_related("black", "white", "player_one", "player_two").distinct()
    active = games.filter(status__in=GameStatus.active()).order_by("board_number", "pk")[:60]
    disputes = ResultReport.objects.filter(game__in=games, status=ReportStatus.DISPUTED).select_related("game")
    log = GameEvent.objects.filter(actor=user).select_related("game").order_by("-id")[:50]
    calls = open_calls_for(games)
    return {"tournaments": tournaments, "active": active, "disputes": disputes, "log": log, "calls": calls}


@login_required
def referee_console(request: HttpRequest) -> HttpResponse:
    user = account(request.user)
    is_referee = referees_any(user)  # organizers' consoles poll: they see every game
    return render(
        request, "tournament/referee_console.html", {**referee_console_context(user), "is_referee": is_referee}
    )


@login_required
def referee_console_live(request: HttpRequest) -> HttpResponse:
    """The console's changing part: disputes, games in play, my actions (polled with If-None-Match)."""
    context = {**referee_console_context(account(request.user)), "live_fragment": True}
    return render(request, "tournament/_referee_console.html", context)
