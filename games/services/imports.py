"""Reading a finished game back from a record (plain or ``.rif``), with its players."""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from engine import Board, Color, find_rules
from engine.protocols import Action, Options, start
from engine.protocols import Player as Seat
from engine.records import (
    PlainRecord,
    RecordError,
    parse_actions,
    parse_times,
    read_records,
    replay_actions,
    replay_record,
    result_from_code,
)
from games.enums import EventKind, ForbiddenMode, GameMode, GameResult, GameStatus, ResultReason
from games.messages import translate
from games.models import Game, Move, Player
from games.selectors import GameState
from games.services.base import GameError, log_event, sync_colours
from games.services.finish import game_finish
from games.services.play import game_create
from games.services.players import player_find_or_create
from games.services.results import check_result


def _player_named(label: str) -> Player:
    """``Name (Unit)`` or ``Name``: the existing player, or a new one."""
    label = label.strip()
    name, unit = label, ""
    if label.endswith(")") and " (" in label:
        name, unit = label[:-1].split(" (", 1)
    if not name:
        raise GameError("bad_record", _("The record names no black or no white player."))
    return player_find_or_create(name=name, unit=unit)


def _read_record(text: str) -> PlainRecord:
    """One game from the plain format or a ``.rif`` database."""
    records = read_records(text)
    if len(records) != 1:
        raise GameError(
            "bad_record", _("The .rif file holds %(n)s games; import one game at a time.") % {"n": len(records)}
        )
    return records[0]


@transaction.atomic
def game_import(*, text: str, actor: Any = None, interface: str = "api") -> Game:
    """A finished over-the-board game from the plain format or ``.rif``; the engine checks every move.

    A record with the opening protocol's actions (swaps, declarations, offers) is
    replayed through the protocol and keeps every action, who took it and its time.
    """
    try:
        parsed = _read_record(text)
        header = parsed.header
        result = result_from_code(header.get("Result", ""))
        rules = header.get("Rule", "renju")
        find_rules(rules)
        protocol = header.get("Protocol", "") or "none"
        options_data = json.loads(header.get("Options", "") or "{}")
        options = Options(**options_data)
        start(protocol, options)
        replay = replay_actions(protocol, options, parse_actions(parsed.moves)) if "{" in parsed.moves else None
        stones = replay.stones if replay else parsed.moves
        reason = header.get("Reason", "") or (_infer_reason(stones, rules, result) if result else "")
        times = parse_times(header.get("Times", ""), len(replay.actions)) if replay else []
        control = header.get("TimeControl", "") or None
        time_control = json.loads(control) if control and control.startswith("{") else control
    except (RecordError, ValueError, TypeError) as exc:  # a bad header value, option, protocol or action
        raise GameError("bad_record", translate(exc)) from None
    forbidden_mode = header.get("Forbidden", ForbiddenMode.CLAIM)
    if forbidden_mode not in ForbiddenMode.values:
        raise GameError("bad_record", _("Unknown forbidden-move handling %(mode)s.") % {"mode": forbidden_mode})
    black = _player_named(header.get("Black", ""))
    white = _player_named(header.get("White", ""))
    one, two = black, white
    if replay is not None and replay.opening.holder(Color.BLACK) is Seat.TWO:  # the players swapped colours
        one, two = white, black
    if one.pk == two.pk:
        raise GameError("same_player", _("A player cannot play against themselves."))
    game = game_create(
        player_one=one,
        player_two=two,
        rules=rules,
        protocol=protocol,
        protocol_options=options_data,
        mode=GameMode.OVER_THE_BOARD,
        forbidden_mode=forbidden_mode,
        actor=actor,
        interface=interface,
        time_control=time_control,
        event=header.get("Event", "")[:200],
        round=header.get("Round", "")[:40],
    )
    record = check_result(result, reason, stones, game) if result else _replayed(stones, rules)
    if replay is not None:
        Move.objects.bulk_create(
            Move(
                game=game,
                ply=ply,
                kind=Action.parse(step.text).kind.value,
                text=step.text,
                player_number=int(step.seat),
                color=str(step.color) if step.color else "",
                move_number=step.move_number,
                clock_ms={} if spent is None else {"think_ms": spent},
            )
            for ply, (step, spent) in enumerate(zip(replay.actions, times, strict=True), start=1)
        )
        game.ply = len(replay.actions)
        sync_colours(game, GameState(replay.opening, Board.replay(record)))
        game.status = GameStatus.PLAYING if replay.opening.finished else GameStatus.OPENING
    game.record_text = record
    game.save()
    log_event(game, EventKind.IMPORTED, actor, interface, header=header)
    if result:
        game = game_finish(game=game, result=result, reason=reason, actor=actor, interface=interface)
    game.refresh_from_db()
    return game


def _infer_reason(moves: str, rules: str, result: str) -> str:
    """A record without a Reason line: what its last move did, else the referee's word."""
    replay = replay_record(moves, rules)
    if replay.end is not None:
        outcome = replay.end[1]
        return ResultReason.FIVE if outcome.termination.value == "five" else ResultReason.FULL_BOARD
    last = len(replay.board.move_stack)
    if result == GameResult.WHITE and replay.fouls and replay.fouls[-1].move_number == last:
        return ResultReason.FORBIDDEN
    return ResultReason.REFEREE


def _replayed(moves: str, rules: str) -> str:
    try:
        return " ".join(str(m) for m in replay_record(moves, rules).board.move_stack)
    except RecordError as exc:
        raise GameError("bad_record", translate(exc)) from None
