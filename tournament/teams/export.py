"""A team event as FIDE's Tournament Report File (TRF16) for team tournaments: a ``001`` line per player with
the games they played, round by round (a round they sat out left blank), and a ``013`` line per team naming
its players' start numbers in standing order — the layout pairing and rating programs read for team events.

Colours as in our Swiss files: ``w`` is the first move (black in renju and gomoku), ``b`` the second.
"""

from __future__ import annotations

from collections import defaultdict

from games.enums import UNPLAYED_REASONS, GameResult, GameStatus
from tournament.models import Entry, Lineup, Match, MatchGame, Stage, Team, TeamMatch, TeamMember
from tournament.swiss.state import FIRST, SECOND, PointSystem, RoundRecord, SwissPlayer
from tournament.swiss.trf import player_line, round_block
from tournament.teams.options import TeamOptions
from tournament.teams.services import planned_rounds, team_order

SYSTEM = {
    "swiss": "Team Swiss System",
    "round_robin": "Team Round Robin",
    "double_round_robin": "Team Double Round Robin",
}


def start_numbers(stage: Stage) -> tuple[list[int], dict[int, list[int]], dict[int, int]]:
    """The teams in their pairing order, each team's entries in standing order, and each entry's start
    number (team by team, board order within a team)."""
    options = TeamOptions.of(stage)
    teams = list(options.team_order) or team_order(stage.tournament, options.boards)
    rosters: dict[int, list[int]] = defaultdict(list)
    for team_id, entry_id in (
        TeamMember.objects.filter(team__tournament_id=stage.tournament_id)
        .order_by("order")
        .values_list("team_id", "entry_id")
    ):
        rosters[team_id].append(entry_id)
    numbers: dict[int, int] = {}
    for team_id in teams:
        for entry_id in rosters[team_id]:
            numbers[entry_id] = len(numbers) + 1
    return teams, rosters, numbers


def _records(stage: Stage, numbers: dict[int, int]) -> dict[tuple[int, int], RoundRecord]:
    """(entry, round) -> the record of the board that entry played, or won because nobody sat opposite."""
    games: dict[int, tuple[str, str, int]] = {}
    for match_id, result, reason, black in MatchGame.objects.filter(
        match__team_board__team_match__stage=stage, counted=True, game__status=GameStatus.FINISHED
    ).values_list("match_id", "game__result", "game__result_reason", "game__black_id"):
        games[match_id] = (result, reason, black)
    player_of = dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "player_id"))
    records: dict[tuple[int, int], RoundRecord] = {}
    for pk, rnd, first, second in (
        Match.objects.filter(team_board__team_match__stage=stage)
        .exclude(status=Match.Status.CANCELLED)
        .values_list("pk", "round", "first_id", "second_id")
    ):
        first_code = second_code = ""
        if pk in games:
            result, reason, black = games[pk]
            won = "+" if reason in UNPLAYED_REASONS else "1"
            lost = "-" if reason in UNPLAYED_REASONS else "0"
            if result == GameResult.DRAW:
                first_code = second_code = "="
            elif (result == GameResult.BLACK) == (black == player_of[first]):
                first_code, second_code = won, lost
            else:
                first_code, second_code = lost, won
        records[(first, rnd)] = RoundRecord(numbers[second], FIRST, first_code)
        records[(second, rnd)] = RoundRecord(numbers[first], SECOND, second_code)
    for team_match in TeamMatch.objects.filter(stage=stage).exclude(forfeits={}):
        lineups = {lineup.team_id: lineup.entries for lineup in Lineup.objects.filter(team_match=team_match)}
        for board, side in team_match.forfeits.items():
            present = {"home": team_match.away_id, "away": team_match.home_id}.get(side)
            entries = lineups.get(present or 0, [])
            entry = entries[int(board) - 1] if int(board) <= len(entries) else None
            if entry is not None:
                records[(entry, team_match.round)] = RoundRecord(None, None, "+")
    return records


def team_trf(stage: Stage, meta: dict[str, str] | None = None) -> str:
    """The team stage as TRF16 text (every round paired so far; a game still being played has no result)."""
    meta = meta or {}
    options = TeamOptions.of(stage)
    teams, rosters, numbers = start_numbers(stage)
    names = dict(Team.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "name"))
    info = {
        e: (name, rating or 0)
        for e, name, rating in Entry.objects.filter(pk__in=numbers).values_list("pk", "player__name", "rating")
    }
    rounds = max(TeamMatch.objects.filter(stage=stage).values_list("round", flat=True), default=0)
    records = _records(stage, numbers)
    points = PointSystem()
    players: list[tuple[SwissPlayer, str]] = []
    for entry, number in numbers.items():
        by_round = [records.get((entry, r)) for r in range(1, rounds + 1)]
        player = SwissPlayer(
            number, info[entry][0], info[entry][1], key=entry, rounds=[r for r in by_round if r is not None]
        )
        players.append((player, "".join(round_block(r) for r in by_round)))
    ranked = sorted(players, key=lambda p: (-p[0].score(points), p[0].number))
    rank = {p.number: place for place, (p, _b) in enumerate(ranked, start=1)}
    lines = [f"012 {stage.tournament.name[:200]}"]
    for code, key in (("022", "city"), ("042", "start"), ("052", "end"), ("102", "arbiter")):
        if meta.get(key):
            lines.append(f"{code} {meta[key]}")
    lines += [f"062 {len(numbers)}", f"082 {len(teams)}", f"092 {SYSTEM[options.system]}"]
    lines.append(f"XXR {planned_rounds(stage)}")
    lines += [player_line(p, points, rank[p.number], blocks=blocks) for p, blocks in players]
    for team_id in teams:
        starts = [numbers[e] for e in rosters[team_id]]
        lines.append(f"013 {names[team_id][:32]:<32}" + "".join(f"{n:4d} " for n in starts).rstrip())
    return "\n".join(lines) + "\n"
