"""The engine speaks English; users read their own language.

The engine stays free of Django: its errors carry a code and parameters
(:class:`engine.EngineError`), and each code has a translated template here.
An error without a known code passes through as its English text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from engine import EngineError
from games.clock import PRESETS
from games.enums import EventKind, ResultReason

FOUL_LABELS = {
    "double-three": gettext_lazy("double-three (三三)"),
    "double-four": gettext_lazy("double-four (四四)"),
    "overline": gettext_lazy("overline (长连)"),
}
ORDINALS = {
    "first": gettext_lazy("first"),
    "second": gettext_lazy("second"),
    "third": gettext_lazy("third"),
    "fourth": gettext_lazy("fourth"),
    "fifth": gettext_lazy("fifth"),
    "sixth": gettext_lazy("sixth"),
}
REGIONS = {
    "on h8 (天元)": gettext_lazy("on h8 (天元)"),
    "next to h8 (the central 3×3)": gettext_lazy("next to h8 (the central 3×3)"),
    "inside the central 5×5": gettext_lazy("inside the central 5×5"),
    "inside the central 7×7": gettext_lazy("inside the central 7×7"),
    "inside the central 9×9": gettext_lazy("inside the central 9×9"),
}
COLORS = {"black": gettext_lazy("black"), "white": gettext_lazy("white")}


def event_label(kind: str) -> str:
    return str(EventKind(kind).label) if kind in EventKind.values else kind


RULE_LABELS = {
    "freestyle": gettext_lazy("free-style gomoku"),
    "standard": gettext_lazy("standard gomoku (exactly five)"),
    "renju": gettext_lazy("renju"),
    "renju-a": gettext_lazy("renju (a three that can also make five counts)"),
}
PROTOCOL_LABELS = {
    "none": gettext_lazy("no opening rule"),
    "free-swap3": gettext_lazy("free three-stone swap"),
    "rif": gettext_lazy("RIF opening rule"),
    "yamaguchi": gettext_lazy("Yamaguchi"),
    "yamaguchi-52": gettext_lazy("Yamaguchi (52 openings)"),
    "yamaguchi-variation": gettext_lazy("Yamaguchi variation"),
    "tarannikov": gettext_lazy("Tarannikov"),
    "taraguchi": gettext_lazy("Taraguchi"),
    "taraguchi-10": gettext_lazy("Taraguchi-10"),
    "jonsson": gettext_lazy("Jonsson"),
    "soosorv": gettext_lazy("Soosõrv"),
    "soosorv-8": gettext_lazy("Soosõrv-8"),
    "swap1": gettext_lazy("Swap"),
    "swap2": gettext_lazy("Swap2"),
    "chinese": gettext_lazy("Chinese opening rule"),
    "chinese-assigned": gettext_lazy("Chinese opening rule (assigned opening)"),
}


def time_control_label(name: str) -> str:
    """A time-control preset told in words: ``5 min for the game, 30 s a move, then 8 stones at 30 s each``."""
    tc = PRESETS.get(name)
    if tc is None:
        return name
    if tc.main_ms is None and tc.move_ms is None:
        return _("untimed")
    parts = []
    if tc.main_ms is not None:
        minutes = tc.main_ms // 60_000
        parts.append(
            _("%(m)s min for the game") % {"m": minutes}
            if tc.main_scope == "game"
            else _("%(m)s min each") % {"m": minutes}
        )
    if tc.increment_ms:
        parts.append(_("+%(s)s s a move") % {"s": tc.increment_ms // 1000})
    if tc.move_ms is not None:
        parts.append(_("%(s)s s a move") % {"s": tc.move_ms // 1000})
    if tc.ot_stones and tc.ot_move_ms:
        parts.append(_("then %(n)s stones at %(s)s s each") % {"n": tc.ot_stones, "s": tc.ot_move_ms // 1000})
    return _(", ").join(parts)


def rules_label(name: str) -> str:
    return str(RULE_LABELS.get(name, name))


def protocol_label(name: str) -> str:
    return str(PROTOCOL_LABELS.get(name, name))


PLAYERS = {"player one": gettext_lazy("player one"), "player two": gettext_lazy("player two")}
POINT_ERRORS = frozenset({"off_board", "not_a_point", "text_off_board"})


# How an outside engine failed (engine.gomocup.EngineFailure's codes): the game it was playing is forfeited.
ENGINE_FAILURES = {
    "engine_timeout": gettext_lazy("The engine did not answer in time."),
    "engine_crash": gettext_lazy("The engine stopped running."),
    "engine_garbage": gettext_lazy("The engine answered something that is not a move."),
    "engine_illegal": gettext_lazy("The engine played an illegal or forbidden move."),
}


def ending_text(kind: str, winner: str = "") -> str:
    """A termination (``five``, ``full-board`` …) and its winner, in the active language."""
    if kind == "five":
        return _("a five by %(color)s") % {"color": COLORS[winner]}
    if kind == "forbidden":
        return _("a forbidden move")
    return str({"full-board": _("a full board"), "two-passes": _("two passes")}.get(kind, kind))


def result_text(game: Any) -> str:
    """How the game ended, in the reader's language: the reason with its detail (a code or a referee's note)."""
    if not game.result_reason:
        return ""
    reason, detail = game.result_reason, game.result_detail
    if reason == ResultReason.TIME and detail in COLORS:
        return _("%(colour)s ran out of time") % {"colour": COLORS[detail]}
    if reason == ResultReason.FORBIDDEN and detail in FOUL_LABELS:
        return _("forbidden move: %(kind)s") % {"kind": foul_label(detail)}
    if reason == ResultReason.NO_SHOW and detail:
        return _("%(name)s did not come to the board") % {"name": detail}
    label = str(ResultReason(reason).label) if reason in ResultReason.values else reason
    if detail in ENGINE_FAILURES:
        return f"{label}: {ENGINE_FAILURES[detail]}"
    return f"{label}: {detail}" if detail else label


def claim_reason(claim: Any) -> str:
    """Why the engine upheld or rejected a forbidden-move claim, in the active language."""
    data = claim.explanation or {}
    point = claim.point
    if claim.verdict in FOUL_LABELS:
        text = _("%(point)s is a forbidden %(kind)s.") % {"point": point, "kind": foul_label(claim.verdict)}
        if claim.status == "late":
            text += " " + _("The claim came too late: a double-three or double-four is claimed before white moves.")
        return text
    reason = data.get("reason")
    if reason == "five":
        return _("%(point)s makes a five, and a five is never forbidden.") % {"point": point}
    if reason == "no_forbidden_rule":
        return _("This rule set has no forbidden moves.")
    if reason == "not_forbidden":
        return _(
            "%(point)s makes %(fours)s four(s) and %(threes)s real three(s): "
            "not a double-three, a double-four or an overline."
        ) % {"point": point, "fours": data.get("fours", 0), "threes": data.get("threes", 0)}
    return ""


def foul_label(kind: str) -> str:
    return str(FOUL_LABELS.get(kind, kind))


def _ordinal(p: dict[str, Any]) -> str:
    return str(ORDINALS.get(p["ordinal"], p["ordinal"]))


def _fixed(text: Any) -> Callable[[dict[str, Any]], str]:
    """A template that takes no parameters."""
    return lambda _p: str(text)


def _templates() -> dict[str, Callable[[dict[str, Any]], str]]:
    # Built per call so that gettext runs in the active language.
    return {
        "occupied": lambda p: _("%(point)s is already occupied") % p,
        "off_board": lambda p: _("%(point)s is off the board") % p,
        "not_a_point": lambda p: _("'%(text)s' is not a point (write a letter and a number, like h8)") % p,
        "text_off_board": lambda p: _("'%(text)s' is off the %(size)s×%(size)s board") % p,
        "not_a_move": lambda p: _("not a move (write a point like h8, or pass)"),
        "no_stone": lambda p: _("there is no stone at %(point)s") % p,
        "board_size": lambda p: _("the board size must be between 5 and %(max)s, got %(size)s") % p,
        "not_your_turn": lambda p: (
            _("it is %(actor)s's turn, not %(player)s's")
            % {"actor": PLAYERS.get(p["actor"], p["actor"]), "player": PLAYERS.get(p["player"], p["player"])}
        ),
        "expected": lambda p: _("expected %(wanted)s, got %(got)s") % p,
        "opening_over": lambda p: _("the opening is over; play continues under the rule set"),
        "stone_region": lambda p: (
            _("the %(ordinal)s stone must be %(region)s")
            % {"ordinal": _ordinal(p), "region": REGIONS.get(p["region"], p["region"])}
        ),
        "assigned_point": lambda p: (
            _("the %(ordinal)s stone of the assigned opening goes on %(point)s")
            % {"ordinal": _ordinal(p), "point": p["point"]}
        ),
        "offer_count_range": lambda p: (
            _("the number of fifth-move offers must be between %(low)s and %(high)s, got %(n)s") % p
        ),
        "no_offer_count": lambda p: _("no number of offers has been declared"),
        "offer_exactly": lambda p: _("offer exactly %(wanted)s points for move 5, got %(got)s") % p,
        "offered_twice": lambda p: _("%(point)s is offered twice") % p,
        "symmetric_offers": lambda p: (
            _("%(first)s and %(second)s are symmetric offers: they give the same position") % p
        ),
        "choose_offered": lambda p: _("choose one of the offered points: %(points)s") % p,
        "choose_branch": lambda p: _("choose branch %(branches)s, got %(got)s") % p,
        "unknown_action": lambda p: _("unknown action '%(word)s'") % p,
        "malformed_action": lambda p: (
            # A bad point is said as such: the action's internal word ("place") is never shown.
            translate(p["inner"])
            if getattr(p["inner"], "code", "") in POINT_ERRORS
            else _("malformed action '%(text)s': %(rest)s") % {"text": p["text"], "rest": translate(p["inner"])}
        ),
        "needs_points": lambda p: _("an offer needs points, like: offer h10 j10"),
        "needs_point": lambda p: _("%(kind)s needs one point, like: %(kind)s h8") % p,
        "unknown_opening": lambda p: (
            _("There is no opening %(name)s: give a number 1–26, a code like 3D or a name like 疏星.") % p
        ),
        "unknown_protocol": lambda p: _("Unknown opening protocol %(name)s; choose one of %(choices)s.") % p,
        "unknown_rules": lambda p: _("Unknown rule set %(name)s; choose one of %(choices)s.") % p,
        "bad_level": lambda p: _("The computer's level is 1 to 5, not %(level)s.") % p,
        "no_legal_move": lambda p: _("No legal move is left: every empty point is forbidden to Black."),
        "empty_action": lambda p: _("empty action"),
        "at_move": lambda p: (
            _("move %(n)s ('%(token)s' at character %(char)s): %(rest)s") % {**p, "rest": translate(p["inner"])}
            if "token" in p
            else _("Move %(n)s: %(error)s") % {"n": p["n"], "error": translate(p["inner"])}
        ),
        "after_end": lambda p: (
            _("Move %(n)s is played after the game ended at move %(m)s (%(how)s).")
            % {"n": p["n"], "m": p["m"], "how": ending_text(p["termination"], p["winner"])}
        ),
        "foul_on_record": lambda p: (
            _("Move %(n)s (%(point)s) is a forbidden %(kind)s: the game ends there as a white win.")
            % {"n": p["n"], "point": p["point"], "kind": foul_label(p["kind"])}
        ),
        "unreported_five": lambda p: (
            _("The record ends with a five by %(color)s at move %(n)s, which the report does not say.")
            % {"color": COLORS[p["color"]], "n": p["n"]}
        ),
        "unreported_draw": lambda p: _("The record ends in a draw at move %(n)s.") % p,
        "no_five": lambda p: _("The record has no five."),
        "no_foul": lambda p: _("The record has no forbidden move by black."),
        "header_after_moves": lambda p: _("Line %(n)s: header lines come before the moves.") % {"n": p["line"]},
        "bad_header": lambda p: _('Line %(n)s: a header line reads [Key "value"].') % {"n": p["line"]},
        "unmatched_brace": lambda p: _("The moves have an unmatched brace."),
        "chosen_without_stone": lambda p: _("{chosen} follows the stone chosen among the offers, like: g8 {chosen}."),
        "bad_times": lambda p: _("Times lists seconds per action, like 2.5, or - where unknown."),
        "unknown_result": lambda p: _("Unknown result %(code)s; use 1-0, 0-1, 1/2-1/2 or *.") % p,
        "bad_xml": lambda p: _("The .rif file is not well-formed XML: %(error)s") % p,
        # The pbrain protocol's answers to a manager (python -m engine pbrain); shown here when a manager's
        # log is read back.
        "bad_board": lambda p: _("The stones do not make a position with the engine to move."),
        "not_empty": lambda p: _("BEGIN on a board that already has stones."),
        "not_last": lambda p: _("%(point)s is not the last stone played.") % p,
        "bad_field": lambda p: _("%(text)s: the field of a BOARD line is 1, 2 or 3.") % p,
        "no_start": lambda p: _("The engine has had no START yet."),
        # An outside engine that did not give a legal move in time (engine.gomocup.EngineFailure).
        **{code: _fixed(text) for code, text in ENGINE_FAILURES.items()},
        "at_action": lambda p: (
            _("Action %(n)s (%(action)s): %(error)s")
            % {"n": p["n"], "action": p["action"], "error": translate(p["inner"])}
        ),
    }


def translate(error: BaseException | str) -> str:
    """An engine error in the active language, rendered from its code and parameters
    (:class:`engine.EngineError`); anything else passes through as its text."""
    if isinstance(error, EngineError):
        render = _templates().get(error.code)
        if render is not None:
            return render(error.params)
    return str(error)
