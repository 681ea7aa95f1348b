"""The referees' fair-play pages: the review queue, a case with its numbers and charts, the decisions (two who
agree) and the appeal's hearing; and the player's own page: their decided cases, the grounds, the appeal.
Anyone else finds no such page."""

from __future__ import annotations

import math
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from fairplay import services
from fairplay.models import Case, Decision, FocusLoss, Screening
from fairplay.stats import SHALLOW, THRESHOLD, UNCLEAR
from games.access import referees_any
from games.services import GameError

CHART_W, CHART_H = 480, 120


def _reviewer(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_authenticated and (services.on_team(user) or referees_any(user) or user.is_staff))


@login_required
def queue(request: HttpRequest) -> HttpResponse:
    """The cases this referee may review: open ones first, then appeals, by z."""
    if not _reviewer(request) and not services.reviewable(request.user):
        raise Http404
    return render(request, "fairplay/queue.html", {"cases": services.reviewable(request.user), "threshold": THRESHOLD})


def percentile(z: float) -> float:
    """How many honest player-games in a hundred score below ``z`` (the null model's normal)."""
    return min(99.99, max(0.01, round(50 * (1 + math.erf(z / math.sqrt(2))), 2)))  # never "100 %"


def charts(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """Two small charts of one game's moves: the rank of each move (forced ones greyed), and the chance given
    up against the think time."""
    count = max(1, len(moves))
    step = CHART_W / count
    bars = []
    for n, m in enumerate(moves):
        height = 0 if m["forced"] else min(CHART_H, CHART_H * (1 + min(m["rank"], 10)) / 11)
        bars.append(
            {
                "x": round(n * step, 1),
                "w": max(1.0, round(step - 1, 1)),
                "h": round(height, 1),
                "y": round(CHART_H - height, 1),
                "forced": bool(m["forced"]),
                "label": f"{m['number']}. {m['point']}",
            }
        )
    times = [m["think_ms"] or 0 for m in moves]
    top = max([1, *times])
    dots = [
        {
            "x": round(CHART_W * (m["think_ms"] or 0) / top, 1),
            "y": round(CHART_H * (1 - min(1.0, m["loss"] * 4)), 1),
            "forced": bool(m["forced"]),
            "label": f"{m['number']}. {m['point']}",
        }
        for m in moves
    ]
    return {
        "bars": bars,
        "dots": dots,
        "cells": depth_cells(moves, step),
        "w": CHART_W,
        "h": CHART_H,
        "seconds": round(top / 1000),
    }


def depth_cells(moves: list[dict[str, Any]], step: float) -> list[dict[str, Any]]:
    """The rank of each move at each depth of the search, a cell each (the deepest at the top): ``first`` the
    engine's choice at that depth, ``near`` its second or third, ``other`` further down; forced moves greyed."""
    depths = max([1, *(len(m.get("depth_ranks") or ()) for m in moves)])
    high = CHART_H / depths
    cells = []
    for n, m in enumerate(moves):
        ranks = m.get("depth_ranks") or ()
        for depth in range(1, depths + 1):
            rank = ranks[depth - 1] if depth <= len(ranks) else 0
            kind = "forced" if m["forced"] else "first" if rank == 1 else "near" if rank in (2, 3) else "other"
            cells.append(
                {
                    "x": round(n * step, 1),
                    "y": round((depths - depth) * high, 1),
                    "w": max(1.0, round(step - 1, 1)),
                    "h": round(max(1.0, high - 1), 1),
                    "kind": kind,
                    "label": f"{m['number']}. {m['point']}: {depth} → {rank or '–'}",
                }
            )
    return cells


def _case_or_404(request: HttpRequest, pk: int) -> Case:
    case = Case.objects.select_related("player", "tournament").filter(pk=pk).first()
    if case is None or not services.may_review(request.user, case):
        raise Http404
    return case


@login_required
def case_page(request: HttpRequest, pk: int) -> HttpResponse:
    case = _case_or_404(request, pk)
    screenings = Screening.objects.filter(player=case.player, tournament=case.tournament).select_related("game")
    focus = dict(
        FocusLoss.objects.filter(player=case.player, game__in=screenings.values("game_id"))
        .values("game_id")
        .annotate(n=Count("pk"))
        .values_list("game_id", "n")
    )
    games = [
        {
            "screening": s,
            "percentile": percentile(s.z),
            "charts": charts(s.moves),
            "stats": s.stats,
            "focus": focus.get(s.game_id, 0),
        }
        for s in screenings.order_by("game_id")
    ]
    decisions = list(Decision.objects.filter(case=case).select_related("referee"))
    reports = services.reports_about(case)
    deciders = {d.referee_id for d in decisions if d.stage == "first"}
    context = {
        "case": case,
        "games": games,
        "decisions": decisions,
        "outcomes": Case.Outcome.choices,
        "may_decide": case.status == Case.Status.OPEN and request.user.pk not in deciders,
        "may_hear": case.status == Case.Status.APPEALED and request.user.pk not in deciders,
        "threshold": THRESHOLD,
        "unclear": UNCLEAR,
        "shallow": SHALLOW,
        "event_percentile": percentile(case.z),
        "reports": reports,
        "reports_weight": round(sum(r["weight"] for r in reports), 2),
    }
    return render(request, "fairplay/case.html", context)


def _act(request: HttpRequest, pk: int, work: Any) -> HttpResponse:
    try:
        work()
    except GameError as exc:
        messages.error(request, exc.message)
    return redirect("fairplay-case", pk=pk)


@require_POST
@login_required
def decide(request: HttpRequest, pk: int) -> HttpResponse:
    _case_or_404(request, pk)
    outcome, note = request.POST.get("outcome", ""), request.POST.get("note", "")
    return _act(request, pk, lambda: services.decide(case_id=pk, user=request.user, outcome=outcome, note=note))


@require_POST
@login_required
def hear(request: HttpRequest, pk: int) -> HttpResponse:
    _case_or_404(request, pk)
    outcome, note = request.POST.get("outcome", ""), request.POST.get("note", "")
    return _act(request, pk, lambda: services.hear(case_id=pk, user=request.user, outcome=outcome, note=note))


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    """The player's own decided cases: the outcome, the grounds, and the appeal."""
    cases = (
        Case.objects.filter(player__user_id=request.user.pk or 0)
        .exclude(status=Case.Status.OPEN)
        .select_related("tournament")
    )
    return render(request, "fairplay/mine.html", {"cases": cases})


@require_POST
@login_required
def appeal(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.appeal(case_id=pk, user=request.user, text=request.POST.get("text", ""))
        messages.success(request, _("Your appeal is sent; a referee who did not decide the case will hear it."))
    except GameError as exc:
        if exc.status == 404:
            raise Http404 from None
        messages.error(request, exc.message)
    return redirect("fairplay-mine")
