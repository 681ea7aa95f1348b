"""Team events' transitions: teams and their standing order, lineups (hidden until both are in or the
deadline passes; a missing one falls back to the standing order), a round's team matches paired and their
boards made as ordinary matches (colours alternating board by board), the results read back from the games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.enums import UNPLAYED_REASONS, GameResult, GameStatus
from games.models import Player
from games.services.players import clean_text
from tournament import formats
from tournament.errors import TournamentError
from tournament.models import (
    Entry,
    Group,
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
from tournament.round_plans import RoundPlan
from tournament.services.common import audit, call_matches, record_tie_decision
from tournament.services.setup import register
from tournament.swiss.pairing import PairingError, pairer
from tournament.swiss.state import FIRST, SECOND, RoundRecord, SwissPlayer, SwissState
from tournament.teams import scoring
from tournament.teams.options import TeamOptions

# -- teams --------------------------------------------------------------------------


@transaction.atomic
def team_create(
    *, tournament: Tournament, name: str, players: Sequence[Player], captain: Player | None = None, actor: Any = None
) -> Team:
    """A team with its players in standing order (boards first, then reserves); each becomes an entry."""
    stage = tournament.stages.filter(order=1).first()
    options = TeamOptions.of(stage) if stage is not None else TeamOptions()
    name = clean_text(name)[:60]
    if not name:
        raise TournamentError("team_name", _("A team needs a name."))
    if Team.objects.filter(tournament=tournament, name=name).exists():
        raise TournamentError("team_exists", _("There is already a team %(name)s.") % {"name": name}, 409)
    if not 1 <= len(players) <= options.boards + options.reserves:
        raise TournamentError(
            "team_size",
            _("A team has from 1 to %(n)s players (%(boards)s boards and %(reserves)s reserves).")
            % {"n": options.boards + options.reserves, "boards": options.boards, "reserves": options.reserves},
        )
    if len({p.pk for p in players}) != len(players):
        raise TournamentError("team_twice", _("A player is named twice."))
    team = Team.objects.create(tournament=tournament, name=name, captain=captain or players[0])
    for order, player in enumerate(players, start=1):
        entry = register(tournament=tournament, player=player, actor=actor)
        if TeamMember.objects.filter(entry=entry).exists():
            raise TournamentError("other_team", _("%(name)s is already in another team.") % {"name": player.name})
        TeamMember.objects.create(team=team, entry=entry, order=order)
    audit(tournament, "team_create", actor, team=team.pk, players=[p.pk for p in players])
    return team


def standing_order(team: Team) -> list[int]:
    """The team's players (entries) in standing order, withdrawn players left out."""
    return list(
        TeamMember.objects.filter(team=team, entry__withdrawn=False)
        .order_by("order")
        .values_list("entry_id", flat=True)
    )


def team_order(tournament: Tournament, boards: int) -> list[int]:
    """The teams' pairing order: by the mean rating of their top ``boards`` players, then by name."""
    ratings: dict[int, list[int]] = {}
    for team_id, rating in (
        TeamMember.objects.filter(team__tournament=tournament)
        .order_by("team_id", "order")
        .values_list("team_id", "entry__rating")
    ):
        ratings.setdefault(team_id, []).append(rating or 0)
    names = dict(Team.objects.filter(tournament=tournament).values_list("pk", "name"))
    mean = {t: sum(r[:boards]) / max(1, len(r[:boards])) for t, r in ratings.items()}
    return sorted(names, key=lambda t: (-mean.get(t, 0), names[t]))


# -- lineups ------------------------------------------------------------------------


def _lineups_open(team_match: TeamMatch, now: datetime) -> bool:
    if team_match.boards_made_at is not None:
        return False
    return team_match.lineup_deadline is None or now < team_match.lineup_deadline


@transaction.atomic
def lineup_submit(
    *, team_match: TeamMatch, team: Team, entries: Sequence[int | None], actor: Any = None, now: datetime | None = None
) -> Lineup:
    """The captain's lineup: a player (entry id) or None for each board, in the team's standing order (a
    reserve may step in; nobody plays above a teammate ranked higher). When both lineups are in, the boards
    are made at once."""
    now = now or timezone.now()
    team_match = TeamMatch.objects.select_for_update().select_related("stage").get(pk=team_match.pk)
    if team.pk not in (team_match.home_id, team_match.away_id) or team_match.away_id is None:
        raise TournamentError("not_in_match", _("This team does not play this match."), 403)
    if not _lineups_open(team_match, now):
        raise TournamentError("lineup_closed", _("The lineups for this match are closed."), 409)
    options = TeamOptions.of(team_match.stage)
    chosen = list(entries)
    if len(chosen) != options.boards:
        raise TournamentError(
            "lineup_size", _("Name a player, or nobody, for each of the %(n)s boards.") % {"n": options.boards}
        )
    order = {
        e: m for e, m in TeamMember.objects.filter(team=team, entry__withdrawn=False).values_list("entry_id", "order")
    }
    named = [e for e in chosen if e is not None]
    if any(e not in order for e in named):
        raise TournamentError("not_a_member", _("Every player must be an active member of the team."))
    if len(set(named)) != len(named):
        raise TournamentError("lineup_twice", _("A player is named on two boards."))
    if [order[e] for e in named] != sorted(order[e] for e in named):
        raise TournamentError("lineup_order", _("Players must sit in the team's standing order."))
    lineup, _created = Lineup.objects.update_or_create(
        team_match=team_match,
        team=team,
        defaults={"entries": chosen, "fallback": False, "submitted_by": actor if getattr(actor, "pk", None) else None},
    )
    audit(team_match.stage.tournament, "lineup", actor, team_match=team_match.pk, team=team.pk, entries=chosen)
    if team_match.lineups.count() == 2:
        make_boards(team_match, now=now, actor=actor)
    return lineup


def lineup_visible(
    team_match: TeamMatch, lineup: Lineup, viewer_team: Team | None, now: datetime | None = None
) -> bool:
    """A lineup is hidden from everyone but its own team until both are in or the deadline passes."""
    if viewer_team is not None and viewer_team.pk == lineup.team_id:
        return True
    return team_match.boards_made_at is not None or not _lineups_open(team_match, now or timezone.now())


def close_due_lineups(stage: Stage, now: datetime | None = None, actor: Any = None) -> int:
    """Make the boards of every team match of the stage whose lineup deadline has passed; returns how many."""
    now = now or timezone.now()
    due = TeamMatch.objects.filter(stage=stage, boards_made_at=None, lineup_deadline__lte=now).order_by(
        "round", "order"
    )
    made = 0
    for team_match in due:
        made += make_boards(team_match, now=now, actor=actor)
    return made


@transaction.atomic
def make_boards(team_match: TeamMatch, *, now: datetime | None = None, actor: Any = None) -> bool:
    """The team match's boards as ordinary matches: the lineups in (a missing one from the standing order),
    board by board; an empty board is forfeited by the side with nobody. Idempotent."""
    now = now or timezone.now()
    team_match = (
        TeamMatch.objects.select_for_update(of=("self",))  # "away" is a nullable join: PostgreSQL locks no such side
        .select_related("stage__tournament", "home", "away")
        .get(pk=team_match.pk)
    )
    if team_match.boards_made_at is not None:
        return False
    stage = team_match.stage
    options = TeamOptions.of(stage)
    if team_match.away is None:  # a bye: nothing to play
        TeamMatch.objects.filter(pk=team_match.pk).update(boards_made_at=now)
        return True
    sides = []
    for team in (team_match.home, team_match.away):
        lineup = Lineup.objects.filter(team_match=team_match, team=team).first()
        if lineup is None:
            standing: list[int | None] = [*standing_order(team)[: options.boards]]
            standing += [None] * (options.boards - len(standing))
            lineup = Lineup.objects.create(team_match=team_match, team=team, entries=standing, fallback=True)
            audit(stage.tournament, "lineup_fallback", actor, team_match=team_match.pk, team=team.pk)
        sides.append(list(lineup.entries))
    group = Group.objects.get(stage=stage, parent=None)
    colours = scoring.board_colours(options.boards, home_first=_home_black_on_board_one(team_match, options))
    forfeits: dict[str, str] = {}
    boards, numbers = [], []
    for board, (home, away, home_black) in enumerate(zip(sides[0], sides[1], colours, strict=True), start=1):
        if home is None or away is None:
            forfeits[str(board)] = "both" if home is None and away is None else ("home" if home is None else "away")
            continue
        first, second = (home, away) if home_black else (away, home)
        boards.append(
            Match(
                tournament_id=stage.tournament_id,
                group=group,
                round=team_match.round,
                order=team_match.order * options.boards + board,
                first_id=first,
                second_id=second,
                games_planned=1,
            )
        )
        numbers.append(board)
    made = Match.objects.bulk_create(boards)
    TeamBoard.objects.bulk_create(
        [TeamBoard(match=m, team_match=team_match, number=n) for m, n in zip(made, numbers, strict=True)]
    )
    TeamMatch.objects.filter(pk=team_match.pk).update(boards_made_at=now, forfeits=forfeits)
    audit(stage.tournament, "team_boards", actor, team_match=team_match.pk, forfeits=forfeits)
    call_matches(tournament=stage.tournament)
    return True


def _home_black_on_board_one(team_match: TeamMatch, options: TeamOptions) -> bool:
    """Board 1's colour: the pairing's first-named team, or the 猜先 recorded for this match — drawn by lot
    (seeded by the stage's draw seed, the round and the teams' names, and recorded) if none was."""
    if options.first_colour == "pairing":
        return True
    if not team_match.colour_toss:
        assert team_match.away is not None  # a bye makes no boards
        seed = f"{team_match.stage.draw_seed}-team-{team_match.round}-{team_match.home.name}-{team_match.away.name}"
        team_match.colour_toss = formats.toss_by_lot(seed)
        TeamMatch.objects.filter(pk=team_match.pk).update(colour_toss=team_match.colour_toss)
    return int(team_match.colour_toss["black"]) == 0


@transaction.atomic
def record_team_toss(*, team_match: TeamMatch, grabber: Team, guess: str, count: int, actor: Any = None) -> TeamMatch:
    """猜先 between the captains for board 1, recorded before the boards are made: ``grabber``'s captain grabs
    ``count`` stones, the other guesses odd or even; the right guess gives that team black on board 1."""
    team_match = TeamMatch.objects.select_for_update().select_related("stage__tournament").get(pk=team_match.pk)
    if TeamOptions.of(team_match.stage).first_colour != "toss":
        raise TournamentError("no_toss", _("In this event the pairing decides board 1's colour."))
    if team_match.away_id is None or grabber.pk not in (team_match.home_id, team_match.away_id):
        raise TournamentError("not_in_match", _("The grabber must be one of the two teams."))
    if team_match.boards_made_at is not None:
        raise TournamentError("toss_too_late", _("The boards are made; their colours stand."), 409)
    if guess not in ("odd", "even") or not 1 <= count <= 361:
        raise TournamentError("bad_toss", _("The guess is odd or even, and the count is between 1 and 361."))
    team_match.colour_toss = formats.toss_at_table(0 if grabber.pk == team_match.home_id else 1, count, guess)
    TeamMatch.objects.filter(pk=team_match.pk).update(colour_toss=team_match.colour_toss)
    audit(team_match.stage.tournament, "team_colour_toss", actor, team_match=team_match.pk, **team_match.colour_toss)
    return team_match


# -- rounds -------------------------------------------------------------------------


def plan_team_round(stage: Stage) -> RoundPlan:
    """The next round's team pairs (the one round lifecycle keeps them as a draft): by the round robin's
    schedule or by the Dutch system over the teams (match results as a player's game results); a resting team
    is paired with nobody."""
    options = TeamOptions.of(stage)
    played = list(TeamMatch.objects.filter(stage=stage).order_by("round", "order"))
    number = max((m.round for m in played), default=0) + 1
    if number > planned_rounds(stage):
        return RoundPlan([], engine=options.system)
    teams = list(options.team_order)
    if options.system == "swiss":
        pairs = _swiss_pairs(stage, teams, played, options)
    else:
        pairs = _round_robin_pairs(teams, number, options.system == "double_round_robin")
    return RoundPlan([[home, away] for home, away in pairs], engine=options.system, number=number)


def publish_team_round(
    stage: Stage, number: int, rows: Sequence[Sequence[int | None]], actor: Any = None, now: datetime | None = None
) -> list[Match]:
    """A published round's team matches; the lineups are asked for by the deadline (with ``lineup_minutes``
    0, the standing orders are taken at once, and a resting team's match is made at once). Returns the board
    matches made now."""
    now = now or timezone.now()
    options = TeamOptions.of(stage)
    known = set(stage.tournament.teams.values_list("pk", flat=True))
    if any(team not in known for pair in rows for team in pair if team is not None):
        raise TournamentError("stale_pairing", _("A team in this pairing is no longer in the event."), 409)
    deadline = now + timedelta(minutes=options.lineup_minutes)
    made = [
        TeamMatch.objects.create(
            stage=stage, round=number, order=order, home_id=home, away_id=away, lineup_deadline=deadline
        )
        for order, (home, away) in enumerate(rows)
        if home is not None
    ]
    for team_match in made:
        if team_match.away_id is None or options.lineup_minutes == 0:
            make_boards(team_match, now=now, actor=actor)
    return list(Match.objects.filter(team_board__team_match__in=made).order_by("order"))


def team_round_taken_back(stage: Stage, number: int) -> None:
    """An unpaired round's team matches and their lineups go (its board matches, cancelled, stay as a record
    without their team match)."""
    taken = TeamMatch.objects.filter(stage=stage, round=number)
    TeamBoard.objects.filter(team_match__in=taken).delete()
    Lineup.objects.filter(team_match__in=taken).delete()
    taken.delete()


def team_round_open(stage: Stage, number: int | None = None) -> bool:
    """Whether a team match (of round ``number``, or any) still waits for its boards."""
    waiting = TeamMatch.objects.filter(stage=stage, boards_made_at=None)
    return (waiting if number is None else waiting.filter(round=number)).exists()


def rematches(stage: Stage, rows: Sequence[Sequence[int | None]]) -> list[dict[str, Any]]:
    """The pairs of a draft whose teams have met already in the stage."""
    met = {frozenset((m.home_id, m.away_id)) for m in TeamMatch.objects.filter(stage=stage).exclude(away=None)}
    return [
        {"code": "rematch", "entries": [a, b]}
        for a, b in rows
        if a is not None and b is not None and frozenset((a, b)) in met
    ]


def planned_rounds(stage: Stage) -> int:
    options = TeamOptions.of(stage)
    if options.system == "swiss":
        return options.rounds
    count = len(options.team_order)
    single = count - 1 if count % 2 == 0 else count
    return single * (2 if options.system == "double_round_robin" else 1)


def round_robin_rounds(teams: list[int], double: bool) -> list[list[tuple[int, int]]]:
    """Every round of the team round robin in the teams' order (the second cycle: the other team first)."""
    rounds = formats.balanced_single_rounds(teams)
    return rounds + ([[(b, a) for a, b in pairs] for pairs in rounds] if double else [])


def _round_robin_pairs(teams: list[int], number: int, double: bool) -> list[tuple[int, int | None]]:
    rounds = round_robin_rounds(teams, double)
    pairs: list[tuple[int, int | None]] = list(rounds[(number - 1) % len(rounds)])
    resting = [t for t in teams if all(t not in p for p in pairs)]
    return pairs + [(t, None) for t in resting]


def _swiss_pairs(
    stage: Stage, teams: list[int], played: list[TeamMatch], options: TeamOptions
) -> list[tuple[int, int | None]]:
    """The Dutch system over the teams: each team match's result as a player's game result, scored in the
    stage's match points; a team with no active player left is not paired (absent, as a withdrawn player)."""
    number = {team: n for n, team in enumerate(teams, start=1)}
    state = swiss_state(stage, teams, played, options)
    try:
        boards = pairer("2026").pair(state)
    except PairingError as exc:
        raise TournamentError(
            "no_pairing", _("No pairing of the teams is possible: %(why)s") % {"why": exc}, 409
        ) from None
    team_of = {n: t for t, n in number.items()}
    return [(team_of[b.first], team_of[b.second] if b.second is not None else None) for b in boards]


def swiss_state(stage: Stage, teams: list[int], played: list[TeamMatch], options: TeamOptions) -> SwissState:
    """The team Swiss as the pairing engine sees it: teams as players numbered in pairing order, each round's
    match result by that match's own boards (``1``/``=``/``0``, a bye ``U``, a round not paired ``Z``)."""
    number = {team: n for n, team in enumerate(teams, start=1)}
    results = {r.match: r for r in team_results(stage)}
    by_round: dict[int, dict[int, RoundRecord]] = {}
    for team_match in played:
        result = results[team_match.pk]
        records = by_round.setdefault(team_match.round, {})
        if team_match.away_id is None:
            records[team_match.home_id] = RoundRecord(None, None, "U")
            continue
        home, away = scoring.match_outcome(result, options.boards)
        code = "1" if home > away else "=" if home == away else "0"
        records[team_match.home_id] = RoundRecord(number[team_match.away_id], FIRST, code)
        records[team_match.away_id] = RoundRecord(
            number[team_match.home_id], SECOND, {"1": "0", "=": "=", "0": "1"}[code]
        )
    rounds = sorted(by_round)
    names = dict(Team.objects.filter(pk__in=teams).values_list("pk", "name"))
    active = set(TeamMember.objects.filter(team_id__in=teams, entry__withdrawn=False).values_list("team_id", flat=True))
    return SwissState(
        name=stage.name,
        total_rounds=options.rounds,
        players=[
            SwissPlayer(
                number[t], names[t], key=t, rounds=[by_round[r].get(t, RoundRecord(None, None, "Z")) for r in rounds]
            )
            for t in teams
        ],
        points=options.pairing_points,
        absent={number[t] for t in teams if t not in active},
    )


# -- results ------------------------------------------------------------------------


def team_results(stage: Stage, after_round: int | None = None) -> list[scoring.TeamResult]:
    """Every team match of the stage as its boards' games stand (in a fixed number of queries); with
    ``after_round``, only the rounds up to that one."""
    matches = TeamMatch.objects.filter(stage=stage)
    if after_round is not None:
        matches = matches.filter(round__lte=after_round)
    team_matches = list(matches.order_by("round", "order"))
    home_of = {m.pk: m.home_id for m in team_matches}
    member_team = dict(
        TeamMember.objects.filter(team__tournament_id=stage.tournament_id).values_list("entry_id", "team_id")
    )
    player_entry = dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("player_id", "pk"))
    boards: dict[int, dict[int, tuple[int, int]]] = {m.pk: {} for m in team_matches}
    open_boards: dict[int, int] = {m.pk: 0 for m in team_matches}
    for team_match_id in (
        TeamBoard.objects.filter(team_match__in=matches)
        .exclude(match__status__in=[Match.Status.CANCELLED, Match.Status.FINISHED])
        .values_list("team_match_id", flat=True)
    ):
        open_boards[team_match_id] += 1
    for link in (
        MatchGame.objects.filter(
            match__team_board__team_match__in=matches, counted=True, game__status=GameStatus.FINISHED
        )
        .exclude(match__status=Match.Status.CANCELLED)
        .values("match__team_board__team_match_id", "match__team_board__number", "game__black_id", "game__result")
    ):
        key = link["match__team_board__team_match_id"]
        black_team = member_team.get(player_entry.get(link["game__black_id"], 0))
        black_home = black_team == home_of[key]
        result = link["game__result"]
        black, white = (1, 1) if result == GameResult.DRAW else ((2, 0) if result == GameResult.BLACK else (0, 2))
        board = link["match__team_board__number"]
        boards[key][board] = (black, white) if black_home else (white, black)
    out = []
    for team_match in team_matches:
        scores = dict(boards[team_match.pk])
        for board, side in team_match.forfeits.items():
            scores[int(board)] = {"home": (0, 2), "away": (2, 0)}.get(side, (0, 0))
        complete = team_match.boards_made_at is not None and open_boards[team_match.pk] == 0
        out.append(
            scoring.TeamResult(
                team_match.home_id, team_match.away_id, dict(sorted(scores.items())), complete, team_match.pk
            )
        )
    return out


def team_standings(stage: Stage, after_round: int | None = None) -> list[scoring.TeamRow]:
    """The team table, as it stands or as it stood after ``after_round``."""
    options = TeamOptions.of(stage)
    teams = list(options.team_order) or team_order(stage.tournament, options.boards)
    return scoring.standings(
        teams,
        team_results(stage, after_round),
        boards=options.boards,
        points=options.points,
        bye=options.bye,
        primary=options.primary,
        order=options.tiebreaks,
        lot_seed=f"{stage.draw_seed}-teams",
        complete_tie=options.complete_tie,
        decisions=options.tie_decisions,
        precise=options.precise_places,
    )


@transaction.atomic
def record_extra_game(*, stage: Stage, order: Sequence[int], actor: Any = None) -> list[scoring.TeamRow]:
    """The extra game that settles a complete tie, when the event needs a precise place (``complete_tie``
    "extra_game"): ``order`` is the tied teams, the extra game's winner first. Refused unless those teams are
    exactly one block the standings leave waiting for an extra game."""
    options = TeamOptions.of(stage)
    if options.complete_tie != "extra_game" and not options.precise_places:
        raise TournamentError("no_extra_game", _("In this event teams level on everything share the place."), 409)
    stage = record_tie_decision(
        stage=stage, order=list(order), waiting=_waiting_teams, action="team_extra_game", actor=actor
    )
    return team_standings(stage)


def _waiting_teams(stage: Stage) -> list[list[int]]:
    """The blocks of teams the standings leave waiting for an extra game."""
    waiting: dict[int, list[int]] = {}
    for row in team_standings(stage):
        if row.decided_by == "extra_game_due":
            waiting.setdefault(row.rank, []).append(row.team)
    return list(waiting.values())


@dataclass(frozen=True)
class BoardScore:
    entry: int
    team: int
    points: int  # halves, over the board (forfeits left out)
    games: int


def board_prizes(stage: Stage) -> dict[int, list[BoardScore]]:
    """Each board's players by their score on that board (points, then the fewer games): the board prizes.
    Only games played over the board count: a game won or lost by forfeit or no-show is left out."""
    member_team = dict(
        TeamMember.objects.filter(team__tournament_id=stage.tournament_id).values_list("entry_id", "team_id")
    )
    entry_of = dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("player_id", "pk"))
    tally: dict[tuple[int, int], list[int]] = {}
    for board, black, white, result in (
        MatchGame.objects.filter(
            match__team_board__team_match__stage=stage, counted=True, game__status=GameStatus.FINISHED
        )
        .exclude(match__status=Match.Status.CANCELLED)
        .exclude(game__result_reason__in=UNPLAYED_REASONS)
        .values_list("match__team_board__number", "game__black_id", "game__white_id", "game__result")
    ):
        points = (2, 0) if result == GameResult.BLACK else (0, 2) if result == GameResult.WHITE else (1, 1)
        for player, got in zip((black, white), points, strict=True):
            entry = entry_of.get(player or 0)
            if entry is None or board is None:
                continue
            score = tally.setdefault((board, entry), [0, 0])
            score[0] += got
            score[1] += 1
    out: dict[int, list[BoardScore]] = {}
    for (board, entry), (total, games) in sorted(tally.items()):
        out.setdefault(board, []).append(BoardScore(entry, member_team.get(entry, 0), total, games))
    for scores in out.values():
        scores.sort(key=lambda s: (-s.points, s.games, s.entry))
    return dict(sorted(out.items()))


def close_lineups_now(stage: Stage, actor: Any = None) -> int:
    """The organizer closes the lineups of the stage's current round before the deadline: the boards are made,
    from the standing order where a lineup is missing. Returns how many team matches got their boards."""
    waiting = TeamMatch.objects.filter(stage=stage, boards_made_at=None).order_by("round", "order")
    return sum(make_boards(team_match, actor=actor) for team_match in waiting)


def close_all_due_lineups(now: datetime | None = None) -> int:
    """Every running team stage's lineups whose deadline has passed (the beat task's pass)."""
    stages = Stage.objects.filter(kind=Stage.Kind.TEAMS, status=Stage.Status.RUNNING)
    return sum(close_due_lineups(stage, now=now) for stage in stages)
