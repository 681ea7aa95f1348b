"""One record per tie-break, carrying its computation for each kind of competitor that has one (a group's
player, a Swiss stage's player, a team), all ranked by the one ranking function."""

from __future__ import annotations

from tournament.formats import TIEBREAKS, group_tiebreaks, swiss_tiebreaks
from tournament.swiss import tiebreaks as swiss
from tournament.swiss.state import FIRST, SECOND, RoundRecord, SwissPlayer, SwissState
from tournament.teams import scoring
from tournament.teams.scoring import TeamResult


def test_every_tie_break_is_computed_for_some_competitor_and_the_lists_come_from_the_records() -> None:
    assert all(t.group or t.swiss or t.team for t in TIEBREAKS.values())
    assert group_tiebreaks() == ["mini_league", "wins", "sonneborn_berger", "white_wins"]
    assert (
        swiss_tiebreaks()
        == swiss.TIEBREAKS
        == [
            "wins",
            "sonneborn_berger",
            "buchholz",
            "buchholz_cut1",
            "median_buchholz",
            "progressive",
            "direct_encounter",
            "black_games",
            "average_rating",
        ]
    )
    assert scoring.team_tiebreaks() == [
        "sonneborn_berger",
        "buchholz",
        "direct_encounter",
        "game_points",
        "match_points",
        "board_1",
        "board_2",
        "board_3",
    ]


def test_the_swiss_record_ranks_by_its_own_computation() -> None:
    # 1 beat 2, 2 beat 3, 3 beat 1: three on one point; Buchholz alike, so the direct encounter (all met, one
    # point each) cannot separate them, and the lot does.
    state = SwissState("t", 2, [SwissPlayer(n, f"P{n}", 2000) for n in (1, 2, 3)])
    played = {1: (2, "1"), 2: (3, "1"), 3: (1, "1")}
    for winner, (loser, _r) in played.items():
        state.by_number()[winner].rounds.append(RoundRecord(loser, FIRST, "1"))
        state.by_number()[loser].rounds.append(RoundRecord(winner, SECOND, "0"))
    ranked = swiss.standings(state, ["buchholz", "direct_encounter"], lot_seed="x")
    assert [row.values["direct_encounter"] for row in ranked] == [10, 10, 10]  # computed among the three
    assert [row.decided_by for row in ranked] == ["lot", "lot", "lot"]


def test_the_team_record_ranks_by_its_own_computation() -> None:
    # Halves on two boards. 1 beats 2 4-0 and 3 3-1; 2 and 3 draw 2-2: 2 and 3 level on match points (a
    # draw each). Game points: 1 has 7, 2 has 2, 3 has 3; Buchholz (the opponents' game points) puts 2 (7 + 3)
    # above 3 (7 + 2).
    results = [
        TeamResult(home=1, away=2, boards={1: (2, 0), 2: (2, 0)}, complete=True, match=1),
        TeamResult(home=1, away=3, boards={1: (2, 0), 2: (1, 1)}, complete=True, match=2),
        TeamResult(home=2, away=3, boards={1: (2, 0), 2: (0, 2)}, complete=True, match=3),
    ]
    rows = scoring.standings([1, 2, 3], results, boards=2, primary="match_points", order=["buchholz"])
    assert [(row.team, row.rank, row.values["buchholz"]) for row in rows] == [(1, 1, 5), (2, 2, 10), (3, 3, 9)]
    assert [row.decided_by for row in rows] == ["", "buchholz", "buchholz"]
