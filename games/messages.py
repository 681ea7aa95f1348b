"""The engine speaks English; users read their own language.

The engine stays free of Django, so its error messages are translated here:
each known message shape is a pattern whose named parts fill a translated
template. An unknown message passes through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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
PLAYERS = {"player one": gettext_lazy("player one"), "player two": gettext_lazy("player two")}


def outcome_text(outcome: Any) -> str:
    """How a replayed record ended, in the active language (an ``engine.rules.Outcome``)."""
    kind = str(outcome.termination.value)
    if kind == "five":
        return _("a five by %(color)s") % {"color": COLORS[str(outcome.winner)]}
    if kind == "forbidden":
        return _("a forbidden move")
    return str({"full-board": _("a full board"), "two-passes": _("two passes")}.get(kind, kind))


def result_text(game: Any) -> str:
    """How the game ended, in the reader's language: the reason with its detail (a code or a referee's note)."""
    from games.enums import ResultReason

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


def _rules() -> list[tuple[str, Callable[[dict[str, str]], str]]]:
    # Built per call so that gettext runs in the active language.
    return [
        (r"(?P<point>\w+) is already occupied", lambda g: _("%(point)s is already occupied") % g),
        (r"(?P<point>\w+) is off the (?:\d+x\d+ )?board", lambda g: _("%(point)s is off the board") % g),
        (
            r"'(?P<text>.*)' is not a point .*",
            lambda g: _("'%(text)s' is not a point (write a letter and a number, like h8)") % g,
        ),
        (
            r"'(?P<text>.*)' is off the (?P<size>\d+)x\d+ board",
            lambda g: _("'%(text)s' is off the %(size)s×%(size)s board") % g,
        ),
        (r"not a move .*", lambda g: _("not a move (write a point like h8, or pass)")),
        (
            r"it is (?P<actor>player \w+)'s turn, not (?P<player>player \w+)'s",
            lambda g: (
                _("it is %(actor)s's turn, not %(player)s's")
                % {"actor": PLAYERS[g["actor"]], "player": PLAYERS[g["player"]]}
            ),
        ),
        (r"expected (?P<wanted>.+), got (?P<got>[\w-]+)", lambda g: _("expected %(wanted)s, got %(got)s") % g),
        (r"the opening is over; .*", lambda g: _("the opening is over; play continues under the rule set")),
        (
            r"the (?P<ordinal>\w+) stone must be (?P<region>.+)",
            lambda g: (
                _("the %(ordinal)s stone must be %(region)s")
                % {"ordinal": ORDINALS.get(g["ordinal"], g["ordinal"]), "region": REGIONS.get(g["region"], g["region"])}
            ),
        ),
        (
            r"the (?P<ordinal>\w+) stone of the assigned opening goes on (?P<point>.+)",
            lambda g: (
                _("the %(ordinal)s stone of the assigned opening goes on %(point)s")
                % {"ordinal": ORDINALS.get(g["ordinal"], g["ordinal"]), "point": g["point"]}
            ),
        ),
        (
            r"the number of fifth-move offers must be between (?P<low>\d+) and (?P<high>\d+), got (?P<n>\d+)",
            lambda g: _("the number of fifth-move offers must be between %(low)s and %(high)s, got %(n)s") % g,
        ),
        (r"no number of offers has been declared", lambda g: _("no number of offers has been declared")),
        (
            r"offer exactly (?P<wanted>\d+) points? for move 5, got (?P<got>\d+)",
            lambda g: _("offer exactly %(wanted)s points for move 5, got %(got)s") % g,
        ),
        (r"(?P<point>\w+) is offered twice", lambda g: _("%(point)s is offered twice") % g),
        (
            r"(?P<first>\w+) and (?P<second>\w+) are symmetric offers",
            lambda g: _("%(first)s and %(second)s are symmetric offers: they give the same position") % g,
        ),
        (
            r"choose one of the offered points: (?P<points>.+)",
            lambda g: _("choose one of the offered points: %(points)s") % g,
        ),
        (
            r"choose branch (?P<branches>.+), got (?P<got>\d+)",
            lambda g: _("choose branch %(branches)s, got %(got)s") % g,
        ),
        (r"unknown action '(?P<word>.*)'", lambda g: _("unknown action '%(word)s'") % g),
        (
            r"malformed action '(?P<text>.*)': (?P<rest>.*)",
            lambda g: _("malformed action '%(text)s': %(rest)s") % {"text": g["text"], "rest": translate(g["rest"])},
        ),
        (r"offer needs points", lambda g: _("an offer needs points, like: offer h10 j10")),
        (r"(?P<kind>[\w-]+) needs one point", lambda g: _("%(kind)s needs one point, like: %(kind)s h8") % g),
        (
            r"no opening '(?P<name>.*)': .*",
            lambda g: _("There is no opening %(name)s: give a number 1–26, a code like 3D or a name like 疏星.") % g,
        ),
        (r"empty action", lambda g: _("empty action")),
    ]


_PREFIX = re.compile(r"^move (?P<n>\d+)(?: \('(?P<token>.*)' at character (?P<char>\d+)\))?: (?P<rest>.*)$")


def translate(message: str) -> str:
    """An engine message in the active language (unknown shapes pass through)."""
    prefix = _PREFIX.match(message)
    if prefix:
        rest = translate(prefix["rest"])
        if prefix["token"] is not None:
            return _("move %(n)s ('%(token)s' at character %(char)s): %(rest)s") % {**prefix.groupdict(), "rest": rest}
        return _("Move %(n)s: %(error)s") % {"n": prefix["n"], "error": rest}
    for pattern, render in _rules():
        match = re.fullmatch(pattern, message)
        if match:
            return render(match.groupdict())
    return message
