"""Making a tournament and entering players: the presets, the first stage, registration, publishing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games.models import Player
from games.services.players import clean_text
from tournament.errors import TournamentError
from tournament.identity import check_may_enter
from tournament.models import Entry, Stage, Tournament
from tournament.services.common import audit
from tournament.stage_formats import FORMATS, format_for

PRESETS = {
    # The seed (五子棋比赛规则及流程): free-style, no opening rule, quick play, results over the board.
    "seed": {
        "rules": "freestyle",
        "protocol": "none",
        "forbidden_mode": "claim",
        "time_control": "quick",
        "mode": "otb",
        "boards": 6,
    },
    # A Swiss open as Renju events run them: renju, RIF opening, one Swiss stage (options: tournament.swiss).
    "swiss": {
        "rules": "renju",
        "protocol": "rif",
        "forbidden_mode": "claim",
        "time_control": "rif-90+30",
        "mode": "otb",
        "boards": 50,
    },
    # A team event as the RIF's Team World Championship runs it: renju, RIF opening, teams of 4 boards.
    "teams": {
        "rules": "renju",
        "protocol": "rif",
        "forbidden_mode": "claim",
        "time_control": "rif-90+30",
        "mode": "otb",
        "boards": 40,
    },
    # A double-elimination knockout at the seed's quick play (options: tournament.double_elimination.format).
    "double": {
        "rules": "freestyle",
        "protocol": "none",
        "forbidden_mode": "claim",
        "time_control": "quick",
        "mode": "otb",
        "boards": 8,
    },
    "renju-rif": {
        "rules": "renju",
        "protocol": "rif",
        "forbidden_mode": "claim",
        "time_control": "rif-90+30",
        "mode": "otb",
        "boards": 6,
    },
}


# The format of each preset's first stage (a key of tournament.stage_formats.FORMATS).
FIRST_STAGE = {"seed": "groups", "swiss": "swiss", "renju-rif": "groups", "teams": "teams", "double": "double_elim"}


@transaction.atomic
def tournament_create(
    *,
    name: str,
    preset: str = "seed",
    actor: Any = None,
    stage_options: dict[str, Any] | None = None,
    first_stage: str = "",
    **fields: Any,
) -> Tournament:
    """A tournament in a preset format; its first stage (the seed's group draw, or a Swiss stage with
    ``stage_options``, checked by the stage's format; ``first_stage`` names another registered format) is
    ready to draw."""
    if preset not in PRESETS:
        raise TournamentError("bad_preset", _("Unknown preset %(name)s.") % {"name": preset})
    kind = first_stage or FIRST_STAGE[preset]
    if kind not in FORMATS:
        raise TournamentError("bad_stage", _("Unknown stage format %(name)s.") % {"name": kind})
    first = format_for(kind)
    options = first.check_options(stage_options or {})
    name = clean_text(name)
    if not name:
        raise TournamentError("bad_name", _("A tournament needs a name."))
    tournament = Tournament.objects.create(name=name, preset=preset, **{**PRESETS[preset], **fields})
    Stage.objects.create(tournament=tournament, order=1, name=first.first_name(), kind=first.kind, options=options)
    if isinstance(actor, User):  # the creator runs it (and may add co-organizers)
        tournament.organizers.add(actor)
    audit(tournament, "create", actor, preset=preset)
    return tournament


@transaction.atomic
def register(*, tournament: Tournament, player: Player, seed: int | None = None, actor: Any = None) -> Entry:
    """Enter a player; idempotent; refuses a player ``actor`` does not keep (tournament.identity), a unit over
    the tournament's limit or a started tournament."""
    existing = Entry.objects.filter(tournament=tournament, player=player).first()
    if existing is not None:
        return existing
    check_may_enter(actor, player)
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        raise TournamentError("draw_made", _("Entries close when the first draw is made."), 409)
    if player.computer_level is not None:
        raise TournamentError("computer", _("The computer opponent plays practice games only."))
    if tournament.max_per_unit and player.unit:
        count = Entry.objects.filter(tournament=tournament, player__unit=player.unit).count()
        if count >= tournament.max_per_unit:
            raise TournamentError(
                "unit_full",
                _("%(unit)s already has %(n)s entries, the most allowed.") % {"unit": player.unit, "n": count},
            )
    entry = Entry.objects.create(tournament=tournament, player=player, seed=seed)
    audit(tournament, "register", actor, player=player.pk)
    return entry


@transaction.atomic
def publish(*, tournament: Tournament, actor: Any = None) -> Tournament:
    if tournament.status == Tournament.Status.DRAFT:
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.PUBLISHED)
        audit(tournament, "publish", actor)
    tournament.refresh_from_db()
    return tournament
