"""Reads for the tournament pages and the API: standings pages, crosstables, bracket rounds, boards, notices.

The standings arithmetic itself is in :mod:`tournament.standings`; pages add only presentation.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.records import RifTournament
from games.enums import GameMode, GameResult, GameStatus
from games.models import Game, GameEvent
from games.selectors import clock_view, game_state
from tournament.models import NO_SHOW, ArenaBout, Group, Match, MatchGame, Round, Stage, Tournament
from tournament.stage_formats import format_of
from tournament.standings import load_stage, order_in


def arena_summary(tournament: Tournament) -> dict[str, Any]:
    """The holder, the current streak and the longest streak (successful defences in a row)."""
    bouts = list(ArenaBout.objects.filter(tournament=tournament).select_related("winner").order_by("id"))
    best: tuple[int, Any] = (0, None)
    streak, holder = 0, None
    for bout in bouts:
        if holder is not None and bout.winner_id == holder.pk:
            streak += 1
        else:
            holder, streak = bout.winner, 1 if bout.winner_id == bout.holder_id else 0
        if streak > best[0]:
            best = (streak, holder)
    return {
        "holder": holder.name if holder else None,
        "streak": streak,
        "longest": {"player": best[1].name if best[1] else None, "defences": best[0]},
        "bouts": len(bouts),
    }


def standings_context(tournament: Tournament, labels: dict[str, Any]) -> dict[str, Any]:
    """Every started stage's tables (rows labelled by ``labels``), crosstables and bracket rounds; the final table."""
    stages: list[dict[str, Any]] = []
    for stage in tournament.stages.exclude(status=Stage.Status.PENDING).order_by("order"):
        stage_format = format_of(stage)
        tables = stage_format.tables(stage)
        for table in tables:
            for row in table["rows"]:
                row["state_label"] = labels.get(row["state"], row["state"])
        stages.append(
            {
                "stage": stage,
                "tables": tables,
                "crosstables": crosstables(stage),
                "final": stage_format.ranks_places,
                "part": stage_format.page_part,  # the format's own part of the page: its template and data
                "part_context": stage_format.page_context(stage) if stage_format.page_part else {},
            }
        )
    final = next((s for s in reversed(stages) if s["final"]), None)
    return {
        "stages": stages,
        "final": final["tables"][0] if final and final["tables"] else None,
        "notices": notices(tournament),
    }


def ranking(tournament: Tournament) -> list[dict[str, Any]]:
    """The tournament's order of places as far as it is known: the final round robin's table, or the last
    stage that ranks its players itself (a Swiss stage's standings, withdrawn players left out)."""
    context = standings_context(tournament, {})
    if context["final"] is not None:
        return [
            {"rank": r["rank"], "player": r["player"], "unit": r["unit"], "points": r["points"]}
            for r in context["final"]["rows"]
        ]
    for block in reversed(context["stages"]):
        rows = format_of(block["stage"]).ranking_rows(block["stage"])
        if rows:
            return rows
    return []


def notices(tournament: Tournament) -> list[str]:
    """What changed after the fact, for the public: corrected results, draws redone, ties decided, withdrawals."""
    out: list[str] = []
    for event in (
        GameEvent.objects.filter(kind=GameEvent.Kind.CORRECTED, game__match_game__match__tournament=tournament)
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
        for _notice in stage.redraws:
            out.append(str(_("Draw of %(stage)s redone after a correction (same seed).")) % {"stage": stage.name})
    for group in Group.objects.filter(stage__tournament=tournament, void=False).exclude(decision={}).order_by("pk"):
        how = _("by lot") if group.decision.get("by") == "lot" else _("by the organizer")
        out.append(
            str(_("Tie in %(group)s decided %(how)s after drawn playoff games.")) % {"group": group.name, "how": how}
        )
    for name, withdrawal in (
        tournament.entries.filter(withdrawn=True).order_by("pk").values_list("player__name", "withdrawal")
    ):
        if (withdrawal or {}).get("reason") == NO_SHOW:
            out.append(str(_("%(name)s did not check in and is not playing.")) % {"name": name})
        else:
            out.append(str(_("%(name)s withdrew.")) % {"name": name})
    for stage in tournament.stages.order_by("order"):
        out += format_of(stage).notices(stage)
    return out


def crosstables(stage: Stage) -> list[dict[str, Any]]:
    """Each round-robin group as a matrix: every game's result and colour, row player against column player."""
    data = load_stage(stage, final=format_of(stage).ranks_places)
    player_of = {entry: info.player_id for entry, info in data.entries.items()}
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
                elif game.result == GameResult.DRAW:
                    mark = "½"
                else:
                    mark = "1" if game.result == colour else "0"
                cells[(me, other)].append({"colour": colour, "mark": mark, "game": str(game.pk)})  # type: ignore[index]  # colours are set
        rows = []
        for entry in order:
            name = data.entries[entry].name
            rows.append(
                {
                    "name": name,
                    "cells": [
                        None if other == entry else cells[(player_of[entry], player_of[other])] for other in order
                    ],
                }
            )
        out.append({"group": group, "names": [data.entries[e].name for e in order], "rows": rows})
    return out


def schedule_context(tournament: Tournament) -> dict[str, Any]:
    on_boards = []
    for match in (
        Match.objects.filter(tournament=tournament, status=Match.Status.CALLED)
        .select_related("first__player", "second__player", "group__stage")
        .order_by("board")
    ):
        game = match.games.order_by("-match_game__number").select_related("black", "white").first()
        on_boards.append({"board": match.board, "match": match, "game": game, **_board_state(match, game)})
    waiting = list(
        Match.objects.filter(
            tournament=tournament, status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING
        )
        .select_related("first__player", "second__player", "group__stage")
        .order_by("group__stage__order", "round", "group__number", "order")[:12]
    )
    finished, by_name = _this_round(tournament)
    return {"on_boards": on_boards, "waiting": waiting, "finished": finished, "by_name": by_name, "now": timezone.now()}


def _halves(value: int) -> str:
    whole, half = divmod(value, 2)
    return f"{whole}½" if half and whole else "½" if half else str(whole)


def _this_round(tournament: Tournament) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The round in play of the running stages: its finished boards with their results (kept on the boards
    until the next round is called), and everyone in it by name with their board, role and opponent — the
    list a hall reads to find its board."""
    matches = (
        Match.objects.filter(tournament=tournament, group__stage__status=Stage.Status.RUNNING)
        .exclude(status=Match.Status.CANCELLED)
        .exclude(second=None)
        .select_related("first__player", "second__player")
    )
    open_rounds = matches.exclude(status=Match.Status.FINISHED).values_list("round", flat=True)
    number = max(open_rounds, default=None) or max(matches.values_list("round", flat=True), default=None)
    if number is None:
        return [], []
    this_round = list(matches.filter(round=number).order_by("board", "group__number", "order"))
    points: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # match -> first's, second's (halves)
    firsts = {m.pk: m.first.player_id for m in this_round}
    for match_id, result, black in MatchGame.objects.filter(
        match__in=[m for m in this_round if m.status == Match.Status.FINISHED],
        counted=True,
        game__status=GameStatus.FINISHED,
    ).values_list("match_id", "game__result", "game__black_id"):
        if result == GameResult.DRAW:
            points[match_id][0] += 1
            points[match_id][1] += 1
        else:
            points[match_id][0 if (result == GameResult.BLACK) == (black == firsts[match_id]) else 1] += 2
    finished = []
    rows = []
    for match in this_round:
        first, second = match.first.player.name, match.second.player.name if match.second else ""
        if match.status == Match.Status.FINISHED:
            mine, theirs = points[match.pk]
            score = f"{_halves(mine)}–{_halves(theirs)}"
            finished.append({"board": match.board, "first": first, "second": second, "score": score})
        states: dict[str, str] = {Match.Status.FINISHED: "done", Match.Status.CALLED: "playing"}
        state = states.get(str(match.status), "waiting")
        rows.append({"name": first, "board": match.board, "role": "first", "opponent": second, "state": state})
        rows.append({"name": second, "board": match.board, "role": "second", "opponent": first, "state": state})
    return finished, sorted(rows, key=lambda r: (r["name"].casefold(), r["board"] or 0))


def _board_state(match: Match, game: Game | None) -> dict[str, Any]:
    """What a spectator wants to know of a board: the game's number in a best-of-N, the stones played,
    whose turn, and both clocks for an online timed game (seat order: black, white)."""
    out: dict[str, Any] = {"game_number": None, "stones": 0, "to_move": None, "clocks": None}
    if game is None:
        return out
    if match.best_of:
        out["game_number"] = match.match_games.filter(number__lte=game.match_game.number).count()
    state = game_state(game)
    out["stones"] = sum(1 for m in state.board.move_stack if m.point is not None)
    if game.status in GameStatus.active():
        out["to_move"] = str(state.board.turn) if state.opening.finished else None
    if game.mode == GameMode.ONLINE and game.status in GameStatus.active():
        view = clock_view(game)
        if view["time_control"].get("main_ms") is not None or view["time_control"].get("move_ms") is not None:
            seats = {1: game.player_one_id, 2: game.player_two_id}
            order = [s for colour in (game.black_id, game.white_id) for s, p in seats.items() if p == colour]
            out["clocks"] = [
                {
                    "left": _clock_text(view["main_left"][s - 1] if view["phase"][s - 1] != "overtime" else None),
                    "acting": view["status"] == "running" and view["actor"] == s,
                }
                for s in order
            ]
    return out


def _clock_text(left_ms: int | None) -> str:
    if left_ms is None:
        return gettext("overtime")
    seconds = max(0, -(-left_ms // 1000))
    return f"{seconds // 60}:{seconds % 60:02d}"


def rif_tournament(tournament: Tournament) -> RifTournament:
    """The tournament for a ``.rif`` export: its dates, venue, rule, rounds (published ones), and the byes
    its stages' formats record."""
    byes = [bye for stage in tournament.stages.order_by("order") for bye in format_of(stage).byes(stage)]
    rounds = Round.objects.filter(stage__tournament=tournament).exclude(status=Round.Status.DRAFT).count()
    return RifTournament(
        name=tournament.name,
        city=tournament.venue,
        start=tournament.start_date.isoformat() if tournament.start_date else "",
        end=tournament.end_date.isoformat() if tournament.end_date else "",
        rule=tournament.rules,
        rounds=rounds,
        byes=byes,
        rated=tournament.rated,
    )
