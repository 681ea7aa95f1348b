"""State changes of games: one function per transition, each in a transaction.

Every service guards its transition (the expected ply, the game's status) and
is safe to retry: a repeated submission finds the ply taken and changes
nothing. Every way a game ends goes through :mod:`.finish` (:func:`game_finish`).

By concern: :mod:`.base` (the error type, locking, the event log, the clock
glue), :mod:`.finish` (the one way games end, and what follows), :mod:`.timing` (settling the clock, draw offers,
the referee's clock), :mod:`.play` (creating games, opening steps, stones,
passes, resignation), :mod:`.claims` (禁手 claims), :mod:`.results`
(over-the-board reports, rulings, overrides) and :mod:`.imports` (records).
Reads are in :mod:`games.selectors`.
"""

from games.enums import REPORTABLE_REASONS
from games.selectors import GameState, clock_view, from_ms, game_state, ms
from games.services.base import GameError, lock_game, log_event, seat_of
from games.services.claims import game_claim_forbidden, game_referee_claim
from games.services.finish import game_finish, retry_follow_ups
from games.services.imports import game_import
from games.services.play import clocks_start, game_act, game_create, game_pass, game_resign
from games.services.players import player_find_or_create
from games.services.results import (
    game_confirm_result,
    game_dispute_result,
    game_override,
    game_report_result,
    game_rule,
)
from games.services.timing import game_answer_draw, game_clock_action, game_offer_draw, game_settle, games_settle_due

__all__ = [
    "REPORTABLE_REASONS",
    "GameError",
    "GameState",
    "clocks_start",
    "clock_view",
    "from_ms",
    "game_act",
    "game_answer_draw",
    "game_claim_forbidden",
    "game_clock_action",
    "game_confirm_result",
    "game_create",
    "game_dispute_result",
    "game_finish",
    "game_import",
    "game_offer_draw",
    "game_override",
    "game_pass",
    "game_referee_claim",
    "game_report_result",
    "game_resign",
    "game_rule",
    "game_settle",
    "game_state",
    "games_settle_due",
    "lock_game",
    "log_event",
    "ms",
    "player_find_or_create",
    "retry_follow_ups",
    "seat_of",
]
