"""The one round cycle of every round-by-round stage, for the organizer: what the control room's panels and
the API show of its rounds, and the buttons, each calling one service (:mod:`tournament.services.rounds`;
refusals come back in the organizer's language). A format's own panel (the Swiss system's) posts the same
actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from games.access import may_organize
from games.parsing import whole
from tournament.errors import TournamentError
from tournament.models import Round, Stage, shown_edits, shown_rounds
from tournament.services import rounds as services
from tournament.stage_formats import format_of
from tournament.tasks import pair_in_background, queue_round_pair


def rounds_payload(stage: Stage, *, viewer: Any) -> dict[str, Any]:
    """The stage's rounds as ``viewer`` sees them, newest first: status, boards with names, the program's own
    boards, edits with their warnings in words, and the next round to pair (None when every round is paired or
    the stage is not running). A round not yet published is left out for anyone but the organizer: its pairing
    and the reasons of its edits are the organizer's until published (tournament.models.shown_rounds)."""
    fmt = format_of(stage)
    names = fmt.competitor_names(stage)

    def name(entry: int | None) -> str:
        return "" if entry is None else names.get(entry, str(entry))

    rounds = []
    shown = shown_rounds(viewer, stage.tournament, Round.objects.filter(stage=stage).order_by("-number"))
    for rnd in shown:
        edits = [
            {
                **edit,
                "warning_texts": [
                    f"{fmt.warning_text(w['code'])}: {'、'.join(name(e) for e in w['entries'])}"
                    for w in edit["warnings"]
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
                    {
                        "board": i + 1,
                        "first": a,
                        "first_name": name(a),
                        "second": b,
                        "second_name": name(b),
                        "text": fmt.board_text(why) if isinstance(why, dict) else "",  # in the viewer's language
                    }
                    for i, ((a, b), why) in enumerate(zip(rnd.boards, _padded(rnd.why, len(rnd.boards)), strict=True))
                ],
                "engine_boards": rnd.engine_boards,
                "edited": rnd.boards != rnd.engine_boards,
                "edits": edits,
                "why": rnd.why,
                "notes": rnd.notes,
            }
        )
    planned = fmt.planned_rounds(stage)
    paired = Round.objects.filter(stage=stage).count()
    open_round = stage.status == Stage.Status.RUNNING and (not planned or paired < planned)
    return {
        "stage": stage.pk,
        "name": stage.name,
        "status": stage.status,
        "rounds": rounds,
        "draft": next((r["number"] for r in rounds if r["status"] == Round.Status.DRAFT), None),
        "next_round": paired + 1 if open_round else None,
        "failure": last_failure(stage) if may_organize(viewer, stage.tournament) else "",
    }


def _padded(why: list[Any], count: int) -> list[Any]:
    """A round's reasons, one per board (a format may give fewer, or none)."""
    return [*why[:count], *([{}] * max(0, count - len(why)))]


def last_failure(stage: Stage) -> str:
    """Why the last pairing in the background was refused, if no round was paired since."""
    audits = stage.tournament.audit.filter(data__stage=stage.pk)
    failed = audits.filter(action="round_pair_failed").order_by("-id").first()
    paired = audits.filter(action="round_pair").order_by("-id").values_list("id", flat=True).first() or 0
    return str(failed.data.get("message", "")) if failed and failed.id > paired else ""


def _int(post: QueryDict, key: str) -> int:
    value = whole(post.get(key, ""))
    if value is None:
        raise TournamentError("bad_form", _("The form is incomplete; reload the page."))
    return value


def pair(stage: Stage, user: Any) -> Round | None:
    """Pair the next round as a draft, or (a large field of a slow program) send it to the background task:
    None, and the draft appears when ready."""
    if pair_in_background(stage):
        services.check_can_pair(stage)
        queue_round_pair(stage, user)
        return None
    return services.round_pair(stage=stage, actor=user)


def _pair(stage: Stage, post: QueryDict, user: Any) -> str:
    rnd = pair(stage, user)
    if rnd is None:
        return _("The round is being paired in the background; reload this page in a moment to review the draft.")
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
    warnings = rnd.edits[-1]["warnings"]
    if warnings:
        texts = dict.fromkeys(format_of(stage).warning_text(w["code"]) for w in warnings)
        return _("Changed, with warnings: %(list)s.") % {"list": "; ".join(texts)}
    return _("Round %(n)s changed.") % {"n": rnd.number}


def _publish(stage: Stage, post: QueryDict, user: Any) -> str:
    number = _int(post, "round")
    services.round_publish(stage=stage, number=number, actor=user)
    return _("Round %(n)s published; its games are called to the boards.") % {"n": number}


def _unpair(stage: Stage, post: QueryDict, user: Any) -> str:
    number = _int(post, "round")
    services.round_unpair(stage=stage, number=number, actor=user)
    return _("Round %(n)s unpaired.") % {"n": number}


def _close_lineups(stage: Stage, post: QueryDict, user: Any) -> str:
    made = services.close_lineups(stage=stage, actor=user)
    return _("Lineups closed: %(n)s team matches have their boards.") % {"n": made}


ROUND_ACTIONS: dict[str, Callable[[Stage, QueryDict, Any], str]] = {
    "round-pair": _pair,
    "round-edit": _edit,
    "round-publish": _publish,
    "round-unpair": _unpair,
    "round-close-lineups": _close_lineups,
}
