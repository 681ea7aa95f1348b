"""The tournaments' Celery tasks common to every format: calling the online games that waited for room, and
pairing a round of a large field away from the web request (the one round lifecycle's ``round_pair``)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from games import live
from tournament.errors import TournamentError
from tournament.models import GroupMember, Stage
from tournament.services.common import audit, call_for_room
from tournament.services.rounds import round_pair
from tournament.stage_formats import format_of


@shared_task(name="tournament.call_for_room", ignore_result=True)
def call_for_room_task() -> int:
    """The online matches that waited for room on the server, called once games have ended (beat, every 2 s)."""
    return call_for_room()


@shared_task(name="tournament.round_pair", ignore_result=True)
def round_pair_task(stage_id: int, actor_id: int | None = None) -> str:
    """Pair the next round of a stage (its program in a child process); a refusal is logged where the
    control room shows it. Idempotent: a second task for the same round is refused (the draft exists)."""
    stage = Stage.objects.select_related("tournament").get(pk=stage_id)
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    try:
        rnd = round_pair(stage=stage, actor=actor, isolated=True)
    except TournamentError as exc:
        audit(stage.tournament, "round_pair_failed", actor, stage=stage.pk, code=exc.code, message=str(exc.message))
        return exc.code
    live.changed(f"tournament:{stage.tournament_id}")
    return f"round {rnd.number}"


def pair_in_background(stage: Stage) -> bool:
    """Whether the stage's pairing program is slow and its field large enough (more than
    ``SWISS_SYNC_PLAYERS``) to be paired by the task rather than in the request."""
    if not format_of(stage).pairs_outside_lock:
        return False
    return GroupMember.objects.filter(group__stage=stage).count() > settings.SWISS_SYNC_PLAYERS


def queue_round_pair(stage: Stage, actor: object) -> None:
    """Send the pairing to the worker; a broker that cannot be reached is a clear refusal, not a 500."""
    try:
        round_pair_task.apply_async((stage.pk, getattr(actor, "pk", None)), retry=False)
    except Exception:  # noqa: BLE001 - any failure to publish means the same to the organizer
        raise TournamentError(
            "worker_unreachable", _("The background worker cannot be reached; try again in a moment."), 503
        ) from None
