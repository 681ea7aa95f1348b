"""Team events: scoring and tie-breaks on hand-computed examples, lineups (deadline, fallback, order, hidden),
forfeited boards, colours by board and round, corrections, and whole events simulated."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Game, Player
from tournament import formats, services
from tournament.models import Lineup, Match, Stage, Team, TeamMatch, Tournament
from tournament.services import TournamentError
from tournament.simulate import simulate
from tournament.stage_formats import format_of, stage_standings
from tournament.teams import scoring
from tournament.teams.services import (
    close_due_lineups,
    lineup_submit,
    lineup_visible,
    record_team_toss,
    team_create,
    team_results,
    team_standings,
)
from tournament.tests.helpers import colour_of, correct, simulations, win

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
    # match points 2/1/0 (kept in halves): 1 W L L = 2; 2 L D W = 3; 3 D W L = 3; 4 D D W = 4
    taken = {t: scoring.points_value("match_points", r.match_points) for t, r in rows.items()}
    assert taken == {1: 2, 2: 3, 3: 3, 4: 4}
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
    assert all(level[1].values[n] == level[2].values[n] for n in ("game_points", *order[:3]))  # level on the order
    assert (level[1].rank, level[2].rank, level[1].decided_by, level[2].decided_by) == (1, 1, "shared", "shared")
    lot = {r.team: r for r in scoring.standings([1, 2, 3, 4], results, boards=2, order=order, complete_tie="lot")}
    assert {lot[1].rank, lot[2].rank} == {1, 2} and lot[1].decided_by == lot[2].decided_by == "lot"

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
    assert all(r.decided_by == "shared" and r.rank == 1 for r in cycle)


def test_boards_two_and_three_decide_in_turn_when_board_one_cannot() -> None:
    # 1–2 on three boards: board 1 drawn, board 2 to team 1, board 3 to team 2 — level on everything above
    results = [R(1, 2, D, W, L)]
    second = {r.team: r for r in scoring.standings([1, 2], results, boards=3, order=("board_1", "board_2"))}
    third = {r.team: r for r in scoring.standings([1, 2], results, boards=3, order=("board_1", "board_3"))}
    assert (second[1].rank, second[2].rank, second[1].decided_by) == (1, 2, "board_2")
    assert (third[1].rank, third[2].rank, third[2].decided_by) == (2, 1, "board_3")
    assert (second[1].values["board_1"], second[1].values["board_2"], third[2].values["board_3"]) == (1, 2, 2)


def test_match_points_are_configurable_and_a_bye_is_a_match_won_with_every_board_drawn() -> None:
    rows = {
        r.team: r
        for r in scoring.standings(
            [1, 2, 3], [R(1, 2, W, D), R(3, None)], boards=2, points=scoring.MatchPoints.of(3, 1, 0)
        )
    }
    assert (rows[1].match_points, rows[2].match_points, rows[3].match_points) == (6, 0, 6)  # halves
    assert rows[3].game_points == 2 and (rows[3].played, rows[3].won, rows[3].drawn, rows[3].lost) == (1, 1, 0, 0)


def test_match_points_of_one_half_are_kept_exactly_and_shown_as_the_sheet_shows_them() -> None:
    # 1/½/0 (the RIF Team Championship's): four teams, 2 boards, a round robin of 3 rounds and then 3 more
    results = [R(1, 2, W, D), R(3, 4, D, D), R(1, 3, D, D), R(2, 4, W, W), R(1, 4, L, D), R(2, 3, W, D)] * 2
    points = scoring.MatchPoints.of(1, 0.5, 0)
    rows = {r.team: r for r in scoring.standings([1, 2, 3, 4], results, boards=2, points=points)}
    # 1: W D L twice = 3; 2: L W W twice = 4; 3: D D L twice = 2; 4: D L W twice = 3
    taken = {t: scoring.points_value("match_points", r.match_points) for t, r in rows.items()}
    assert taken == {1: 3, 2: 4, 3: 2, 4: 3}
    once = {r.team: r for r in scoring.standings([1, 2, 3, 4], results[:5], boards=2, points=points)}
    assert scoring.value_text("match_points", once[1].match_points) == "1½"  # W D, then L not yet played
    assert scoring.value_text("match_points", once[3].match_points) == "1"
    assert scoring.points_value("match_points", once[1].match_points) == 1.5


@pytest.mark.parametrize(
    "bye, game_points, match_points, played",
    [("won_drawn", 2, 4, 1), ("won_all", 4, 4, 1), ("drawn", 2, 2, 1), ("zero", 0, 0, 0)],
)
def test_a_team_that_rests_scores_as_the_event_says(bye: str, game_points: int, match_points: int, played: int) -> None:
    # three teams, 2 boards, 2/1/0: team 3 rests in round 1 (in halves: 2 game points are one point)
    rows = {r.team: r for r in scoring.standings([1, 2, 3], [R(1, 2, W, D), R(3, None)], boards=2, bye=bye)}
    assert (rows[3].game_points, rows[3].match_points, rows[3].played) == (game_points, match_points, played)
    assert rows[3].values["buchholz"] == 0  # a rest has no opponent to count


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
    assert not Match.objects.filter(team_board__team_match=match).exists()

    lineup_submit(team_match=match, team=match.away, entries=[away[0], away[1]])

    boards = {m.team_board.number: m for m in Match.objects.filter(team_board__team_match=match)}
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
    assert list(Match.objects.filter(team_board__team_match=match).values_list("team_board__number", flat=True)) == [1]
    result = next(r for r in team_results(stage) if r.home == match.home_id)
    assert result.boards[2] == (0, 2) and not result.complete  # board 1 still to play


@pytest.mark.django_db
def test_colours_by_board_and_round_the_first_named_team_black_on_odd_boards() -> None:
    _tournament, stage = team_event(teams=4, boards=4, reserves=0, lineup_minutes=0, first_colour="pairing")
    services.pair_next_round(stage=stage)
    for team_match in TeamMatch.objects.filter(stage=stage, round=1):
        home = set(members(team_match.home))
        for board in Match.objects.filter(team_board__team_match=team_match):
            game = Game.objects.get(match_game__match=board)
            black_is_home = board.first_id in home  # the first-named player of a board has the first move
            assert black_is_home == (board.team_board.number % 2 == 1)
            assert game.black_id == board.first.player_id


@pytest.mark.django_db
def test_colours_by_round_the_other_team_is_named_first_in_the_second_cycle() -> None:
    _tournament, stage = team_event(
        teams=2, boards=2, reserves=0, lineup_minutes=0, system="double_round_robin", first_colour="pairing"
    )
    services.pair_next_round(stage=stage)
    first = TeamMatch.objects.get(stage=stage, round=1)
    for board in Match.objects.filter(team_board__team_match=first):
        win(Game.objects.get(match_game__match=board), None)
    services.pair_next_round(stage=stage)
    second = TeamMatch.objects.get(stage=stage, round=2)

    assert (second.home_id, second.away_id) == (first.away_id, first.home_id)
    board_one = Match.objects.get(team_board__team_match=second, team_board__number=1)
    assert board_one.first_id in members(second.home)  # now the other team has the first move on board 1


def board_one_black_is_home(team_match: TeamMatch) -> bool:
    board_one = Match.objects.get(team_board__team_match=team_match, team_board__number=1)
    return board_one.first_id in members(team_match.home)


@pytest.mark.django_db
def test_a_toss_recorded_at_the_table_gives_board_one_then_colours_alternate_and_it_is_refused_once_boards_exist() -> (
    None
):
    _tournament, stage = team_event(teams=4, boards=4, reserves=0, lineup_minutes=30)
    services.pair_next_round(stage=stage)
    one, two = TeamMatch.objects.filter(stage=stage, round=1).order_by("order")
    # match one: the first-named team's captain grabs 7, the other guesses even: wrong, so the grabber has black
    record_team_toss(team_match=one, grabber=one.home, guess="even", count=7)
    # match two: the second-named team grabs 4, the first-named guesses odd: wrong, the grabber has black
    record_team_toss(team_match=two, grabber=two.away, guess="odd", count=4)
    with pytest.raises(TournamentError) as outsider:
        record_team_toss(team_match=one, grabber=two.home, guess="odd", count=3)
    assert outsider.value.code == "not_in_match"
    close_due_lineups(stage, now=timezone.now() + timedelta(minutes=31))

    for team_match, home_black in ((one, True), (two, False)):
        team_match.refresh_from_db()
        assert team_match.colour_toss["recorded"] is True
        assert team_match.colour_toss["black"] == (0 if home_black else 1)
        assert board_one_black_is_home(team_match) == home_black
        home = set(members(team_match.home))
        boards = Match.objects.filter(team_board__team_match=team_match).order_by("team_board__number")
        assert [board.first_id in home for board in boards] == [home_black, not home_black] * 2
    with pytest.raises(TournamentError) as late:
        record_team_toss(team_match=one, grabber=one.away, guess="odd", count=3)
    assert late.value.code == "toss_too_late"
    assert TeamMatch.objects.get(pk=one.pk).colour_toss["count"] == 7  # the refused toss changed nothing


@pytest.mark.django_db
def test_without_a_recorded_toss_board_one_is_drawn_by_a_recorded_lot_and_a_wrong_toss_is_refused() -> None:
    _tournament, stage = team_event(teams=4, boards=2, reserves=0, lineup_minutes=30)
    services.pair_next_round(stage=stage)
    one = TeamMatch.objects.filter(stage=stage, round=1).order_by("order").first()
    assert one is not None
    for guess, count in (("seven", 7), ("odd", 0), ("odd", 362)):
        with pytest.raises(TournamentError) as bad:
            record_team_toss(team_match=one, grabber=one.home, guess=guess, count=count)
        assert bad.value.code == "bad_toss"
    close_due_lineups(stage, now=timezone.now() + timedelta(minutes=31))

    for team_match in TeamMatch.objects.filter(stage=stage, round=1):
        toss = team_match.colour_toss
        assert toss["recorded"] is False and str(stage.draw_seed) in toss["seed"]
        assert toss == formats.toss_by_lot(toss["seed"])  # the lot can be re-run from what was recorded
        assert board_one_black_is_home(team_match) == (toss["black"] == 0)

    _t, pairing = team_event(teams=4, boards=2, reserves=0, lineup_minutes=30, first_colour="pairing")
    services.pair_next_round(stage=pairing)
    fixed = TeamMatch.objects.filter(stage=pairing, round=1).order_by("order").first()
    assert fixed is not None
    with pytest.raises(TournamentError) as no_toss:
        record_team_toss(team_match=fixed, grabber=fixed.home, guess="odd", count=3)
    assert no_toss.value.code == "no_toss"


@pytest.mark.django_db
def test_a_correction_to_one_board_changes_the_team_standings() -> None:
    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=0)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.get(stage=stage, round=1)
    boards = list(Match.objects.filter(team_board__team_match=match).order_by("team_board__number"))
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
    sim = simulate(players=6, preset="teams", stage_options={"boards": 2, "system": "double_round_robin"}, seed=4)

    stage = sim.stages[0].stage
    pairs = [(m.home_id, m.away_id) for m in TeamMatch.objects.filter(stage=stage)]
    assert len(pairs) == 30 and len(set(pairs)) == 30  # 10 rounds of 3: each ordered pair once
    assert all((b, a) in pairs for a, b in pairs)
    assert sim.tournament.status == Tournament.Status.FINISHED
    assert [r["rank"] for r in sim.stages[0].tables[0]["rows"]] == [1, 2, 3, 4, 5, 6]


def _team_simulations(hash_seed: str) -> str:
    loop = (
        "for args in (['--players', '16', '--team-system', 'swiss', '--rounds', '7'],\n"
        "             ['--players', '6', '--team-system', 'double_round_robin']):\n"
        "    out = io.StringIO()\n"
        "    call_command('simulate_tournament', '--preset', 'teams', '--team-boards', '4', *args, stdout=out)\n"
        "    print(out.getvalue())\n"
    )
    return simulations(hash_seed, loop, [], 1200)


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
    from tournament.teams.services import board_prizes
    from tournament.teams.tasks import close_lineups_task

    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=1)
    services.pair_next_round(stage=stage)
    assert close_lineups_task() == 0  # the deadline is a minute away
    TeamMatch.objects.filter(stage=stage).update(lineup_deadline=timezone.now() - timedelta(seconds=1))
    assert close_lineups_task() == 1
    match = TeamMatch.objects.get(stage=stage)
    boards = {
        b.team_board.number: Game.objects.get(match_game__match=b)
        for b in Match.objects.filter(team_board__team_match=match)
    }
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

    board = Match.objects.get(team_board__team_match=match, team_board__number=2)
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
    toss = {"action": "toss", "team_match": match.pk, "grabber": match.away_id, "guess": "odd", "count": "9"}
    client.post(page, toss)  # the second-named team grabbed 9, the first guessed odd: right, it has black
    match.refresh_from_db()
    assert match.colour_toss["recorded"] is True and match.colour_toss["black"] == 0
    late = client.post(page, {**toss, "count": "x"}, follow=True)
    assert "猜单双为单或双" in late.content.decode() or "1 到 361" in late.content.decode()
    client.post(page, {"action": "close"})
    match.refresh_from_db()
    assert match.boards_made_at is not None and Match.objects.filter(team_board__team_match=match).count() == 2
    assert "第 1 轮" in client.get(page).content.decode()


def trf_columns(line: str) -> dict[str, Any]:
    """A 001 line read at FIDE's columns (characters): number 5-8, name 15-47, points 81-84, then ten columns a
    round, the opponent's number at 92-95 in the first."""
    blocks = [line[89 + 10 * r : 99 + 10 * r] for r in range((len(line) - 89 + 9) // 10)]  # "  oooo c r"
    return {"number": int(line[4:8]), "name": line[14:47].strip(), "points": line[80:84].strip(), "rounds": blocks}


@pytest.mark.django_db
def test_the_trf_export_lists_each_team_and_each_players_boards_with_forfeits_and_rounds_sat_out(client: Any) -> None:
    _tournament, stage = team_event(teams=2, boards=2, reserves=1, lineup_minutes=30, first_colour="pairing")
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.get(stage=stage, round=1)
    home, away = members(match.home), members(match.away)
    lineup_submit(team_match=match, team=match.home, entries=[home[0], home[1]])
    lineup_submit(team_match=match, team=match.away, entries=[away[0], None])  # nobody on board 2
    board = Match.objects.get(team_board__team_match=match, team_board__number=1)
    game = Game.objects.get(match_game__match=board)
    win(game, game.white)  # board 1: the second-named team's player (second move) wins

    text = client.get(f"/t/{stage.tournament_id}/teams.trf").content.decode()
    lines = text.splitlines()
    assert "092 Team Round Robin" in lines and "082 2" in lines and "062 6" in lines
    # start numbers: the teams in pairing order (by rating: Team 1 first), players in standing order
    teams = [line for line in lines if line.startswith("013")]
    assert [t[4:36].strip() for t in teams] == ["Team 1", "Team 2"]
    assert [t[36:].split() for t in teams] == [["1", "2", "3"], ["4", "5", "6"]]
    rows = {row["name"]: row for row in (trf_columns(line) for line in lines if line.startswith("001"))}
    first, second = ("T1P1", "T2P1") if match.home.name == "Team 1" else ("T2P1", "T1P1")
    assert rows[first]["rounds"] == [f"  {rows[second]['number']:4d} w 0"] and rows[first]["points"] == "0.0"
    assert rows[second]["rounds"] == [f"  {rows[first]['number']:4d} b 1"] and rows[second]["points"] == "1.0"
    board_two = "T1P2" if match.home.name == "Team 1" else "T2P2"
    assert rows[board_two]["rounds"] == ["  0000 - +"]  # won: nobody sat opposite
    assert rows["T1P3"]["rounds"] == [] and rows["T2P2" if board_two == "T1P2" else "T1P2"]["rounds"] == []


@pytest.mark.django_db
def test_the_round_sheet_hides_a_lineup_until_both_are_in_and_prints_each_team_match_as_pdf(client: Any) -> None:
    tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=30)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.get(stage=stage, round=1)
    lineup_submit(team_match=match, team=match.home, entries=members(match.home))
    sheet = f"/t/{tournament.pk}/teams/round/1/"
    hidden = client.get(sheet).content.decode()
    assert "lineup-hidden" in hidden and "T1P1" not in hidden and "T2P1" not in hidden

    record_team_toss(team_match=match, grabber=match.home, guess="even", count=3)  # wrong guess: home black
    lineup_submit(team_match=match, team=match.away, entries=members(match.away))
    shown = client.get(sheet).content.decode()
    assert "lineup-hidden" not in shown and shown.count("T1P1") >= 2 and "team-slip" in shown
    assert f"{match.home.name}" in shown.split("team-slip")[0]
    pdf = client.get(f"/t/{tournament.pk}/teams/round/1.pdf")
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    assert client.get(f"/t/{tournament.pk}/teams/round/2/").status_code == 404


@pytest.mark.pg_django
@pytest.mark.django_db(transaction=True)
def test_both_captains_send_their_lineups_at_the_same_moment_and_the_boards_are_made_once_on_postgresql() -> None:
    import threading

    from django.db import connection

    _tournament, stage = team_event(teams=2, boards=2, reserves=0, lineup_minutes=30)
    services.pair_next_round(stage=stage)
    match = TeamMatch.objects.get(stage=stage, round=1)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def send(team: Team) -> None:
        try:
            barrier.wait()
            lineup_submit(team_match=match, team=team, entries=members(team))
            outcomes.append("sent")
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
            outcomes.append(f"{type(exc).__name__}: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(team,)) for team in (match.home, match.away)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["sent", "sent"]
    assert sorted(Match.objects.filter(team_board__team_match=match).values_list("team_board__number", flat=True)) == [
        1,
        2,
    ]
    assert TeamMatch.objects.get(pk=match.pk).colour_toss["recorded"] is False  # the lot drawn once, recorded
    assert connection.vendor == "postgresql"
