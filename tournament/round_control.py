"""The round cycle of every round-by-round stage without rounds of its own, for the organizer: what the
control room's panel and the API show of its rounds, and the panel's buttons, each calling one service
(:mod:`tournament.services.rounds`; refusals come back in the organizer's language)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from games.parsing import whole
from tournament.errors import TournamentError
from tournament.models import Entry, Round, Stage, shown_edits, shown_rounds
from tournament.services import rounds as services
from tournament.stage_formats import format_of


def warning_text(code: str) -> str:
    """A warning of a manual change, in words."""
    return _("a rematch") if code == "rematch" else code


def rounds_payload(stage: Stage, *, viewer: Any) -> dict[str, Any]:
    """The stage's rounds as ``viewer`` sees them, newest first: status, boards with names, the program's own
    boards, edits with their warnings in words, and the next round to pair (None when every round is paired or
    the stage is not running). A round not yet published is left out for anyone but the organizer: its pairing
    and the reasons of its edits are the organizer's until published (tournament.models.shown_rounds)."""
    names = dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "player__name"))

    def name(entry: int | None) -> str:
        return "" if entry is None else names.get(entry, str(entry))

    rounds = []
    shown = shown_rounds(viewer, stage.tournament, Round.objects.filter(stage=stage).order_by("-number"))
    for rnd in shown:
        edits = [
            {
                **edit,
                "warning_texts": [
                    f"{warning_text(w['code'])}: {'、'.join(name(e) for e in w['entries'])}" for w in edit["warnings"]
                ],
            }
            for edit in shown_edits(viewer, stage.tournament, rnd.edits)
        ]
        rounds.append(
            {
                "number": rnd.number,
                "status": rnd.status,
                "status_text": rnd.get_status_display(),
                "engine": rnd.engine,
                "boards": [
                    {"board": i + 1, "first": a, "first_name": name(a), "second": b, "second_name": name(b)}
                    for i, (a, b) in enumerate(rnd.boards)
                ],
                "engine_boards": rnd.engine_boards,
                "edited": rnd.boards != rnd.engine_boards,
                "edits": edits,
            }
        )
    planned = format_of(stage).planned_rounds(stage)
    paired = Round.objects.filter(stage=stage).count()
    open_round = stage.status == Stage.Status.RUNNING and (not planned or paired < planned)
    return {
        "stage": stage.pk,
        "name": stage.name,
        "status": stage.status,
        "rounds": rounds,
        "draft": next((r["number"] for r in rounds if r["status"] == Round.Status.DRAFT), None),
        "next_round": paired + 1 if open_round else None,
    }


def _int(post: QueryDict, key: str) -> int:
    value = whole(post.get(key, ""))
    if value is None:
        raise TournamentError("bad_form", _("The form is incomplete; reload the page."))
    return value


def _pair(stage: Stage, post: QueryDict, user: Any) -> str:
    rnd = services.round_pair(stage=stage, actor=user)
    return _("Round %(n)s paired: check it, then publish.") % {"n": rnd.number}


def _edit(stage: Stage, post: QueryDict, user: Any) -> str:
    second = post.get("second", "")
    rnd = services.round_edit(
        stage=stage,
        number=_int(post, "round"),
        action=post.get("change", ""),
        first=_int(post, "first"),
        second=whole(second),
        reason=post.get("reason", ""),
        actor=user,
    )
    return _("Round %(n)s changed.") % {"n": rnd.number}


def _publish(stage: Stage, post: QueryDict, user: Any) -> str:
    number = _int(post, "round")
    services.round_publish(stage=stage, number=number, actor=user)
    return _("Round %(n)s published; its games are called to the boards.") % {"n": number}


def _unpair(stage: Stage, post: QueryDict, user: Any) -> str:
    number = _int(post, "round")
    services.round_unpair(stage=stage, number=number, actor=user)
    return _("Round %(n)s unpaired.") % {"n": number}


ROUND_ACTIONS: dict[str, Callable[[Stage, QueryDict, Any], str]] = {
    "round-pair": _pair,
    "round-edit": _edit,
    "round-publish": _publish,
    "round-unpair": _unpair,
}
