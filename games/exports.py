"""Game records out of the database: the plain format and RenjuNet-style XML."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from engine.protocols import opening_name as protocol_opening_name
from engine.records import (
    RESULT_CODES,
    RifGame,
    RifTournament,
    format_actions,
    format_plain,
    format_rif,
    format_times,
    opening_name,
)
from engine.search import analysis as engine_analysis
from games.clock import PRESETS
from games.enums import GameMode
from games.models import Analysis, Game
from games.services import game_state


@dataclass
class Recorded:
    """What a game's record says: its actions (or settled stones), times per action and the stones."""

    body: str  # the plain format's move text
    stones: str
    actions: list[str]
    times: list[int | None]
    colors: list[str]


def recorded(game: Game) -> Recorded:
    moves = list(game.moves.order_by("ply").values_list("text", "clock_ms", "color"))
    if not moves and game.mode == GameMode.OVER_THE_BOARD:  # settled from a report: the stones only
        return Recorded(game.record_text, game.record_text, [], [], [])
    actions = [text for text, _c, _col in moves]
    stones = " ".join(str(m) for m in game_state(game).board.move_stack)
    times = [(c or {}).get("think_ms") for _t, c, _col in moves]
    return Recorded(format_actions(actions), stones, actions, times, [col for _t, _c, col in moves])


def game_moves(game: Game) -> str:
    """The stones of the game in order (``pass`` included)."""
    return recorded(game).stones


def record_digest(stones: str, rules: str) -> str:
    """What an analysis was made of: the stones and the rules (an analysis of another record is not shown)."""
    return hashlib.sha256(f"{rules}|{stones}".encode()).hexdigest()


def analysis_comments(game: Game) -> list[str]:
    """The stored analysis as record comments (``# 23. k8 missed a VCF: …``), if it read this record."""
    analysis = Analysis.objects.filter(game=game, status=Analysis.Status.DONE).first()
    if analysis is None or analysis.record != record_digest(game_moves(game), game.rules):
        return []
    lines = []
    for mark in analysis.marks:
        note = engine_analysis.MoveNote(
            number=mark["number"],
            point=mark["point"],
            color=mark["color"],
            win=engine_analysis.Win(**mark["win"]) if mark.get("win") else None,
            missed=mark.get("missed", False),
            allowed=engine_analysis.Win(**mark["allowed"]) if mark.get("allowed") else None,
        )
        if note.comment:
            lines.append(f"# {note.number}. {note.point} {note.comment}")
    return lines


def _opening(game: Game, stones: str) -> str:
    if game.mode == GameMode.OVER_THE_BOARD and not game.moves.exists():
        from engine import parse_moves

        return opening_name([m.point for m in parse_moves(stones) if m.point is not None])
    return protocol_opening_name(game_state(game).opening) or opening_name(
        [m.point for m in game_state(game).board.move_stack[:3] if m.point is not None]
    )


def _label(player: object) -> str:
    return str(player) if player is not None else ""


def _time_control(game: Game) -> str:
    """A preset by name, a custom control as JSON; nothing for an untimed game."""
    name = str(game.time_control.get("name", ""))
    if name in ("", "untimed"):
        return ""
    if name in PRESETS and PRESETS[name].to_dict() == game.time_control:
        return name
    return json.dumps(game.time_control, sort_keys=True)


def _header(game: Game, record: Recorded) -> dict[str, str]:
    return {
        "Event": game.event,
        "Round": game.round,
        "Game": str(game.pk),
        "Date": (game.finished_at or game.created_at).date().isoformat(),
        "Black": _label(game.black or game.player_one),
        "White": _label(game.white or game.player_two),
        "Rule": game.rules,
        "Protocol": game.protocol if game.protocol != "none" else "",
        "Options": json.dumps(game.protocol_options, ensure_ascii=False, sort_keys=True)
        if game.protocol_options
        else "",
        "Forbidden": game.forbidden_mode,
        "Opening": _opening(game, record.stones),
        "TimeControl": _time_control(game),
        "Times": format_times(record.times),
        "Result": RESULT_CODES.get(game.result, "*"),
        "Reason": game.result_reason,
        "Board": str(game.board_number or ""),
    }


def export_plain(game: Game, record: Recorded | None = None) -> str:
    """The plain record; the engine's analysis, when there is one for this record, as ``#`` comments after it
    (``record``: another record of the game than its own, as a relay keeps it)."""
    record = record or recorded(game)
    text = format_plain(_header(game, record), record.body)
    comments = analysis_comments(game)
    return text + "\n".join(comments) + "\n" if comments else text


def _rif_extra(game: Game, record: Recorded, header: dict[str, str]) -> dict[str, str]:
    spent = {"black": 0, "white": 0}
    for ms, colour in zip(record.times, record.colors, strict=True):
        if ms is not None and colour in spent:
            spent[colour] += ms
    known = any(t is not None for t in record.times)
    swaps = [("1" if a == "swap" else "0") for a in record.actions if a in ("swap", "no-swap")]
    offers = [a.split(" ", 1)[1] for a in record.actions if a.startswith("offer ")]
    return {
        "round": game.round,
        "event": game.event,
        "btime": str(round(spent["black"] / 1000)) if known else "",
        "wtime": str(round(spent["white"] / 1000)) if known else "",
        "swap": " ".join(swaps),
        "alt": " ".join(offers),
        "protocol": header["Protocol"],
        "options": header["Options"],
        "reason": game.result_reason,
        "times": header["Times"],
        "timecontrol": header["TimeControl"],
    }


def export_rif(
    games: list[Game],
    now: datetime,
    tournament: RifTournament | None = None,
    records: Mapping[int, Recorded] | None = None,
) -> str:
    """The games as RenjuNet's ``.rif``, their players with native names, countries and cities (``records``:
    by game id, another record than the game's own, as a relay keeps it)."""
    entries = []
    for game in games:
        record = (records or {}).get(game.pk) or recorded(game)
        header = _header(game, record)
        entries.append(
            RifGame(
                number=game.pk,
                black=header["Black"],
                white=header["White"],
                result=game.result,
                opening=header["Opening"].split(" ")[0],
                rule=game.rules,
                date=header["Date"],
                moves=record.stones,
                extra=_rif_extra(game, record, header),
                actions=record.body if record.actions else "",
            )
        )
    people = {
        _label(p): {"native_name": p.native_name, "country": p.country, "city": p.city}
        for game in games
        for p in (game.black, game.white)
        if p is not None
    }
    return format_rif(entries, now.strftime("%Y-%m-%d %H:%M:%S"), tournament, people)
