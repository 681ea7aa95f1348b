"""The Swiss system's Celery task: pairing a large field away from the web request (registered with the
worker through the format's import in ``TournamentConfig.ready``)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from games import live
from tournament.models import GroupMember, Stage
from tournament.services import TournamentError, audit
from tournament.swiss.services import swiss_pair


@shared_task(name="tournament.swiss_pair", ignore_result=True)
def swiss_pair_task(stage_id: int, actor_id: int | None = None) -> str:
    """Pair the next round of a Swiss stage (the program in a child process); a refusal is logged where the
    control room shows it. Idempotent: a second task for the same round is refused (the draft exists)."""
    stage = Stage.objects.select_related("tournament").get(pk=stage_id)
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    try:
        rnd = swiss_pair(stage=stage, actor=actor, isolated=True)
    except TournamentError as exc:
        audit(stage.tournament, "swiss_pair_failed", actor, stage=stage.pk, code=exc.code, message=str(exc.message))
        return exc.code
    live.changed(f"tournament:{stage.tournament_id}")
    return f"round {rnd.number}"


def pair_in_background(stage: Stage) -> bool:
    """Whether the stage's field is large enough to be paired by the task rather than in the request."""
    return GroupMember.objects.filter(group__stage=stage).count() > settings.SWISS_SYNC_PLAYERS


def queue_swiss_pair(stage: Stage, actor: object) -> None:
    """Send the pairing to the worker; a broker that cannot be reached is a clear refusal, not a 500."""
    try:
        swiss_pair_task.apply_async((stage.pk, getattr(actor, "pk", None)), retry=False)
    except Exception:  # noqa: BLE001 - any failure to publish means the same to the organizer
        raise TournamentError(
            "worker_unreachable", _("The background worker cannot be reached; try again in a moment."), 503
        ) from None
