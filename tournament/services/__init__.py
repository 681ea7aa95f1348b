"""The tournament's services: every organizer action and every transition, each in a transaction.

- :mod:`~tournament.services.common`: the shared helpers (the audit log, groups' rows, calling matches to
  boards, a match's next game), which the other services and the formats' own packages import;
- :mod:`~tournament.services.setup`: tournaments, presets, entries;
- :mod:`~tournament.services.draws`: draws, starting a stage, pairing a round, the colour toss;
- :mod:`~tournament.services.outcomes`: what follows a finished game (matches, playoffs, stages re-derived
  from the games) and advancing to the next stage;
- :mod:`~tournament.services.corrections`: an organizer's correction, asked about before it is written.

The stage formats only decide (:mod:`tournament.stage_formats`); these are the writers. The error they
raise lives low in the app (:mod:`tournament.errors`) so that the formats and selectors raise it too.
"""

from tournament.errors import TournamentError
from tournament.services.common import audit, call_for_room, call_matches, held_for_room
from tournament.services.corrections import correct_result
from tournament.services.draws import (
    draw_stage,
    pair_next_round,
    record_colour_toss,
    start_stage,
    swap_players,
    undo_draw,
)
from tournament.services.outcomes import advance, group_sync, match_sync, playoff_decide, stage_sync
from tournament.services.setup import PRESETS, publish, register, tournament_create

__all__ = [
    "PRESETS",
    "TournamentError",
    "advance",
    "audit",
    "call_for_room",
    "call_matches",
    "correct_result",
    "draw_stage",
    "group_sync",
    "held_for_room",
    "match_sync",
    "pair_next_round",
    "playoff_decide",
    "publish",
    "record_colour_toss",
    "register",
    "stage_sync",
    "start_stage",
    "swap_players",
    "tournament_create",
    "undo_draw",
]
