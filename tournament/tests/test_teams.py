"""Team events: scoring and tie-breaks on hand-computed examples, lineups (deadline, fallback, order, hidden),
forfeited boards, colours by board and round, corrections, and whole events simulated."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Game, Player
from tournament import services
from tournament.models import Lineup, Match, Stage, Team, TeamMatch, Tournament
from tournament.services import TournamentError
from tournament.simulate import simulate
from tournament.stage_formats import format_of, stage_standings
from tournament.teams import scoring
from tournament.teams.services import (
    close_due_lineups,
    lineup_submit,
    lineup_visible,
    team_create,
    team_results,
    team_standings,
)
from tournament.tests.helpers import colour_of, correct, win

ROOT = Path(__file__).resolve().parents[2]


# -- scoring, by hand ---------------------------------------------------------------------------------------


def R(home: int, away: int | None, *boards: tuple[int, int]) -> scoring.TeamResult:
    return scoring.TeamResult(home, away, {b: s for b, s in enumerate(boards, start=1)}, True)


W, D, L = (2, 0), (1, 1), (0, 2)  # a board won, drawn, lost by the first-named team (halves)


def test_game_points_match_points_and_the_rif_tie_breaks_by_hand() -> None:
    # Four teams, 2 boards, a round robin. 1–2: W W; 3–4: D D; 1–3: L D; 2–4: W L; 1–4: D L; 2–3: W W.
    results = [R(1, 2, W, W), R(3, 4, D, D), R(1, 3, L, D), R(2, 4, W, L), R(1, 4, D, L), R(2, 3, W, W)]
    rows = {r.team: r for r in scoring.standings([1, 2, 3, 4], results, boards=2)}

    # game points (halves): 1: 4+1+1 = 6; 2: 0+2+4 = 6; 3: 2+3+0 = 5; 4: 2+2+3 = 7
    assert {t: r.game_points for t, r in rows.items()} == {1: 6, 2: 6, 3: 5, 4: 7}
    # match points 2/1/0: 1 W L L = 2; 2 L D W = 3; 3 D W L = 3; 4 D D W = 4
    assert {t: r.match_points for t, r in rows.items()} == {1: 2, 2: 3, 3: 3, 4: 4}
    # Buchholz on game points: 1: 6+5+7 = 18; 2: 6+7+5 = 18
    assert (rows[1].values["buchholz"], rows[2].values["buchholz"]) == (18, 18)
    # Berger: own game points in each match × the opponent's total: 1: 4·6 + 1·5 + 1·7 = 36; 2: 0·6 + 2·7 + 4·5 = 34
    assert (rows[1].values["sonneborn_berger"], rows[2].values["sonneborn_berger"]) == (36, 34)
    # 1 and 2 level on game points; match points put 2 (3) ahead of 1 (2)
    assert [r.team for r in sorted(rows.values(), key=lambda r: r.rank)] == [4, 2, 1, 3]
    assert rows[2].decided_by == rows[1].decided_by == "match_points"


def test_after_buchholz_and_berger_the_match_between_them_then_board_one() -> None:
    # 1 beat 3 and 2 beat 4, 2–2 drawn (board 1 to team 1), 3–4 drawn: 1 and 2 are level on game and match
    # points, Buchholz and Berger; the match between them was drawn; board 1 separates them.
    results = [R(1, 2, W, L), R(1, 3, W, W), R(2, 4, W, W), R(3, 4, D, D)]
    order = ("match_points", "buchholz", "sonneborn_berger", "direct_encounter")
    level = {r.team: r for r in scoring.standings([1, 2, 3, 4], results, boards=2, order=order)}
    assert (level[1].values, level[1].rank) != (level[2].values, level[2].rank)
    assert level[1].decided_by == level[2].decided_by == "lot"  # nothing in that order separates them

    by_board = {r.team: r for r in scoring.standings([1, 2, 3, 4], results, boards=2, order=(*order, "board_1"))}
    assert (by_board[1].rank, by_board[2].rank) == (1, 2)
    assert by_board[1].decided_by == by_board[2].decided_by == "board_1"

    # the match between them decides when it was won: 1 beat 2 on both boards, 2 made it up against 4
    results = [R(1, 2, W, W), R(3, 1, W, W), R(2, 4, W, W), R(3, 4, W, W)]
    direct = {r.team: r for r in scoring.standings([1, 2, 3, 4], results, boards=2, order=("direct_encounter",))}
    assert (direct[1].game_points, direct[2].game_points) == (4, 4)
    assert (direct[1].rank, direct[2].rank, direct[1].decided_by) == (2, 3, "direct_encounter")

    three = [R(1, 2, W, D), R(2, 3, W, D), R(3, 1, W, D)]  # a cycle: head-to-head cannot separate them
    cycle = scoring.standings([1, 2, 3], three, boards=2, primary="match_points", order=("direct_encounter",))
    assert all(r.decided_by == "lot" for r in cycle)


def test_match_points_are_configurable_and_a_bye_is_a_match_won_with_every_board_drawn() -> None:
    rows = {
        r.team: r
        for r in scoring.standings(
            [1, 2, 3], [R(1, 2, W, D), R(3, None)], boards=2, points=scoring.MatchPoints(3, 1, 0)
        )
    }
    assert (rows[1].match_points, rows[2].match_points, rows[3].match_points) == (3, 0, 3)
    assert rows[3].game_points == 2 and rows[3].played == 0


def test_colours_alternate_board_by_board() -> None:
    assert scoring.board_colours(4, home_first=True) == [True, False, True, False]
    assert scoring.board_colours(3, home_first=False) == [False, True, False]


# -- through the services -----------------------------------------------------------------------------------


def team_event(teams: int = 4, boards: int = 2, reserves: int = 1, **options: object) -> tuple[Tournament, Stage]:
    tournament = services.tournament_create(
        name="团体赛",
        preset="teams",
        stage_options={"boards": boards, "reserves": reserves, "system": "round_robin", **options},
    )
    for t in range(1, teams + 1):
        squad = [
            Player.objects.create(name=f"T{t}P{p}", rating=2000 - 10 * t - p) for p in range(1, boards + reserves + 1)
        ]
        team_create(tournament=tournament, name=f"Team {t}", players=squad)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    stage.refresh_from_db()
    return tournament, stage


def members(team: Team) -> list[int]:
    return list(team.memberships.order_by("order").values_list("entry_id", flat=True))


@pytest.mark.django_db
def test_a_lineup_in_standing_order_is_taken_a_wrong_one_refused_and_both_in_make_the_boards() -> None:
    _tournament, stage = team_event(lineup_minutes=30)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.filter(stage=stage, round=1).order_by("order").first()
    assert match is not None and match.away is not None
    home, away = members(match.home), members(match.away)

    with pytest.raises(TournamentError) as order:
        lineup_submit(team_match=match, team=match.home, entries=[home[1], home[0]])
    with pytest.raises(TournamentError) as foreign:
        lineup_submit(team_match=match, team=match.home, entries=[away[0], home[0]])
    assert (order.value.code, foreign.value.code) == ("lineup_order", "not_a_member")

    mine = lineup_submit(team_match=match, team=match.home, entries=[home[0], home[2]])  # the reserve plays board 2
    assert not lineup_visible(match, mine, viewer_team=match.away)  # hidden from the opponent until both are in
    assert lineup_visible(match, mine, viewer_team=match.home)
    assert not Match.objects.filter(team_match=match).exists()

    lineup_submit(team_match=match, team=match.away, entries=[away[0], away[1]])

    boards = {m.team_board: m for m in Match.objects.filter(team_match=match)}
    assert sorted(boards) == [1, 2]
    assert {boards[2].first_id, boards[2].second_id} == {home[2], away[1]}
    match.refresh_from_db()
    assert lineup_visible(match, mine, viewer_team=match.away)
    with pytest.raises(TournamentError) as closed:
        lineup_submit(team_match=match, team=match.home, entries=[home[0], home[1]])
    assert closed.value.code == "lineup_closed"


@pytest.mark.django_db
def test_a_missing_lineup_falls_back_to_the_standing_order_and_an_empty_board_is_forfeited() -> None:
    _tournament, stage = team_event(lineup_minutes=30)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.filter(stage=stage, round=1).order_by("order").first()
    assert match is not None and match.away is not None
    home = members(match.home)
    lineup_submit(team_match=match, team=match.home, entries=[home[0], None])  # nobody on board 2

    assert close_due_lineups(stage, now=timezone.now()) == 0  # before the deadline nothing happens
    assert close_due_lineups(stage, now=timezone.now() + timedelta(minutes=31)) == 2  # both team matches

    fallback = Lineup.objects.get(team_match=match, team=match.away)
    assert fallback.fallback and fallback.entries == members(match.away)[:2]
    match.refresh_from_db()
    assert match.forfeits == {"2": "home"}
    assert list(Match.objects.filter(team_match=match).values_list("team_board", flat=True)) == [1]
    result = next(r for r in team_results(stage) if r.home == match.home_id)
    assert result.boards[2] == (0, 2) and not result.complete  # board 1 still to play


@pytest.mark.django_db
def test_colours_by_board_and_round_the_first_named_team_black_on_odd_boards() -> None:
    _tournament, stage = team_event(teams=4, boards=4, reserves=0, lineup_minutes=0)
    services.pair_next_round(stage=stage)
    for team_match in TeamMatch.objects.filter(stage=stage, round=1):
        home = set(members(team_match.home))
        for board in Match.objects.filter(team_match=team_match):
            game = Game.objects.get(match_game__match=board)
            black_is_home = board.first_id in home  # the first-named player of a board has the first move
            assert black_is_home == (board.team_board % 2 == 1)
            assert game.black_id == board.first.player_id


@pytest.mark.django_db
def test_colours_by_round_the_other_team_is_named_first_in_the_second_cycle() -> None:
    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=0, system="double_round_robin")
    services.pair_next_round(stage=stage)
    first = TeamMatch.objects.get(stage=stage, round=1)
    for board in Match.objects.filter(team_match=first):
        win(Game.objects.get(match_game__match=board), None)
    services.pair_next_round(stage=stage)
    second = TeamMatch.objects.get(stage=stage, round=2)

    assert (second.home_id, second.away_id) == (first.away_id, first.home_id)
    board_one = Match.objects.get(team_match=second, team_board=1)
    assert board_one.first_id in members(second.home)  # now the other team has the first move on board 1


@pytest.mark.django_db
def test_a_correction_to_one_board_changes_the_team_standings() -> None:
    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=0)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.get(stage=stage, round=1)
    boards = list(Match.objects.filter(team_match=match).order_by("team_board"))
    games = [Game.objects.get(match_game__match=b) for b in boards]
    home_players = {p for p in Player.objects.filter(entries__team_membership__team=match.home)}
    for game in games:  # the first-named team wins both boards
        winner = game.black if game.black in home_players else game.white
        win(game, winner)
    before = {r.team: (r.rank, r.game_points) for r in team_standings(stage)}
    assert before[match.home_id] == (1, 4)

    loser = next(g for g in games)  # board 1 is corrected: the other team won it
    corrected_winner = loser.white if loser.black in home_players else loser.black
    correct(Game.objects.get(pk=loser.pk), corrected_winner)

    after = {r.team: (r.rank, r.game_points) for r in team_standings(stage)}
    assert after[match.home_id][1] == 2 and after[match.away_id][1] == 2
    assert stage_standings(stage) == []  # no group tables: the page shows the team standings of its own
    table = format_of(stage).printed_tables(stage)[0]["rows"]
    assert {row["team"]: row["game_points"] for row in table} == {match.home_id: 1.0, match.away_id: 1.0}
    assert colour_of(games[0], games[0].black) == "black"


@pytest.mark.django_db
def test_a_six_team_double_round_robin_is_played_through_and_every_pair_meets_twice_with_sides_swapped() -> None:
    sim = simulate(players=6, preset="teams", team_boards=2, team_system="double_round_robin", seed=4)

    stage = sim.stages[0].stage
    pairs = [(m.home_id, m.away_id) for m in TeamMatch.objects.filter(stage=stage)]
    assert len(pairs) == 30 and len(set(pairs)) == 30  # 10 rounds of 3: each ordered pair once
    assert all((b, a) in pairs for a, b in pairs)
    assert sim.tournament.status == Tournament.Status.FINISHED
    assert [r["rank"] for r in sim.stages[0].tables[0]["rows"]] == [1, 2, 3, 4, 5, 6]


def _team_simulations(hash_seed: str) -> str:
    script = (
        "import django, os, io\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', verbosity=0)\n"
        "for args in (['--players', '16', '--team-system', 'swiss', '--rounds', '7'],\n"
        "             ['--players', '6', '--team-system', 'double_round_robin']):\n"
        "    out = io.StringIO()\n"
        "    call_command('simulate_tournament', '--preset', 'teams', '--team-boards', '4', *args, stdout=out)\n"
        "    print(out.getvalue())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "DATABASE_URL": "sqlite://:memory:"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_a_16_team_swiss_and_a_6_team_double_round_robin_print_the_same_under_any_hash_seed() -> None:
    first = _team_simulations("1")

    assert first == _team_simulations("2")
    assert first.count("队") >= 22 and "rank" in first


@pytest.mark.django_db
def test_the_simulate_command_plays_a_team_swiss() -> None:
    out = io.StringIO()
    call_command("simulate_tournament", "--preset", "teams", "--players", "5", "--rounds", "3", stdout=out)
    text = out.getvalue()
    table = text.split("ranking ==")[0]
    assert table.count("队00") == 5  # every team in the table once


@pytest.mark.django_db
def test_team_options_and_teams_are_checked_and_a_refusal_changes_nothing() -> None:
    with pytest.raises(TournamentError) as system:
        services.tournament_create(name="x", preset="teams", stage_options={"system": "knockout"})
    with pytest.raises(TournamentError) as points:
        services.tournament_create(name="x", preset="teams", stage_options={"match_points": [1, 1, 0]})
    with pytest.raises(TournamentError) as tiebreak:
        services.tournament_create(name="x", preset="teams", stage_options={"tiebreaks": ["white_wins"]})
    assert (system.value.code, points.value.code, tiebreak.value.code) == ("bad_options",) * 3
    assert not Tournament.objects.exists()

    tournament = services.tournament_create(name="团体赛", preset="teams", stage_options={"boards": 2, "reserves": 0})
    one, two, three = (Player.objects.create(name=n) for n in ("一", "二", "三"))
    with pytest.raises(TournamentError) as size:
        team_create(tournament=tournament, name="大", players=[one, two, three])
    team_create(tournament=tournament, name="甲", players=[one, two])
    with pytest.raises(TournamentError) as taken:
        team_create(tournament=tournament, name="乙", players=[three, one])
    with pytest.raises(TournamentError) as named:
        team_create(tournament=tournament, name="甲", players=[three])
    assert (size.value.code, taken.value.code, named.value.code) == ("team_size", "other_team", "team_exists")
    assert list(Team.objects.values_list("name", flat=True)) == ["甲"]
    assert not tournament.entries.filter(player=three).exists()  # the refused team entered nobody


@pytest.mark.django_db
def test_board_prizes_rank_each_boards_players_and_the_beat_task_closes_due_lineups() -> None:
    from tournament.tasks import close_lineups_task
    from tournament.teams.services import board_prizes

    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=1)
    services.pair_next_round(stage=stage)
    assert close_lineups_task() == 0  # the deadline is a minute away
    TeamMatch.objects.filter(stage=stage).update(lineup_deadline=timezone.now() - timedelta(seconds=1))
    assert close_lineups_task() == 1
    match = TeamMatch.objects.get(stage=stage)
    boards = {b.team_board: Game.objects.get(match_game__match=b) for b in Match.objects.filter(team_match=match)}
    win(boards[1], boards[1].black)  # board 1: the first move wins
    win(boards[2], None)  # board 2: a draw

    prizes = board_prizes(stage)

    assert [(s.entry, s.points, s.games) for s in prizes[1]][0][1:] == (2, 1)
    first_board_winner = Player.objects.get(pk=boards[1].black_id)
    assert prizes[1][0].entry == first_board_winner.entries.get().pk
    assert [s.points for s in prizes[2]] == [1, 1]


@pytest.mark.django_db
def test_a_withdrawn_player_leaves_the_standing_order_and_their_board_is_forfeited() -> None:
    from tournament.withdrawals import entry_withdraw

    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=0)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.get(stage=stage)
    leaving = match.home.memberships.get(order=2).entry

    entry_withdraw(entry=leaving, reason="ill")

    board = Match.objects.get(team_match=match, team_board=2)
    assert board.status == Match.Status.FINISHED  # forfeited: the results played stand, the rest are lost
    result = next(r for r in team_results(stage) if r.home == match.home_id)
    assert result.boards[2] == (0, 2)


@pytest.mark.django_db
def test_the_organizer_enters_teams_pairs_rounds_and_closes_lineups_from_the_teams_page(client: Any) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group as Role

    organizer = get_user_model().objects.create_user("org", password="pass-2026")
    organizer.groups.add(Role.objects.get(name="organizer"))
    client.force_login(organizer)
    tournament = services.tournament_create(
        name="校际团体赛", preset="teams", stage_options={"boards": 2, "reserves": 1, "lineup_minutes": 30}
    )
    page = f"/organizer/t/{tournament.pk}/teams/"
    for name, lines in (("一中", "张三, 一中, 1900\n李四, 一中\n王五"), ("二中", "赵六, 二中\n钱七, 二中")):
        assert client.post(page, {"name": name, "players": lines}).status_code == 302
    refused = client.post(page, {"name": "三中", "players": "孙八, 三中, strong"}, follow=True)
    assert "等级分应为整数" in refused.content.decode()
    assert list(Team.objects.order_by("pk").values_list("name", flat=True)) == ["一中", "二中"]
    assert not Player.objects.filter(name="孙八").exists()  # a refused team leaves nobody behind

    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=2)
    services.start_stage(stage=stage)
    client.post(page, {"action": "pair"})
    match = TeamMatch.objects.get(stage=stage)
    assert match.boards_made_at is None  # lineups awaited
    client.post(page, {"action": "close"})
    match.refresh_from_db()
    assert match.boards_made_at is not None and Match.objects.filter(team_match=match).count() == 2
    assert "第 1 轮" in client.get(page).content.decode()
