"""The tournament's services: every organizer action and every transition, each in a transaction.

- :mod:`~tournament.services.common`: the shared helpers (the error type, the audit log, groups' rows,
  calling matches to boards, a match's next game) — the one module the others and the stage formats import;
- :mod:`~tournament.services.setup`: tournaments, presets, entries;
- :mod:`~tournament.services.draws`: draws, starting a stage, pairing a round, the colour toss;
- :mod:`~tournament.services.outcomes`: what follows a finished game (matches, playoffs, stages re-derived
  from the games) and advancing to the next stage.

The names below are loaded on first use (PEP 562), so a module low in the app (a stage format, the
check-in arithmetic) can import :mod:`~tournament.services.common` without pulling in the services that
depend on it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tournament.services.common import TournamentError as TournamentError
    from tournament.services.common import audit as audit
    from tournament.services.common import call_matches as call_matches
    from tournament.services.draws import draw_stage as draw_stage
    from tournament.services.draws import pair_next_round as pair_next_round
    from tournament.services.draws import record_colour_toss as record_colour_toss
    from tournament.services.draws import start_stage as start_stage
    from tournament.services.draws import swap_players as swap_players
    from tournament.services.draws import undo_draw as undo_draw
    from tournament.services.outcomes import advance as advance
    from tournament.services.outcomes import group_sync as group_sync
    from tournament.services.outcomes import match_sync as match_sync
    from tournament.services.outcomes import playoff_decide as playoff_decide
    from tournament.services.outcomes import stage_sync as stage_sync
    from tournament.services.setup import PRESETS as PRESETS
    from tournament.services.setup import publish as publish
    from tournament.services.setup import register as register
    from tournament.services.setup import tournament_create as tournament_create

_WHERE = {
    "common": ("TournamentError", "audit", "call_matches"),
    "draws": ("draw_stage", "pair_next_round", "record_colour_toss", "start_stage", "swap_players", "undo_draw"),
    "outcomes": ("advance", "group_sync", "match_sync", "playoff_decide", "stage_sync"),
    "setup": ("PRESETS", "publish", "register", "tournament_create"),
}
_MODULE = {name: module for module, names in _WHERE.items() for name in names}
__all__ = sorted(_MODULE)


def __getattr__(name: str) -> Any:
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULE[name]}"), name)
