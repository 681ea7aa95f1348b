"""Tournaments, entries, stages, groups, matches and the organizer's audit log; the formats' own models (a
Swiss stage's byes, a team event's teams, team matches and lineups) are in their packages and loaded here,
where Django loads the app's models.

Players are the games app's ``Player``; a match owns its games through ``MatchGame``. Standings are computed
from the games, never stored.
"""

from tournament.models.records import Appeal, ArenaBout, AuditLog, Consent
from tournament.models.rounds import Round, shown_edits, shown_rounds
from tournament.models.stages import Group, GroupMember, Match, MatchGame, Stage
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
from tournament.swiss.models import SwissBye  # each format's models live in its package; the app loads them here
from tournament.teams.models import Lineup, Team, TeamBoard, TeamMatch, TeamMember

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
    "TeamBoard",
    "TeamMatch",
    "TeamMember",
    "TieDecider",
    "Tournament",
    "WithdrawalPolicy",
    "entry_rating",
    "shown_edits",
    "shown_rounds",
]
