"""Tournaments, entries, stages, groups, matches and the organizer's audit log; a Swiss stage's rounds and a
team event's teams.

Players are the games app's ``Player``; a match owns its games through ``MatchGame``. Standings are computed
from the games, never stored.
"""

from tournament.models.records import Appeal, ArenaBout, AuditLog, Consent
from tournament.models.rounds import Round, shown_edits, shown_rounds
from tournament.models.stages import Group, GroupMember, Match, MatchGame, Stage
from tournament.models.swiss import SwissBye
from tournament.models.teams import Lineup, Team, TeamMatch, TeamMember
from tournament.models.tournaments import (
    NO_SHOW,
    CheckIn,
    Entry,
    Invitation,
    TieDecider,
    Tournament,
    WithdrawalPolicy,
    entry_rating,
)

__all__ = [
    "NO_SHOW",
    "Appeal",
    "ArenaBout",
    "AuditLog",
    "CheckIn",
    "Consent",
    "Entry",
    "Group",
    "GroupMember",
    "Invitation",
    "Lineup",
    "Match",
    "MatchGame",
    "Round",
    "Stage",
    "SwissBye",
    "Team",
    "TeamMatch",
    "TeamMember",
    "TieDecider",
    "Tournament",
    "WithdrawalPolicy",
    "entry_rating",
    "shown_edits",
    "shown_rounds",
]
