"""A knockout stage's bracket on the public page: its best-of-N matches and those of the knockout rounds that
follow, a column per round, and their SVG layout."""

from __future__ import annotations

from typing import Any

from tournament.models import Match, Stage
from tournament.standings import games_won


def rounds(stage: Stage) -> list[dict[str, Any]]:
    """The best-of-N matches of this and the following knockout rounds, a column per round: the players,
    the finished games each has won (those that count) and the winner (0, 1 or None)."""
    stages = list(
        Stage.objects.filter(tournament=stage.tournament, kind=stage.kind, order__gte=stage.order)
        .exclude(status=Stage.Status.PENDING)
        .order_by("order")
    )
    columns: list[dict[str, Any]] = []
    for s in stages:
        boxes = []
        for match in (
            Match.objects.filter(group__stage=s, best_of=True, group__parent__isnull=True)
            .select_related("first__player", "second__player")
            .prefetch_related("match_games__game")
            .order_by("group__number")
        ):
            wins = games_won(match)
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
    return columns


def layout(columns: list[dict[str, Any]]) -> dict[str, Any]:
    """An SVG layout of the bracket rounds (:func:`rounds`)."""
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
