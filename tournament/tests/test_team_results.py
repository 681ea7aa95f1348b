"""Team events re-derived from their games, independently of the code under test: each team match's score
read from its own boards, the team Swiss paired on the true records in the configured match points (the
same pairing the individual Dutch engine gives those records), tie-break values in their own units, board
prizes without forfeits, "decided by" against the neighbour, withdrawn teams left unpaired, complete ties."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Player
from tournament import services
from tournament.models import Match, Stage, Team, TeamMatch, Tournament
from tournament.swiss.pairing import pairer
from tournament.swiss.state import FIRST, SECOND, PointSystem, RoundRecord, SwissPlayer, SwissState
from tournament.teams import scoring
from tournament.teams.options import TeamOptions
from tournament.teams.selectors import team_rounds, team_stage
from tournament.teams.services import board_prizes, team_create
from tournament.tests.helpers import win
from tournament.withdrawals import entry_withdraw


def event(teams: int, boards: int, **options: object) -> tuple[Tournament, Stage]:
    tournament = services.tournament_create(
        name="团体赛",
        preset="teams",
        stage_options={"boards": boards, "reserves": 0, "lineup_minutes": 0, **options},
    )
    for t in range(1, teams + 1):
        squad = [Player.objects.create(name=f"T{t}P{p}", rating=2000 - 10 * t - p) for p in range(1, boards + 1)]
        team_create(tournament=tournament, name=f"Team {t}", players=squad)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    stage.refresh_from_db()
    return tournament, stage


def team_of_player(tournament: Tournament) -> dict[int, int]:
    return {
        player: team.pk
        for team in Team.objects.filter(tournament=tournament)
        for player in Player.objects.filter(entries__team_membership__team=team).values_list("pk", flat=True)
    }


def play_round(stage: Stage, number: int, pattern: str) -> None:
    """Every board of round ``number``: ``pattern[i]`` says how board ``i`` (counted over the round's boards in
    order) ends: ``b`` black wins, ``w`` white wins, ``d`` a draw."""
    boards = Match.objects.filter(team_board__team_match__stage=stage, round=number).order_by(
        "team_board__team_match__order", "team_board__number"
    )
    for board, how in zip(boards, pattern, strict=False):
        game = Game.objects.get(match_game__match=board)
        win(game, {"b": game.black, "w": game.white, "d": None}[how])


def scores_from_games(stage: Stage) -> dict[int, tuple[float, float]]:
    """Each team match's (home, away) game points, summed from its own games, a bye as every board drawn."""
    team_of = team_of_player(stage.tournament)
    boards = stage.options["boards"]
    out: dict[int, tuple[float, float]] = {}
    for team_match in TeamMatch.objects.filter(stage=stage):
        if team_match.away_id is None:
            out[team_match.pk] = (boards / 2, 0.0)
            continue
        home = away = 0.0
        for game in Game.objects.filter(match_game__match__team_board__team_match=team_match).exclude(result=""):
            black = {"black": 1.0, "draw": 0.5, "white": 0.0}[str(game.result)]
            if team_of[game.black_id] == team_match.home_id:
                home, away = home + black, away + 1 - black
            else:
                home, away = home + 1 - black, away + black
        out[team_match.pk] = (home, away)
    return out


def points_text(value: float) -> str:
    whole, half = int(value), value % 1 == 0.5
    return f"{whole}½" if half and whole else "½" if half else str(whole)


@pytest.mark.django_db
def test_every_team_match_shows_its_own_boards_and_a_bye_is_played_won_and_counted_in_points(client: Any) -> None:
    tournament, stage = event(teams=5, boards=2, system="round_robin")
    for number, pattern in ((1, "bwdb"), (2, "wwbd"), (3, "dbbw")):
        services.pair_next_round(stage=stage)
        play_round(stage, number, pattern)
    homes = [tm.home_id for tm in TeamMatch.objects.filter(stage=stage)]
    assert len(homes) > len(set(homes))  # some team is named first in more than one round: a lookup by team fails

    truth = scores_from_games(stage)
    shown = {m["id"]: m["score"] for r in team_rounds(stage) for m in r["matches"]}
    assert shown == {pk: f"{points_text(h)} – {points_text(a)}" for pk, (h, a) in truth.items()}

    payload = client.get(f"/api/team-events/{stage.pk}/").json()
    assert {m["id"]: m["score"] for r in payload["rounds"] for m in r["matches"]} == shown

    # every row from the games: played counts the bye, Buchholz in points (the opponents' game points)
    totals: dict[int, float] = {}
    opponents: dict[int, list[int]] = {}
    matches: dict[int, int] = {}
    for team_match in TeamMatch.objects.filter(stage=stage):
        home, away = truth[team_match.pk]
        totals[team_match.home_id] = totals.get(team_match.home_id, 0) + home
        matches[team_match.home_id] = matches.get(team_match.home_id, 0) + 1
        if team_match.away_id is not None:
            totals[team_match.away_id] = totals.get(team_match.away_id, 0) + away
            matches[team_match.away_id] = matches.get(team_match.away_id, 0) + 1
            opponents.setdefault(team_match.home_id, []).append(team_match.away_id)
            opponents.setdefault(team_match.away_id, []).append(team_match.home_id)
    for row in payload["standings"]:
        team = row["team"]
        assert row["played"] == matches[team] == row["won"] + row["drawn"] + row["lost"]
        assert row["game_points"] == points_text(totals[team])
        buchholz = sum(totals[o] for o in opponents.get(team, []))
        assert row["tiebreaks"]["buchholz"] == buchholz
        assert row["tiebreak_texts"]["buchholz"] == points_text(buchholz)
    page = client.get(f"/t/{tournament.pk}/").content.decode()
    best = payload["standings"][0]
    assert f"<td>{best['tiebreak_texts']['buchholz']}</td>" in page


def true_state(stage: Stage, order: list[int], points: PointSystem) -> SwissState:
    """The team Swiss as an individual Swiss, from the games alone: each team a player, each match a game."""
    truth = scores_from_games(stage)
    number = {team: n for n, team in enumerate(order, start=1)}
    rounds: dict[int, dict[int, RoundRecord]] = {}
    for team_match in TeamMatch.objects.filter(stage=stage):
        records = rounds.setdefault(team_match.round, {})
        if team_match.away_id is None:
            records[team_match.home_id] = RoundRecord(None, None, "U")
            continue
        home, away = truth[team_match.pk]
        code = "1" if home > away else "0" if home < away else "="
        records[team_match.home_id] = RoundRecord(number[team_match.away_id], FIRST, code)
        other = {"1": "0", "0": "1"}.get(code, "=")
        records[team_match.away_id] = RoundRecord(number[team_match.home_id], SECOND, other)
    players = [
        SwissPlayer(n, f"Team {t}", rounds=[rounds[r].get(t, RoundRecord(None, None, "Z")) for r in sorted(rounds)])
        for t, n in number.items()
    ]
    return SwissState(name="same records", total_rounds=5, players=players, points=points)


@pytest.mark.django_db
def test_the_team_swiss_pairs_the_true_records_on_three_one_zero_as_the_individual_engine_does() -> None:
    tournament, stage = event(teams=7, boards=2, system="swiss", rounds=5, match_points=[3, 1, 0])
    for number, pattern in ((1, "bbwdddww"), (2, "dwbbwddb")):
        services.pair_next_round(stage=stage)
        play_round(stage, number, pattern)
    leaving = Team.objects.get(tournament=tournament, name="Team 7")
    for member in leaving.memberships.all():
        entry_withdraw(entry=member.entry, reason="the bus left")
    stage.refresh_from_db()
    order = list(TeamOptions.of(stage).team_order)

    services.pair_next_round(stage=stage)

    made = {(m.home_id, m.away_id) for m in TeamMatch.objects.filter(stage=stage, round=3)}
    assert all(leaving.pk not in pair for pair in made)  # a team with nobody left is not paired
    state = true_state(stage, order, PointSystem(win=30, draw=10, loss=0, pab=30))
    state.players = [p for p in state.players if p.number != order.index(leaving.pk) + 1]
    for p in state.players:
        p.rounds = p.rounds[:2]
    team_of = dict(enumerate(order, start=1))
    expected = {(team_of[b.first], team_of[b.second] if b.second else None) for b in pairer("2026").pair(state)}
    assert made == expected


def test_match_points_change_the_score_groups_and_so_the_pairing() -> None:
    # After two rounds, on 1/½/0: 6 has 1½; 1, 2, 3 and 4 have 1 (3 by two draws, the others a win and a
    # loss); 5 has ½. On 3/1/0 the middle group splits: 1, 2 and 4 have 3, 3 has 2 — so 3 is no longer in
    # the group 6 floats into, and the pairing differs.
    records = {
        1: [RoundRecord(2, SECOND, "1"), RoundRecord(4, FIRST, "0")],
        2: [RoundRecord(1, FIRST, "0"), RoundRecord(5, FIRST, "1")],
        3: [RoundRecord(5, SECOND, "="), RoundRecord(6, FIRST, "=")],
        4: [RoundRecord(6, FIRST, "0"), RoundRecord(1, SECOND, "1")],
        5: [RoundRecord(3, FIRST, "="), RoundRecord(2, SECOND, "0")],
        6: [RoundRecord(4, SECOND, "1"), RoundRecord(3, SECOND, "=")],
    }

    def pairs(points: PointSystem) -> set[frozenset[int]]:
        state = SwissState("t", 5, [SwissPlayer(n, str(n), rounds=r) for n, r in records.items()], points=points)
        return {frozenset((b.first, b.second)) for b in pairer("2026").pair(state)}

    classic = pairs(PointSystem())
    three = pairs(PointSystem(win=30, draw=10, loss=0, pab=30))
    assert classic == {frozenset(p) for p in ((1, 5), (2, 6), (3, 4))}
    assert three == {frozenset(p) for p in ((1, 6), (2, 3), (4, 5))}
    assert TeamOptions(match_points=(3, 1, 0)).pairing_points == PointSystem(30, 10, 0, 30, 10, 30, 0)


@pytest.mark.django_db
def test_board_prizes_count_only_games_played_over_the_board() -> None:
    tournament, stage = event(teams=2, boards=2, system="round_robin")
    services.pair_next_round(stage=stage)
    team_match = TeamMatch.objects.get(stage=stage)
    board_one = Match.objects.get(team_board__team_match=team_match, team_board__number=1)
    game = Game.objects.get(match_game__match=board_one)
    win(game, game.black)
    leaving = team_match.home.memberships.get(order=2).entry
    entry_withdraw(entry=leaving, reason="ill")  # board 2 is forfeited to the other team

    prizes = board_prizes(stage)
    assert [(s.points, s.games) for s in prizes[1]] == [(2, 1), (0, 1)]
    assert 2 not in prizes  # nobody played board 2 over the board
    assert team_stage(stage)["board_prizes"].get("2") is None


def R(home: int, away: int | None, *boards: tuple[int, int]) -> scoring.TeamResult:
    return scoring.TeamResult(home, away, {b: s for b, s in enumerate(boards, start=1)}, True)


W, D, L = (2, 0), (1, 1), (0, 2)


def test_decided_by_names_what_separates_each_team_from_its_neighbour() -> None:
    # Two boards, two rounds. Game points (halves): 5 has 6; 1, 2 and 3 have 4; 4 and 6 have 3. Among 1, 2, 3
    # Buchholz puts 1 first (9 against 7 and 7); 2 and 3 are level on it and 2 won the match between them.
    results = [R(1, 4, D, D), R(2, 3, W, D), R(5, 6, W, W), R(1, 5, D, D), R(2, 6, D, L), R(3, 4, W, D)]
    rows = scoring.standings(range(1, 7), results, boards=2, order=("buchholz", "direct_encounter"))
    middle = [(r.team, r.values["game_points"], r.values["buchholz"]) for r in rows[1:4]]
    assert middle == [(1, 4, 9), (2, 4, 7), (3, 4, 7)]
    by = {r.team: r.decided_by for r in rows}
    # 1 is above 2 by Buchholz, so 2 is below 1 by it; 3 is below 2 by the match between them (on Buchholz
    # they are level); 5 is alone on its score
    assert (by[5], by[1], by[2], by[3]) == ("", "buchholz", "buchholz", "direct_encounter")


def test_a_complete_tie_shares_the_place_or_waits_for_the_extra_game_the_organizer_records() -> None:
    results = [R(1, 3, W), R(2, 4, W), R(1, 2, D), R(3, 4, D)]
    order = ("buchholz", "sonneborn_berger", "direct_encounter")
    shared = scoring.standings([1, 2, 3, 4], results, boards=1, order=order)
    assert [(r.team, r.rank, r.decided_by) for r in shared[:2]] == [(1, 1, "shared"), (2, 1, "shared")]
    assert shared[2].rank == 3  # the next place is counted past the shared one

    due = scoring.standings([1, 2, 3, 4], results, boards=1, order=order, complete_tie="extra_game")
    assert [(r.rank, r.decided_by) for r in due[:2]] == [(1, "extra_game_due"), (1, "extra_game_due")]
    decided = scoring.standings(
        [1, 2, 3, 4], results, boards=1, order=order, complete_tie="extra_game", decisions=[[2, 1]]
    )
    assert [(r.team, r.rank, r.decided_by) for r in decided[:2]] == [(2, 1, "extra_game"), (1, 2, "extra_game")]


@pytest.mark.django_db
def test_the_organizer_records_the_extra_game_of_a_complete_tie_and_a_stranger_or_a_wrong_order_changes_nothing(
    client: Any,
) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group as Role

    _tournament, stage = event(teams=2, boards=1, system="round_robin", complete_tie="extra_game")
    services.pair_next_round(stage=stage)
    play_round(stage, 1, "d")
    url = f"/api/team-events/{stage.pk}/extra-game/"
    rows = client.get(f"/api/team-events/{stage.pk}/").json()["standings"]
    assert [(r["rank"], r["decided_by"]) for r in rows] == [(1, "extra_game_due"), (1, "extra_game_due")]
    second, first = sorted(r["team"] for r in rows)

    stranger = get_user_model().objects.create_user("someone", password="pass-2026")
    client.force_login(stranger)
    assert client.post(url, {"order": [first, second]}, content_type="application/json").status_code == 403
    organizer = get_user_model().objects.create_user("org", password="pass-2026")
    organizer.groups.add(Role.objects.get(name="organizer"))
    client.force_login(organizer)
    wrong = client.post(url, {"order": [first, first]}, content_type="application/json")
    assert wrong.status_code == 400 and wrong.json()["code"] == "not_tied"
    stage.refresh_from_db()
    assert "tie_decisions" not in stage.options

    done = client.post(url, {"order": [first, second]}, content_type="application/json")
    assert done.status_code == 200
    assert [(r["team"], r["rank"], r["decided_by"]) for r in done.json()["standings"]] == [
        (first, 1, "extra_game"),
        (second, 2, "extra_game"),
    ]
    again = client.post(url, {"order": [second, first]}, content_type="application/json")
    assert again.status_code == 400  # recorded once; a correction is the organizer's admin work
