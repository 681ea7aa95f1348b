"""Web pages: public tournament pages (standings, crosstables, brackets, schedule),
the player and referee consoles, and the organizer's printable sheets and exports.

Pages are server-rendered; parts that change during play are also served as
fragments that ``static/js/live.js`` polls, so they update without a reload.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.access import is_organizer
from games.enums import GameStatus, ReportStatus
from games.exports import export_plain, export_rif
from games.models import Game, GameEvent, Player, ResultReport
from tournament.models import Group, Match, MatchGame, Stage, Tournament
from tournament.standings import load_stage, order_in, stage_standings

STATE_LABELS = {
    "withdrawn": _("withdrawn"),
    "qualified": _("qualified"),
    "eliminated": _("eliminated"),
    "playoff pending": _("playoff pending"),
    "final": "",
}


def _visible_tournaments(request: HttpRequest) -> Any:
    tournaments = Tournament.objects.all()
    if not is_organizer(request.user):
        tournaments = tournaments.exclude(status=Tournament.Status.DRAFT)
    return tournaments


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"tournaments": _visible_tournaments(request).order_by("-id")[:50]})


def tournament_page(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(
        request,
        "tournament/tournament.html",
        {"tournament": tournament, **_standings_context(tournament), **schedule_context(tournament)},
    )


def standings_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    return render(request, "tournament/_standings.html", {"tournament": tournament, **_standings_context(tournament)})


def _standings_context(tournament: Tournament) -> dict[str, Any]:
    stages = []
    for stage in tournament.stages.exclude(status=Stage.Status.PENDING).order_by("order"):
        tables = stage_standings(stage)
        for table in tables:
            for row in table["rows"]:
                row["state_label"] = STATE_LABELS.get(row["state"], row["state"])
        stages.append(
            {
                "stage": stage,
                "tables": tables,
                "crosstables": _crosstables(stage),
                "bracket": _bracket(stage) if stage.kind == Stage.Kind.KNOCKOUT else None,
            }
        )
    final = next((s for s in reversed(stages) if s["stage"].kind == Stage.Kind.ROUND_ROBIN), None)
    return {
        "stages": stages,
        "final": final["tables"][0] if final and final["tables"] else None,
        "notices": notices(tournament),
    }


def notices(tournament: Tournament) -> list[str]:
    """What changed after the fact, for the public: corrected results, draws redone, ties decided, withdrawals."""
    out: list[str] = []
    for event in (
        GameEvent.objects.filter(kind="corrected", game__match_game__match__tournament=tournament)
        .select_related("game__player_one", "game__player_two")
        .order_by("id")
    ):
        game = event.game
        out.append(
            str(_("Result corrected: game %(game)s, %(one)s – %(two)s (%(note)s)."))
            % {
                "game": game.pk,
                "one": game.player_one.name,
                "two": game.player_two.name,
                "note": event.data.get("note", ""),
            }
        )
    for stage in tournament.stages.order_by("order"):
        for _notice in stage.options.get("redrawn", []):
            out.append(str(_("Draw of %(stage)s redone after a correction (same seed).")) % {"stage": stage.name})
    for group in Group.objects.filter(stage__tournament=tournament, void=False).exclude(decision={}).order_by("pk"):
        how = _("by lot") if group.decision.get("by") == "lot" else _("by the organizer")
        out.append(
            str(_("Tie in %(group)s decided %(how)s after drawn playoff games.")) % {"group": group.name, "how": how}
        )
    for name in tournament.entries.filter(withdrawn=True).order_by("pk").values_list("player__name", flat=True):
        out.append(str(_("%(name)s withdrew.")) % {"name": name})
    return out


def _crosstables(stage: Stage) -> list[dict[str, Any]]:
    """Each round-robin group as a matrix: every game's result and colour, row player against column player."""
    data = load_stage(stage)
    player_of = {entry: info[2] for entry, info in data.entries.items()}
    games_by_group: dict[int, list[Game]] = defaultdict(list)
    for link in (
        MatchGame.objects.filter(match__group__stage=stage, counted=True)
        .exclude(match__status=Match.Status.CANCELLED)
        .exclude(game__status=GameStatus.CANCELLED)
        .select_related("game", "match")
        .order_by("match_id", "number")
    ):
        games_by_group[link.match.group_id].append(link.game)
    out = []
    for group in data.groups.values():
        if group.parent_id is not None or group.kind != Group.Kind.ROUND_ROBIN:
            continue
        order = [p for block in order_in(group, data).blocks for p in block]
        cells: dict[tuple[int, int], list[dict[str, str]]] = defaultdict(list)
        for game in games_by_group[group.pk]:
            for me, other in ((game.black_id, game.white_id), (game.white_id, game.black_id)):
                colour = "black" if me == game.black_id else "white"
                if game.status != GameStatus.FINISHED:
                    mark = "…"
                elif game.result == "draw":
                    mark = "½"
                else:
                    mark = "1" if game.result == colour else "0"
                cells[(me, other)].append({"colour": colour, "mark": mark, "game": str(game.pk)})  # type: ignore[index]
        rows = []
        for entry in order:
            name = data.entries[entry][0]
            rows.append(
                {
                    "name": name,
                    "cells": [
                        None if other == entry else cells[(player_of[entry], player_of[other])] for other in order
                    ],
                }
            )
        out.append({"group": group, "names": [data.entries[e][0] for e in order], "rows": rows})
    return out


def _bracket(stage: Stage) -> dict[str, Any]:
    """An SVG layout of the best-of-three matches of this and the following knockout rounds."""
    stages = list(
        Stage.objects.filter(tournament=stage.tournament, kind=Stage.Kind.KNOCKOUT, order__gte=stage.order)
        .exclude(status=Stage.Status.PENDING)
        .order_by("order")
    )
    columns = []
    for s in stages:
        boxes = []
        for match in (
            Match.objects.filter(group__stage=s, best_of=True, group__parent__isnull=True)
            .select_related("first__player", "second__player")
            .prefetch_related("match_games__game")
            .order_by("group__number")
        ):
            wins = [0, 0]
            for link in match.match_games.all():
                game = link.game
                if game.result in ("black", "white"):
                    winner = game.black_id if game.result == "black" else game.white_id
                    wins[0 if winner == match.first.player_id else 1] += 1
            boxes.append(
                {
                    "first": match.first.player.name,
                    "second": match.second.player.name,
                    "wins": wins,
                    "winner": 0
                    if match.winner_id == match.first_id
                    else (1 if match.winner_id == match.second_id else None),
                }
            )
        columns.append({"name": s.name, "boxes": boxes})
    box_h, gap, col_w = 56, 12, 230
    height = max((len(c["boxes"]) for c in columns), default=1) * (box_h + gap) + gap
    for x, column in enumerate(columns):
        count = max(len(column["boxes"]), 1)
        step = (height - gap) / count
        for y, box in enumerate(column["boxes"]):
            box["x"], box["y"] = 10 + x * col_w, gap + y * step + (step - box_h - gap) / 2
    return {
        "columns": columns,
        "width": len(columns) * col_w + 20,
        "height": height + 30,
        "box_w": col_w - 30,
        "box_h": box_h,
    }


def schedule_context(tournament: Tournament) -> dict[str, Any]:
    on_boards = []
    for match in (
        Match.objects.filter(tournament=tournament, status=Match.Status.CALLED)
        .select_related("first__player", "second__player", "group__stage")
        .order_by("board")
    ):
        game = match.games.order_by("-match_game__number").select_related("black", "white").first()
        on_boards.append({"board": match.board, "match": match, "game": game})
    waiting = list(
        Match.objects.filter(
            tournament=tournament, status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING
        )
        .select_related("first__player", "second__player", "group__stage")
        .order_by("group__stage__order", "round", "group__number", "order")[:12]
    )
    return {"on_boards": on_boards, "waiting": waiting, "now": timezone.now()}


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


def standings_csv(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(_visible_tournaments(request), pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="standings-{tournament.pk}.csv"'
    response.write("\ufeff")  # so spreadsheet programs read the Chinese names as UTF-8
    writer = csv.writer(response)
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
                        row["tiebreaks"]["sonneborn_berger"],
                        row["tiebreaks"]["white_wins"],
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
        body, kind = export_rif(games, timezone.now()), "application/xml"
    else:
        body, kind = "\n".join(export_plain(g) for g in games), "text/plain"
    response = HttpResponse(body, content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="games-{tournament.pk}.{fmt}"'
    return response


@login_required
def player_console(request: HttpRequest) -> HttpResponse:
    player = Player.objects.filter(user=request.user).first()
    next_match = None
    games: list[Game] = []
    if player is not None:
        mine = Q(first__player=player) | Q(second__player=player)
        next_match = (
            Match.objects.filter(mine, status=Match.Status.CALLED)
            .select_related("first__player", "second__player", "tournament")
            .first()
            or Match.objects.filter(mine, status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING)
            .select_related("first__player", "second__player", "tournament")
            .order_by("group__stage__order", "round")
            .first()
        )
        games = list(
            Game.objects.filter(Q(player_one=player) | Q(player_two=player))
            .select_related("black", "white", "player_one", "player_two")
            .order_by("-id")[:30]
        )
    current = None
    if next_match is not None and next_match.status == Match.Status.CALLED:
        current = next_match.games.order_by("-match_game__number").select_related("black", "white").first()
    waiting_reports = (
        ResultReport.objects.filter(game__in=[g.pk for g in games], status=ReportStatus.PENDING)
        .exclude(reporter=player)
        .select_related("game")
    )
    return render(
        request,
        "tournament/player_console.html",
        {
            "player": player,
            "next_match": next_match,
            "current": current,
            "games": games,
            "waiting_reports": waiting_reports,
        },
    )


@login_required
def referee_console(request: HttpRequest) -> HttpResponse:
    user = request.user
    if not (is_organizer(user) or user.groups.filter(name="referee").exists()):  # type: ignore[union-attr]
        raise Http404
    tournaments = Tournament.objects.filter(referees=user) if not is_organizer(user) else Tournament.objects.all()
    games = (
        Game.objects.filter(referees=user)
        if not is_organizer(user)
        else Game.objects.filter(match_game__match__tournament__in=tournaments)
    )
    games = games.select_related("black", "white", "player_one", "player_two").distinct()
    active = games.filter(status__in=GameStatus.active()).order_by("board_number", "pk")[:60]
    disputes = ResultReport.objects.filter(game__in=games, status=ReportStatus.DISPUTED).select_related("game")
    log = GameEvent.objects.filter(actor=user).select_related("game").order_by("-id")[:50]
    return render(
        request,
        "tournament/referee_console.html",
        {"tournaments": tournaments, "active": active, "disputes": disputes, "log": log},
    )
