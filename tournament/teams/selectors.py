"""Reads of a team event for the pages and the API: the teams, the standings with their tie-breaks, each
round's team matches with the boards and results (a lineup shown only to its own team until both are in or
the deadline passes), and the board prizes."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from games.parsing import whole
from tournament.errors import TournamentError
from tournament.models import (
    Entry,
    Lineup,
    Match,
    MatchGame,
    Stage,
    Team,
    TeamBoard,
    TeamMatch,
    TeamMember,
    Tournament,
)
from tournament.teams import scoring
from tournament.teams.options import TeamOptions
from tournament.teams.services import board_prizes, lineup_visible, team_results, team_standings


def _half(points: int) -> str:
    whole, half = divmod(points, 2)
    return f"{whole}½" if half and whole else ("½" if half else str(whole))


def decided_by_text(name: str) -> str:
    """What placed a team, in the reader's language: a tie-break's name, or how a complete tie was settled."""
    if name.startswith("board_"):
        return _("board %(n)s") % {"n": name.removeprefix("board_")}
    words = {
        "game_points": _("game points"),
        "match_points": _("match points"),
        "buchholz": _("Buchholz"),
        "sonneborn_berger": _("Berger"),
        "direct_encounter": _("direct encounter"),
        "lot": _("lot"),
        "shared": _("shared place"),
        "extra_game": _("extra game"),
        "extra_game_due": _("extra game due"),
    }
    return str(words.get(name, name))


def team_stage_of(tournament: Tournament) -> Stage | None:
    """The tournament's team stage, if it is a team event."""
    return tournament.stages.filter(kind=Stage.Kind.TEAMS).order_by("order").first()


def team_and_match(stage: Stage, team_id: object, team_match_id: object) -> tuple[Team, TeamMatch]:
    """A team of the stage's tournament and a team match of the stage, by the ids a form or request sent."""
    team = Team.objects.filter(pk=_id(team_id), tournament_id=stage.tournament_id).first()
    team_match = TeamMatch.objects.filter(pk=_id(team_match_id), stage=stage).first()
    if team is None or team_match is None:
        raise TournamentError("no_team_match", _("There is no such team or team match here."), 404)
    return team, team_match


def _id(value: object) -> int:
    return value if isinstance(value, int) else (whole(value) or 0) if isinstance(value, str) else 0


def team_stage(stage: Stage, after_round: int | None = None) -> dict[str, Any]:
    """Teams with their players, the standings (as they stood after ``after_round``, if given) and the board
    prizes."""
    teams = list(Team.objects.filter(tournament_id=stage.tournament_id).order_by("seed", "pk"))
    names = {t.pk: t.name for t in teams}
    players = dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "player__name"))
    rosters: dict[int, list[dict[str, Any]]] = {t.pk: [] for t in teams}
    options = TeamOptions.of(stage)
    for member in (
        TeamMember.objects.filter(team__tournament_id=stage.tournament_id).select_related("entry").order_by("order")
    ):
        rosters[member.team_id].append(
            {
                "entry": member.entry_id,
                "name": players.get(member.entry_id, ""),
                "order": member.order,
                "reserve": member.order > options.boards,
                "withdrawn": member.entry.withdrawn,
            }
        )
    rows = team_standings(stage, after_round) if stage.status != Stage.Status.PENDING else []
    return {
        "stage": stage.pk,
        "name": stage.name,
        "status": stage.status,
        "options": stage.options,
        "teams": [{"id": t.pk, "name": t.name, "captain": t.captain_id, "players": rosters[t.pk]} for t in teams],
        "standings": [
            {
                "rank": row.rank,
                "team": row.team,
                "name": names.get(row.team, ""),
                "played": row.played,
                "won": row.won,
                "drawn": row.drawn,
                "lost": row.lost,
                "match_points": scoring.points_value("match_points", row.match_points),
                "match_points_text": scoring.value_text("match_points", row.match_points),
                "game_points": _half(row.game_points),
                "tiebreaks": {name: scoring.points_value(name, value) for name, value in row.values.items()},
                "tiebreak_texts": {name: scoring.value_text(name, value) for name, value in row.values.items()},
                "decided_by": row.decided_by,
                "decided_by_text": decided_by_text(row.decided_by),
            }
            for row in rows
        ],
        "board_prizes": {
            str(board): [
                {
                    "entry": s.entry,
                    "name": players.get(s.entry, ""),
                    "team": names.get(s.team, ""),
                    "points": _half(s.points),
                    "games": s.games,
                }
                for s in scores[:3]
            ]
            for board, scores in board_prizes(stage).items()
        },
    }


def team_rounds(stage: Stage, viewer: Team | None = None, organizer: bool = False) -> list[dict[str, Any]]:
    """Every round's team matches: the teams, each side's lineup as far as ``viewer`` may see it, the boards
    with their players and results, and the match score."""
    now = timezone.now()
    options = TeamOptions.of(stage)
    names = dict(Team.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "name"))
    players = dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "player__name"))
    results = {r.match: r for r in team_results(stage)}
    team_of = dict(
        TeamMember.objects.filter(team__tournament_id=stage.tournament_id).values_list("entry_id", "team__name")
    )
    lineups: dict[int, list[Lineup]] = {}
    for lineup in Lineup.objects.filter(team_match__stage=stage):
        lineups.setdefault(lineup.team_match_id, []).append(lineup)
    game_of = dict(  # each board's game (the counted one, the latest when a board was replayed)
        MatchGame.objects.filter(match__team_board__team_match__stage=stage)
        .order_by("counted", "pk")
        .values_list("match_id", "game_id")
    )
    boards: dict[int, list[TeamBoard]] = {}
    for board in (
        TeamBoard.objects.filter(team_match__stage=stage)
        .exclude(match__status=Match.Status.CANCELLED)
        .select_related("match")
    ):
        boards.setdefault(board.team_match_id, []).append(board)
    rounds: dict[int, list[dict[str, Any]]] = {}
    for team_match in TeamMatch.objects.filter(stage=stage).order_by("round", "order"):
        result = results.get(team_match.pk)
        sides = []
        for lineup in sorted(lineups.get(team_match.pk, []), key=lambda x: x.team_id != team_match.home_id):
            shown = organizer or lineup_visible(team_match, lineup, viewer, now)
            sides.append(
                {
                    "team": lineup.team_id,
                    "in": True,
                    "fallback": lineup.fallback,
                    "players": [players.get(e, "") if e else None for e in lineup.entries] if shown else None,
                }
            )
        home_points, away_points = scoring.match_outcome(result, options.boards, options.bye) if result else (0, 0)
        rounds.setdefault(team_match.round, []).append(
            {
                "id": team_match.pk,
                "home": {"id": team_match.home_id, "name": names.get(team_match.home_id, "")},
                "away": {"id": team_match.away_id, "name": names.get(team_match.away_id or 0, "")}
                if team_match.away_id
                else None,
                "deadline": team_match.lineup_deadline,
                "boards_made": team_match.boards_made_at is not None,
                "lineups": sides,
                "boards": [
                    {
                        "board": b.number,
                        "match": b.match_id,
                        "game": game_of.get(b.match_id),
                        "first": players.get(b.match.first_id, ""),
                        "second": players.get(b.match.second_id, ""),
                        "first_team": team_of.get(b.match.first_id, ""),
                        "second_team": team_of.get(b.match.second_id, ""),
                        "status": b.match.status,
                        "score": _board_text(result.boards.get(b.number)) if result else "",
                    }
                    for b in sorted(boards.get(team_match.pk, []), key=lambda b: b.number)
                ],
                "forfeits": team_match.forfeits,
                "toss": _toss(team_match, names),
                "score": f"{_half(home_points)} – {_half(away_points)}",
                "complete": bool(result and result.complete),
            }
        )
    gave_way: dict[int, list[str]] = {}
    for number, a, b in (stage.options.get("lot") or {}).get("gave_way", []):
        gave_way.setdefault(number, []).append(f"{names.get(a, '')} – {names.get(b, '')}")
    return [
        {"round": number, "matches": matches, "country_rule_gave_way": gave_way.get(number, [])}
        for number, matches in sorted(rounds.items())
    ]


def _toss(team_match: TeamMatch, names: dict[int, str]) -> dict[str, Any] | None:
    """Board 1's 猜先, once drawn or recorded: the team with black on board 1, and whether it was at the table."""
    toss = team_match.colour_toss
    if not toss or team_match.away_id is None:
        return None
    black = team_match.home_id if int(toss["black"]) == 0 else team_match.away_id
    grabber = team_match.home_id if int(toss["grabber"]) == 0 else team_match.away_id
    return {
        "black": names.get(black, ""),
        "grabber": names.get(grabber, ""),
        "count": toss["count"],
        "guess": toss["guess"],
        "recorded": bool(toss.get("recorded")),
    }


def _board_text(points: tuple[int, int] | None) -> str:
    if points is None:
        return ""
    return f"{_half(points[0])}–{_half(points[1])}"


def team_units(tournament: Tournament) -> dict[int, str]:
    """Each team's country for the country rule: its players' unit when they all share one (else none)."""
    units: dict[int, set[str]] = {}
    for team_id, unit in TeamMember.objects.filter(team__tournament=tournament).values_list(
        "team_id", "entry__player__unit"
    ):
        units.setdefault(team_id, set()).add((unit or "").strip())
    return {team: next(iter(found)) for team, found in units.items() if len(found) == 1 and "" not in found}
