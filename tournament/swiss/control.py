"""The Swiss part of the organizer's control room: its rounds (the buttons post the one round cycle's actions,
tournament.round_control), byes, late entries, returns and settings, each calling one service (refusals come
back as messages in the organizer's language)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from games.parsing import whole
from tournament.identity import player_for_entry
from tournament.models import Entry, GroupMember, Round, Stage
from tournament.round_control import last_failure
from tournament.services import TournamentError
from tournament.swiss import selectors, services, tiebreaks

WARNING_TEXT = {
    "rematch": lambda: _("a rematch"),
    "prohibited": lambda: _("a prohibited pair"),
    "colour": lambda: _("the colour rules broken"),
    "score_jump": lambda: _("a jump across score groups"),
    "second_bye": lambda: _("a second bye"),
}


def swiss_control(stage: Stage, viewer: Any) -> dict[str, Any]:
    """What the control room shows for a Swiss stage: every round newest first (drafts too), with the
    warnings of its edits in words; the players for the forms."""
    data = selectors.load(stage)
    latest = data.rounds[-1].number if data.rounds else None
    # only the latest round in full (a 2,000-player open has 1,000 boards a round); earlier ones link to
    # their pages
    rounds = selectors.rounds_view(stage, data, only=latest, viewer=viewer) if latest else []
    names = {e: i["name"] for e, i in data.info.items()}
    for rnd in rounds:
        for edit in rnd["edits"]:
            edit["warning_texts"] = [
                f"{WARNING_TEXT[w['code']]()}: {'、'.join(names.get(e, str(e)) for e in w['entries'])}"
                for w in edit["warnings"]
            ]
    members = sorted(((e, i["name"], i["withdrawn"]) for e, i in data.info.items()), key=lambda m: m[1])
    paired = len(data.rounds)
    return {
        "failure": last_failure(stage),
        "stage": stage,
        "rounds": rounds,
        "earlier": [r.number for r in data.rounds[:-1]],
        "next_round": paired + 1 if paired < data.options.rounds else None,
        "draft": next((r for r in rounds if r["status"] == Round.Status.DRAFT), None),
        "players": [(e, name) for e, name, withdrawn in members if not withdrawn],
        "withdrawn": [(e, name) for e, name, withdrawn in members if withdrawn],
        "options": data.options,
        "tiebreak_choices": [  # the tie-breaks only, not the words for a complete tie (lot, shared, …)
            (key, label) for key, label in selectors.tiebreak_labels().items() if key in tiebreaks.TIEBREAKS
        ],
        "tiebreak_slots": [data.options.tiebreaks[i] if i < len(data.options.tiebreaks) else "" for i in range(5)],
    }


def _int(post: QueryDict, key: str) -> int:
    text = post.get(key, "").strip()
    number = whole(text.removeprefix("-"))
    if number is None:
        raise TournamentError("bad_input", _("Fill in every field of the form."))
    return -number if text.startswith("-") else number


def _entry(stage: Stage, post: QueryDict, key: str) -> Entry:
    entry = Entry.objects.filter(pk=_int(post, key), tournament_id=stage.tournament_id).first()
    if entry is None or not GroupMember.objects.filter(group__stage=stage, entry=entry).exists():
        raise TournamentError("no_entry", _("There is no such player in this stage."), 404)
    return entry


def _bye(stage: Stage, post: QueryDict, user: Any) -> str:
    entry = _entry(stage, post, "entry")
    services.swiss_request_bye(
        stage=stage, entry=entry, number=_int(post, "round"), kind=post.get("kind", "H"), actor=user
    )
    return _("Bye recorded for %(name)s.") % {"name": entry.player.name}


def _late(stage: Stage, post: QueryDict, user: Any) -> str:
    name = post.get("name", "").strip()
    if not name:
        raise TournamentError("bad_input", _("Give the player's name."))
    player = player_for_entry(
        actor=user,
        tournament=stage.tournament,
        name=name[:100],
        unit=post.get("unit", "").strip()[:100],
        rating=whole(post.get("rating", "").strip(), 9),
    )
    services.swiss_late_entry(stage=stage, player=player, actor=user)
    return _("%(name)s joins from the next round.") % {"name": player.name}


def _settings(stage: Stage, post: QueryDict, user: Any) -> str:
    """The settings form: only the fields present are changed (after round 1 the form shows only those
    that may still change)."""
    options: dict[str, Any] = {}
    for key in ("rounds", "games", "unit_rounds", "unit_last_rounds", "max_requested_byes", "no_byes_last", "advance"):
        if post.get(key, "").strip():
            options[key] = _int(post, key)
    for key in ("pab", "late_score", "then", "rules"):
        if key in post:
            options[key] = post.get(key, "")
    if "accelerate_shown" in post:
        options["accelerate"] = post.get("accelerate") == "on"
    order = [name for name in post.getlist("tiebreak") if name]
    if "tiebreak" in post:
        options["tiebreaks"] = list(dict.fromkeys(order))
    services.swiss_configure(stage=stage, options=options, actor=user)
    return _("Settings saved.")


def _return(stage: Stage, post: QueryDict, user: Any) -> str:
    entry = _entry(stage, post, "entry")
    services.swiss_return(stage=stage, entry=entry, actor=user)
    return _("%(name)s is paired again from the next round.") % {"name": entry.player.name}


SWISS_ACTIONS: dict[str, Callable[[Stage, QueryDict, Any], str]] = {
    "swiss-bye": _bye,
    "swiss-late": _late,
    "swiss-return": _return,
    "swiss-settings": _settings,
}
