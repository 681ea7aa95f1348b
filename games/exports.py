"""Game records out of the database: the plain format and RenjuNet-style XML."""

from __future__ import annotations

from datetime import datetime

from engine.protocols import opening_name as protocol_opening_name
from games.enums import GameMode
from games.models import Game
from games.records import RESULT_CODES, RifGame, format_plain, format_rif, opening_name
from games.services import game_state


def game_moves(game: Game) -> str:
    """The stones of the game in order (``pass`` included)."""
    if game.mode == GameMode.OVER_THE_BOARD and game.record_text:
        return game.record_text
    return " ".join(str(m) for m in game_state(game).board.move_stack)


def _opening(game: Game, moves: str) -> str:
    if game.mode == GameMode.OVER_THE_BOARD:
        from engine import parse_moves

        return opening_name([m.point for m in parse_moves(moves) if m.point is not None])
    return protocol_opening_name(game_state(game).opening) or ""


def _label(player: object) -> str:
    return str(player) if player is not None else ""


def export_plain(game: Game) -> str:
    moves = game_moves(game)
    black = game.black or game.player_one
    white = game.white or game.player_two
    day = (game.finished_at or game.created_at).date().isoformat()
    header = {
        "Game": str(game.pk),
        "Date": day,
        "Black": _label(black),
        "White": _label(white),
        "Rule": game.rules,
        "Protocol": game.protocol if game.protocol != "none" else "",
        "Forbidden": game.forbidden_mode,
        "Opening": _opening(game, moves),
        "Result": RESULT_CODES.get(game.result, "*") if game.result else "*",  # type: ignore[call-overload]
        "Reason": game.result_reason,
        "Board": str(game.board_number or ""),
    }
    return format_plain(header, moves)


def export_rif(games: list[Game], now: datetime) -> str:
    entries = []
    for game in games:
        moves = game_moves(game)
        entries.append(
            RifGame(
                number=game.pk,
                black=_label(game.black or game.player_one),
                white=_label(game.white or game.player_two),
                result=game.result,
                opening=_opening(game, moves).split(" ")[0],
                rule=game.rules,
                date=(game.finished_at or game.created_at).date().isoformat(),
                moves=moves,
            )
        )
    return format_rif(entries, now.strftime("%Y-%m-%d %H:%M:%S"))
