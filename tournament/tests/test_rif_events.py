"""RIF events as they were run: the Team Gomoku World Championship 2018's final table (match points 1 / ½ / 0,
Berger splitting 2nd and 3rd) and the Team World Championship 2008's rest worth nothing, entered board by board
through the services and read back as the public reads them; each figure is also re-derived here from the
results file alone, with plain arithmetic, so the file and the system are held against the published sheet."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from games.models import Game, Player
from tournament import formats, lots, ranking, services
from tournament.models import Match, Stage, TeamMatch, Tournament
from tournament.stage_formats import stage_standings
from tournament.teams.selectors import team_stage
from tournament.teams.services import team_create
from tournament.tests.helpers import OPEN, pair_and_publish, win

TGWC_2018 = json.loads((Path(__file__).parent / "data" / "tgwc2018.json").read_text(encoding="utf-8"))


def team_event(names: list[str], boards: int, **options: object) -> tuple[Tournament, Stage]:
    tournament = services.tournament_create(
        name="Team World Championship",
        preset="teams",
        stage_options={"boards": boards, "reserves": 0, "lineup_minutes": 0, "system": "round_robin", **options},
    )
    for t, name in enumerate(names, start=1):
        squad = [Player.objects.create(name=f"{name} {p}", rating=2400 - 10 * t - p) for p in range(1, boards + 1)]
        team_create(tournament=tournament, name=name, players=squad)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=2018)
    services.start_stage(stage=stage)
    stage.refresh_from_db()
    return tournament, stage


def play_match(team_match: TeamMatch, home_points: Fraction) -> None:
    """The team match's boards so that the first-named team takes ``home_points``: boards won from board 1,
    then a draw for a half point, the rest lost."""
    boards = Match.objects.filter(team_board__team_match=team_match).order_by("team_board__number")
    won, half = divmod(home_points * 2, 2)
    home_players = set(Player.objects.filter(entries__team_membership__team_id=team_match.home_id))
    for number, board in enumerate(boards):
        game = Game.objects.get(match_game__match=board)
        home, away = (game.black, game.white) if game.black in home_players else (game.white, game.black)
        win(game, home if number < won else None if number < won + half else away)


PARTS = {Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}


def text(value: Fraction) -> str:
    whole, part = divmod(value, 1)
    return f"{whole or ''}{PARTS[part]}" if part else str(whole)


def test_the_results_file_gives_the_published_figures_by_plain_arithmetic() -> None:
    # the file alone, summed here: what the system is then held against is what the sheet printed
    points: dict[str, Fraction] = {}
    match_points: dict[str, Fraction] = {}
    scores: dict[tuple[str, str], Fraction] = {}
    for a, b, pa, pb in TGWC_2018["matches"]:
        assert Fraction(pa) + Fraction(pb) == 4
        scores[(a, b)], scores[(b, a)] = Fraction(pa), Fraction(pb)
    for (a, _b), mine in scores.items():
        points[a] = points.get(a, Fraction(0)) + mine
        match_points[a] = match_points.get(a, Fraction(0)) + (1 if mine > 2 else Fraction(1, 2) if mine == 2 else 0)
    berger = {t: sum((mine * points[b] for (a, b), mine in scores.items() if a == t), Fraction(0)) for t in points}
    for row in TGWC_2018["published"]:
        team = row["team"]
        assert text(points[team]) == row["game_points"]
        assert text(match_points[team]) == row.get("match_points", text(match_points[team]))
        assert text(berger[team]) == row.get("berger", text(berger[team]))


@pytest.mark.django_db
def test_the_team_gomoku_world_championship_2018_final_table_comes_out_as_published(client: Any) -> None:
    names = [row["team"] for row in TGWC_2018["published"]]
    scores = {(a, b): Fraction(pa) for a, b, pa, _pb in TGWC_2018["matches"]}
    scores.update({(b, a): 4 - s for (a, b), s in list(scores.items())})
    _tournament, stage = team_event(
        names, boards=4, match_points=TGWC_2018["match_points"], tiebreaks=TGWC_2018["tiebreaks"]
    )
    team_names = dict(stage.tournament.teams.values_list("pk", "name"))
    for number in range(1, 10):
        services.pair_next_round(stage=stage)
        for team_match in TeamMatch.objects.filter(stage=stage, round=number):
            assert team_match.away_id is not None  # ten teams: nobody rests
            play_match(team_match, scores[(team_names[team_match.home_id], team_names[team_match.away_id])])

    payload = client.get(f"/api/team-events/{stage.pk}/").json()
    boards = [b for r in payload["rounds"] for m in r["matches"] for b in m["boards"]]
    assert len(boards) == 180  # every board names its match and its game: no finding games by player name
    assert all(Game.objects.get(match_game__match_id=b["match"]).pk == b["game"] for b in boards)
    rows = {row["name"]: row for row in payload["standings"]}
    for published in TGWC_2018["published"]:
        row = rows[published["team"]]
        assert (row["rank"], row["game_points"]) == (published["place"], published["game_points"])
        if "match_points" in published:
            assert row["match_points_text"] == published["match_points"]
            assert row["match_points"] == float(Fraction(published["match_points"].replace("½", ".5") or "0"))
        if "berger" in published:
            assert row["tiebreak_texts"]["sonneborn_berger"] == published["berger"]
    # 2nd and 3rd by Berger (level on game and match points), 4th below them by match points
    assert (rows["Hungary"]["decided_by"], rows["Poland"]["decided_by"]) == ("sonneborn_berger", "sonneborn_berger")
    assert rows["Czech Republic I"]["decided_by"] == "match_points"
    assert rows["Hungary"]["tiebreaks"]["match_points"] == 6.5

    # as the table stood after round 6 (re-derived here from the results file and the rounds the lot made)
    after_six: dict[str, Fraction] = dict.fromkeys(names, Fraction(0))
    for team_match in TeamMatch.objects.filter(stage=stage, round__lte=6):
        home, away = team_names[team_match.home_id], team_names[team_match.away_id or 0]
        after_six[home] += scores[(home, away)]
        after_six[away] += scores[(away, home)]
    then = client.get(f"/api/team-events/{stage.pk}/?after_round=6").json()["standings"]
    assert {row["name"]: row["game_points"] for row in then} == {t: text(p) for t, p in after_six.items()}
    assert sum(row["played"] for row in then) == 60

    page = client.get(f"/t/{stage.tournament_id}/").content.decode()
    assert "<td>6½</td>" in page and "<td>355¼</td>" in page  # the sheet's own way of writing them


@pytest.mark.django_db
def test_a_rest_worth_nothing_as_the_team_world_championship_2008_scored_it() -> None:
    # nine teams of two boards: one team rests each round and is listed with 0 game and 0 match points
    names = [f"Team {n}" for n in range(1, 10)]
    _tournament, stage = team_event(names, boards=2, bye="zero", match_points=[1, 0.5, 0])
    services.pair_next_round(stage=stage)
    resting = TeamMatch.objects.get(stage=stage, round=1, away__isnull=True).home_id
    for team_match in TeamMatch.objects.filter(stage=stage, round=1, away__isnull=False):
        play_match(team_match, Fraction(3, 2))
    rows = {row["team"]: row for row in team_stage(stage)["standings"]}
    rest = rows[resting]
    assert (rest["game_points"], rest["match_points"], rest["played"], rest["won"]) == ("0", 0, 0, 0)
    others = [r for t, r in rows.items() if t != resting]
    assert sorted(r["game_points"] for r in others) == ["1½"] * 4 + ["½"] * 4
    assert sorted(r["match_points"] for r in others) == [0] * 4 + [1] * 4


@pytest.mark.django_db
@pytest.mark.parametrize("points", [[1, 0.25, 0], [1, "½", 0], [True, 0, 0], [1, 1, 0], [-1, 0, 0], [1, 0.5]])
def test_match_points_that_no_regulation_gives_are_refused_by_name(points: list[Any]) -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", preset="teams", stage_options={"match_points": points})
    assert "match_points" in str(refused.value.message)


@pytest.mark.django_db
def test_an_unknown_rest_value_is_refused_by_name() -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", preset="teams", stage_options={"bye": "half"})
    assert "bye" in str(refused.value.message)


# -- the round robin's numbers by lot, compatriots apart in the last rounds ---------------------------------

COUNTRIES = ["RUS", "RUS", "RUS", "CZE", "CZE", "CZE", "HUN", "POL", "EST", ""]  # "": no country given


def test_over_many_seeds_no_two_of_one_country_meet_in_the_last_three_rounds_and_every_order_can_come() -> None:
    keys = list(range(10))
    firsts = set()
    for seed in range(300):
        drawn = lots.drawn_apart(
            keys, lambda k: COUNTRIES[k], 3, formats.balanced_single_rounds, random.Random(f"{seed}-lot")
        )
        assert sorted(drawn.order) == keys and drawn.gave_way == []
        rounds = formats.balanced_single_rounds(drawn.order)  # re-derived: the last three rounds' pairs
        for pairs in rounds[-3:]:
            assert all(not COUNTRIES[a] or COUNTRIES[a] != COUNTRIES[b] for a, b in pairs)
        firsts.add(drawn.order[0])
        again = lots.drawn_apart(
            keys, lambda k: COUNTRIES[k], 3, formats.balanced_single_rounds, random.Random(f"{seed}-lot")
        )
        assert again == drawn  # the recorded seed gives the same lot
    assert firsts == set(keys)  # a lot, not a seeding: anyone can draw number 1


def test_when_the_rule_cannot_hold_the_lot_says_which_rounds_gave_way() -> None:
    # six players of one country in a round robin of eight: each meets three others in the last three rounds
    units = ["RUS"] * 6 + ["HUN", "POL"]
    drawn = lots.drawn_apart(list(range(8)), lambda k: units[k], 3, formats.circle_rounds, random.Random(1), tries=200)
    rounds = formats.circle_rounds(drawn.order)
    meeting = [(n, a, b) for n, pairs in enumerate(rounds, start=1) if n > 4 for a, b in pairs if units[a] == units[b]]
    assert drawn.gave_way == meeting and meeting  # named, and exactly those
    assert {n for n, _a, _b in drawn.gave_way} <= {5, 6, 7}


@pytest.mark.django_db
def test_a_ten_team_round_robin_by_lot_keeps_compatriots_apart_in_its_last_three_rounds(client: Any) -> None:
    names = [f"{country or 'Team'} {n}" for n, country in enumerate(COUNTRIES, start=1)]
    tournament = services.tournament_create(
        name="Team World Championship",
        preset="teams",
        stage_options={"boards": 2, "reserves": 0, "lineup_minutes": 0, "order": "lot", "apart_last": 3},
    )
    for name, unit in zip(names, COUNTRIES, strict=True):
        squad = [Player.objects.create(name=f"{name} {p}", unit=unit, rating=2000) for p in (1, 2)]
        team_create(tournament=tournament, name=name, players=squad)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=77)
    services.start_stage(stage=stage)
    stage.refresh_from_db()
    country = {t.pk: COUNTRIES[names.index(t.name)] for t in tournament.teams.all()}
    for number in range(1, 10):
        services.pair_next_round(stage=stage)
        for team_match in TeamMatch.objects.filter(stage=stage, round=number):
            assert team_match.away_id is not None
            if number >= 7:
                assert not country[team_match.home_id] or country[team_match.home_id] != country[team_match.away_id]
            play_match(team_match, Fraction(1))
    rounds = client.get(f"/api/team-events/{stage.pk}/").json()["rounds"]
    assert all(r["country_rule_gave_way"] == [] for r in rounds)
    assert stage.options["lot"]["gave_way"] == []
    # colours spread between countries (WC rules): each team has black on board 1 (the first-named team's, by
    # the pairing) in four or five of its nine matches, and each country's teams as often as its share allows
    black_on_one = Counter(m.home_id for m in TeamMatch.objects.filter(stage=stage))
    assert all(black_on_one[team] in (4, 5) for team in country), black_on_one
    for land in {c for c in COUNTRIES if c}:
        teams_of = [t for t, c in country.items() if c == land]
        assert abs(sum(black_on_one[t] for t in teams_of) - 4.5 * len(teams_of)) <= len(teams_of) / 2


@pytest.mark.django_db
def test_a_final_by_lot_keeps_compatriots_apart_and_records_where_the_rule_gave_way() -> None:
    tournament = services.tournament_create(
        name="World Championship final", first_stage="round_robin", stage_options={"lot": True, "apart_last": 3}
    )
    units = ["RUS"] * 5 + ["EST", "HUN", "POL"]
    for n, unit in enumerate(units, start=1):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}", unit=unit, rating=2000))
    stage = services.draw_stage(stage=tournament.stages.get(), seed=5)
    group = stage.groups.get()
    unit_of = {e.pk: e.player.unit for e in group.members.select_related("player")}
    last = max(Match.objects.filter(group=group).values_list("round", flat=True))
    meetings = [
        [m.round, m.first_id, m.second_id]
        for m in Match.objects.filter(group=group, round__gt=last - 3).order_by("round", "order")
        if unit_of[m.first_id] == unit_of[m.second_id]
    ]
    recorded = stage.options["drawn"]["gave_way"]
    assert sorted(map(sorted, recorded)) == sorted(map(sorted, meetings))  # five of one country in eight: some must
    assert meetings


@pytest.mark.django_db
@pytest.mark.parametrize(
    "options", [{"apart_last": 3}, {"lot": "yes"}, {"lot": True, "apart_last": -1}, {"lots": True}]
)
def test_a_final_refuses_options_it_does_not_know_by_name(options: dict[str, Any]) -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", first_stage="round_robin", stage_options=options)
    assert next(iter(options)) in str(refused.value.message) or "apart_last" in str(refused.value.message)


# -- shared places, except where a place must be precise ----------------------------------------------------


def test_a_three_way_tie_on_the_medals_waits_for_extra_games_while_fifth_and_sixth_share() -> None:
    points = {1: 10, 2: 10, 3: 10, 4: 8, 5: 6, 6: 6, 7: 4}
    criteria = [("points", lambda block: points.__getitem__)]
    medals = ranking.CompleteTie("share", "", (), precise=(1, 2, 3))
    placed = {p.competitor: (p.place, p.decided_by) for p in ranking.rank(sorted(points), criteria, medals.settle)}
    assert [placed[k] for k in (1, 2, 3)] == [(1, "extra_game_due")] * 3
    assert placed[4] == (4, "")
    assert placed[5] == placed[6] == (5, "shared")  # no medal between 5th and 6th: they share
    decided = ranking.CompleteTie("share", "", ([2, 3, 1],), precise=(1, 2, 3))
    after = {p.competitor: (p.place, p.decided_by) for p in ranking.rank(sorted(points), criteria, decided.settle)}
    assert [after[k] for k in (2, 3, 1)] == [(1, "extra_game"), (2, "extra_game"), (3, "extra_game")]
    assert after[5] == after[6] == (5, "shared")
    # a tie on 3rd-4th holds a medal too; one on 4th-5th does not
    assert ranking.crosses((1, 2, 3), 3, 2) and not ranking.crosses((1, 2, 3), 4, 2)


@pytest.mark.django_db
def test_a_swiss_tie_on_first_place_waits_for_the_extra_game_the_organizer_alone_records(client: Any) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group as Role

    users = get_user_model().objects
    owner, rival = users.create_user("owner", password="pass-2026"), users.create_user("rival", password="pass-2026")
    for user in (owner, rival):  # two hosts on one server, each running their own tournaments
        user.groups.add(Role.objects.get(name="host"))
    options = {"rounds": 1, "tiebreaks": [], "complete_tie": "share", "precise_places": [1]}
    tournament = services.tournament_create(name="Open", preset="swiss", stage_options=options, actor=owner)
    for n in range(4):
        services.register(tournament=tournament, player=Player.objects.create(name=f"Q{n}", rating=2000 - n))
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    pair_and_publish(stage)
    for game in Game.objects.filter(match_game__match__group__stage=stage).select_related("black"):
        win(game, game.black)

    url = f"/api/swiss/{stage.pk}/extra-game/"
    rows = client.get(f"/api/swiss/{stage.pk}/").json()["standings"]["rows"]
    assert [(r["rank"], r["decided_by"]) for r in rows] == [(1, "extra_game_due")] * 2 + [(3, "shared")] * 2
    leaders = [r["entry"] for r in rows[:2]]
    client.force_login(rival)  # an organizer of another tournament on the same server
    assert client.post(url, {"order": leaders}, content_type="application/json").status_code == 403
    client.force_login(owner)
    wrong = client.post(url, {"order": [r["entry"] for r in rows[2:]]}, content_type="application/json")
    assert wrong.status_code == 400 and wrong.json()["code"] == "not_tied"  # 3rd-4th share: no extra game
    done = client.post(url, {"order": leaders[::-1]}, content_type="application/json")
    assert done.status_code == 200
    placed = [(r["entry"], r["rank"], r["decided_by"]) for r in done.json()["standings"]["rows"][:2]]
    assert placed == [(leaders[1], 1, "extra_game"), (leaders[0], 2, "extra_game")]
    assert client.post(url, {"order": leaders}, content_type="application/json").status_code == 400  # once only


@pytest.mark.django_db
def test_a_team_event_shares_every_place_but_the_precise_ones() -> None:
    # four teams of two boards, both matches won 1½–½ by the first-named team: the two winners are level on
    # everything (1st and 2nd: the title is precise), so are the two losers (3rd and 4th: they share)
    _tournament, stage = team_event(["A", "B", "C", "D"], boards=2, precise_places=[1])
    services.pair_next_round(stage=stage)
    winners = set()
    for team_match in TeamMatch.objects.filter(stage=stage, round=1):
        play_match(team_match, Fraction(3, 2))
        winners.add(team_match.home_id)
    rows = team_stage(stage)["standings"]
    assert {r["team"] for r in rows[:2]} == winners
    assert [(r["rank"], r["decided_by"]) for r in rows] == [(1, "extra_game_due")] * 2 + [(3, "shared")] * 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    "options, named",
    [
        ({"apart_last": 3}, "apart_last"),  # the rule is kept by a lot: without one, refused
        ({"order": "lot", "apart_last": 3, "system": "swiss"}, "apart_last"),
        ({"order": "random"}, "order"),
        ({"precise_places": [0]}, "precise_places"),
        ({"precise_places": "1-3"}, "precise_places"),
        ({"complete_tie": "coin"}, "complete_tie"),
    ],
)
def test_team_options_the_rules_do_not_allow_are_refused_by_name(options: dict[str, Any], named: str) -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", preset="teams", stage_options=options)
    assert named in str(refused.value.message)


@pytest.mark.django_db
@pytest.mark.parametrize("options", [{"complete_tie": "coin"}, {"precise_places": [-1]}, {"tie_decisions": [[1, 2]]}])
def test_swiss_tie_options_are_checked_and_the_recorded_outcomes_are_not_an_option(options: dict[str, Any]) -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", preset="swiss", stage_options=options)
    assert next(iter(options)) in str(refused.value.message)


# -- a schedule fixed in advance ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_team_round_robin_follows_the_numbers_the_organizer_published_in_advance() -> None:
    names = ["Estonia", "Russia", "Japan", "Sweden", "Czechia", "Hungary"]
    numbers = ["Japan", "Czechia", "Estonia", "Hungary", "Sweden", "Russia"]
    tournament, stage = team_event(names, 2, order="fixed", numbers=numbers)
    ids = dict(tournament.teams.values_list("name", "pk"))
    assert stage.options["team_order"] == [ids[n] for n in numbers]
    services.pair_next_round(stage=stage)
    made = [(m.home_id, m.away_id) for m in TeamMatch.objects.filter(stage=stage, round=1).order_by("order")]
    schedule = formats.balanced_single_rounds([ids[n] for n in numbers])[0]
    assert made == list(schedule)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("numbers", "named"),
    [
        (["Estonia", "Russia", "Japan", "Narnia"], "Narnia"),  # not entered (and Sweden left out)
        (["Estonia", "Russia", "Japan"], "Sweden"),  # left out
    ],
)
def test_numbers_that_do_not_name_the_field_exactly_are_refused_by_name_and_nothing_is_drawn(
    numbers: list[str], named: str
) -> None:
    tournament = services.tournament_create(
        name="Fixed",
        preset="teams",
        stage_options={"boards": 1, "reserves": 0, "lineup_minutes": 0, "order": "fixed", "numbers": numbers},
    )
    for name in ("Estonia", "Russia", "Japan", "Sweden"):
        team_create(tournament=tournament, name=name, players=[Player.objects.create(name=f"{name} 1")])
    stage = tournament.stages.get()
    with pytest.raises(services.TournamentError) as refused:
        services.draw_stage(stage=stage, seed=1)
    assert refused.value.code == "bad_numbers" and named in str(refused.value.message)
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PENDING and not stage.groups.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "options",
    [
        {"numbers": ["A", "B"]},  # numbers without a fixed order
        {"order": "fixed"},  # a fixed order without its numbers
        {"order": "fixed", "numbers": ["A", "A"]},
        {"order": "fixed", "numbers": ["A", ""]},
        {"order": "fixed", "numbers": "A,B"},
    ],
)
def test_a_fixed_order_and_its_numbers_come_together_or_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", preset="teams", stage_options=options)
    assert "numbers" in str(refused.value.message)


@pytest.mark.django_db
def test_a_final_takes_the_numbers_fixed_in_advance_and_refuses_them_with_a_lot() -> None:
    tournament = services.tournament_create(
        name="Final", first_stage="round_robin", stage_options={"numbers": ["P3", "P1", "P4", "P2"]}
    )
    for n in range(1, 5):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}", rating=2000 + n))
    stage = services.draw_stage(stage=tournament.stages.get(), seed=9)
    seated = stage.groups.get().memberships.order_by("position").values_list("entry__player__name", flat=True)
    assert list(seated) == ["P3", "P1", "P4", "P2"]
    with pytest.raises(services.TournamentError):
        services.tournament_create(
            name="Both", first_stage="round_robin", stage_options={"lot": True, "numbers": ["P1", "P2"]}
        )


# -- a round robin's rest, with an odd number ---------------------------------------------------------------


def five_player_final(bye: str) -> tuple[Tournament, Stage]:
    options = {} if bye == "zero" else {"bye": bye}
    tournament = services.tournament_create(name=f"Final {bye}", first_stage="round_robin", stage_options=options)
    Tournament.objects.filter(pk=tournament.pk).update(boards=20)
    for n in range(1, 6):
        services.register(tournament=tournament, player=Player.objects.create(name=f"F{bye}{n}", rating=2000 + n))
    stage = services.draw_stage(stage=tournament.stages.get(), seed=4)
    services.start_stage(stage=stage)
    return tournament, stage


def play_through_round(stage: Stage, number: int) -> None:
    """Every game of the round's matches: black wins."""
    for _ in range(5):
        games = Game.objects.filter(match_game__match__group__stage=stage, match_game__match__round=number)
        open_games = list(games.filter(status__in=OPEN).select_related("black"))
        if not open_games:
            return
        for game in open_games:
            win(game, game.black)


@pytest.mark.django_db
@pytest.mark.parametrize(("bye", "per_rest"), [("zero", 0), ("win", 4), ("draw", 2)])
def test_a_rest_in_a_round_robin_with_an_odd_number_scores_as_the_stage_says_once_its_round_is_over(
    bye: str, per_rest: int
) -> None:
    """Five players, two games a pair, win 2 / draw 1: a rest worth two games won (4), two drawn (2) or
    nothing; the points re-derived here from the games themselves plus the rests of the rounds played."""
    tournament, stage = five_player_final(bye)
    group = stage.groups.get()
    members = set(group.members.values_list("pk", flat=True))
    for number in (1, 2):
        play_through_round(stage, number)
    # round 3 half played: its rest does not count yet
    half = Match.objects.filter(group=group, round=3).order_by("order").first()
    assert half is not None
    for game in Game.objects.filter(match_game__match=half, status__in=OPEN).select_related("black"):
        win(game, game.black)
    table = {row["entry"]: row for row in stage_standings(stage)[0]["rows"]}
    expected = dict.fromkeys(members, 0)
    player_entry = {e.player_id: e.pk for e in group.members.all()}
    for game in Game.objects.filter(match_game__match__group=group, status="finished"):
        expected[player_entry[game.black_id]] += 2  # black won every game
    for number in (1, 2):
        playing = {p for m in Match.objects.filter(group=group, round=number) for p in (m.first_id, m.second_id)}
        (resting,) = members - playing
        expected[resting] += per_rest
    assert {e: row["points"] for e, row in table.items()} == expected
    after_one = {r["entry"]: r["points"] for r in stage_standings(stage, after_round=1)[0]["rows"]}
    (rested_first,) = members - {
        p for m in Match.objects.filter(group=group, round=1) for p in (m.first_id, m.second_id)
    }
    assert after_one[rested_first] == per_rest


@pytest.mark.django_db
def test_a_rest_value_no_rule_gives_is_refused_by_name() -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(name="x", first_stage="round_robin", stage_options={"bye": "won_all"})
    assert "bye" in str(refused.value.message)
