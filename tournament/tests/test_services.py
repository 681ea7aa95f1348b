"""The seed's format through the services: draws, boards, playoffs, advancement, the 22-player scenario."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from games.models import Game, Player
from games.services import game_confirm_result, game_report_result
from tournament import appeals, selectors, services, withdrawals
from tournament.models import AuditLog, Group, Match, Stage, Tournament
from tournament.registration import import_entries, import_summary
from tournament.services import common, draws, outcomes
from tournament.simulate import simulate
from tournament.stage_formats import stage_standings

pytestmark = pytest.mark.django_db


def checked_call_matches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Wrap call_matches so every call checks the boards: none double-booked, never more than B, nobody twice."""
    original = common.call_matches
    peaks: list[int] = []

    def checked(*, tournament: Any) -> Any:
        called = original(tournament=tournament)
        busy = list(Match.objects.filter(tournament=tournament, status=Match.Status.CALLED))
        boards = [m.board for m in busy]
        players = [e for m in busy for e in (m.first_id, m.second_id)]
        assert len(boards) == len(set(boards)) <= tournament.boards
        assert all(1 <= b <= tournament.boards for b in boards)
        assert len(players) == len(set(players))
        peaks.append(len(busy))
        return called

    for module in (common, draws, outcomes, withdrawals):  # every module that calls it (the formats do not write)
        monkeypatch.setattr(module, "call_matches", checked)
    return peaks


def test_the_22_player_seed_scenario_end_to_end(monkeypatch: pytest.MonkeyPatch) -> None:
    peaks = checked_call_matches(monkeypatch)

    sim = simulate(players=22, seed=7)

    shapes = [[(t["kind"], len(t["rows"])) for t in report.tables] for report in sim.stages]
    assert shapes[0] == [("round_robin", 4)] * 5 + [("best_of", 2)]
    assert shapes[1] == [("best_of", 2)] * 4 + [("round_robin", 3)]
    assert shapes[2] == [("round_robin", 5)]
    qualified = [sum(r["state"] == "qualified" for r in t["rows"]) for t in sim.stages[0].tables]
    assert qualified == [2, 2, 2, 2, 2, 1]
    assert sim.tournament.status == "finished"
    assert max(peaks) == 6  # the seed's six boards were all in use at some point
    assert Group.objects.filter(kind=Group.Kind.PLAYOFF, stage__tournament=sim.tournament).exists()


def test_simulation_is_deterministic_for_a_seed() -> None:
    def ranking(seed: int) -> list[tuple[str, int]]:
        sim = simulate(players=9, seed=seed)
        return [(r["player"], r["points"]) for r in sim.stages[-1].tables[0]["rows"]]

    assert ranking(3) == ranking(3)


def finish(game: Game, result: str) -> None:
    reason = "agreement" if result == "draw" else "five"
    game_report_result(game_id=game.pk, reporter=game.black, result=result, reason=reason)
    game_confirm_result(game_id=game.pk, player=game.white)


def play_group(group: Group, winner_of: dict[frozenset[str], str | None]) -> None:
    """Play every game of a group: ``winner_of[{x, y}]`` wins each game between them (None: draws)."""
    while True:
        pending = Game.objects.filter(match_game__match__group=group, status__in=["opening", "playing"])
        if not pending:
            return
        for game in pending:
            pair = frozenset({game.black.name, game.white.name})
            won = winner_of[pair]
            finish(game, "draw" if won is None else ("black" if game.black.name == won else "white"))


def test_three_way_cycle_at_the_cut_is_played_off_until_decided() -> None:
    tournament = services.tournament_create(name="cycle", boards=6)
    names = ["a", "b", "c", "d"]
    for name in names:
        services.register(tournament=tournament, player=Player.objects.create(name=name))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    group = stage.groups.get()
    members = {m.entry.player.name: m.entry for m in group.memberships.select_related("entry__player")}
    # a beats everyone; b > c > d > b is a cycle: b, c, d level on 4 points for one place.
    beats = {
        frozenset(p): w
        for p, w in [
            (("a", "b"), "a"),
            (("a", "c"), "a"),
            (("a", "d"), "a"),
            (("b", "c"), "b"),
            (("c", "d"), "c"),
            (("b", "d"), "d"),
        ]
    }
    play_group(group, beats)

    playoff = group.playoffs.get()
    assert {m.entry.player.name for m in playoff.memberships.all()} == {"b", "c", "d"}
    assert playoff.matches.count() == 3 and set(playoff.matches.values_list("games_planned", flat=True)) == {1}
    with pytest.raises(services.TournamentError) as info:
        services.advance(stage=stage)
    assert info.value.code == "undecided"
    rows = {r["player"]: r["state"] for r in stage_standings(stage)[0]["rows"]}
    assert rows == {"a": "", "b": "playoff pending", "c": "playoff pending", "d": "playoff pending"}

    play_group(playoff, beats)  # the same cycle again: still level, a second playoff
    second = playoff.playoffs.get()
    play_group(second, {**beats, frozenset({"b", "d"}): "b"})  # now b wins both

    following = services.advance(stage=stage)
    assert following is not None
    assert sorted(Stage.objects.get(pk=following.pk).options["entries"]) == sorted([members["a"].pk, members["b"].pk])
    assert AuditLog.objects.filter(tournament=tournament, action="create_playoff").count() == 2


def test_ties_that_decide_nothing_share_the_place_without_a_playoff() -> None:
    tournament = services.tournament_create(name="share", boards=6)
    for name in "abcd":
        services.register(tournament=tournament, player=Player.objects.create(name=name))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    group = stage.groups.get()
    # a and b draw each other and beat c and d; c and d draw: a, b level at the top (both advance).
    results = {
        frozenset(p): w
        for p, w in [
            (("a", "b"), None),
            (("c", "d"), None),
            (("a", "c"), "a"),
            (("a", "d"), "a"),
            (("b", "c"), "b"),
            (("b", "d"), "b"),
        ]
    }
    play_group(group, results)

    table = stage_standings(stage)[0]["rows"]
    assert [(r["player"] in "ab", r["rank"], r["state"]) for r in table][:2] == [
        (True, 1, "qualified"),
        (True, 1, "qualified"),
    ]
    assert not group.playoffs.exists()


def test_draw_is_recorded_can_be_undone_and_players_swapped_before_the_start() -> None:
    tournament = services.tournament_create(name="draw", boards=2)
    for n in range(8):
        services.register(tournament=tournament, player=Player.objects.create(name=f"p{n}", unit=f"u{n % 2}"))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=42)
    first = [list(g.memberships.values_list("entry_id", flat=True)) for g in stage.groups.all()]
    services.undo_draw(stage=stage)
    services.draw_stage(stage=stage, seed=42)
    again = [list(g.memberships.values_list("entry_id", flat=True)) for g in stage.groups.all()]
    assert first == again

    a, b = again[0][0], again[1][0]
    services.swap_players(
        stage=stage,
        first=stage.groups.first().memberships.first().entry,
        second=stage.groups.last().memberships.first().entry,
    )
    swapped = [list(g.memberships.values_list("entry_id", flat=True)) for g in stage.groups.all()]
    assert swapped[0][0] == b and swapped[1][0] == a
    assert not Match.objects.filter(group=stage.groups.first(), first_id=a).exists()
    services.start_stage(stage=stage)
    with pytest.raises(services.TournamentError):
        services.undo_draw(stage=stage)


def test_unit_limit_and_csv_import() -> None:
    tournament = services.tournament_create(name="csv", max_per_unit=2)

    report = import_entries(tournament=tournament, text="name,unit,rating\n张三,一中,1500\n李四,一中,\n")
    assert [e.player.name for e in report.entered] == ["张三", "李四"]
    with pytest.raises(services.TournamentError) as info:
        import_entries(tournament=tournament, text="王五,一中,1600\n")
    assert info.value.code == "unit_full"
    with pytest.raises(services.TournamentError) as bad:
        import_entries(tournament=tournament, text="赵六,二中,strong\n")
    assert bad.value.code == "bad_csv" and tournament.entries.count() == 2


def test_a_csv_import_names_every_problem_row_and_enters_nobody() -> None:
    tournament = services.tournament_create(name="csv rows")
    text = "姓名,单位,等级分\n张三,一中,1500\n,一中,\n李四,一中,strong\n" + "王" * 51 + ",二中\n赵六,二中,1400,x\n"

    with translation.override("en"), pytest.raises(services.TournamentError) as bad:
        import_entries(tournament=tournament, text=text)

    message = bad.value.message
    for row in (3, 4, 5, 6):
        assert f"Row {row}: " in message
    assert "Row 2" not in message and "51 characters" in message and "strong" in message
    assert not tournament.entries.exists() and not Player.objects.filter(name="张三").exists()


def test_a_csv_import_enters_a_repeated_row_once_and_says_so() -> None:
    tournament = services.tournament_create(name="csv twice")
    services.register(tournament=tournament, player=Player.objects.create(name="周七", unit="三中"))
    text = "\n".join(["张三,一中,1500", "李四,一中", "周七,三中", "张三,一中,1500", "张三,二中"]) + "\n"

    with translation.override("en"):
        report = import_entries(tournament=tournament, text=text)
        summary = import_summary(report)

    assert sorted(e.player.name for e in report.entered) == ["张三", "张三", "李四"]  # 张三 of 二中 is another person
    assert report.already == ["周七 (三中)"] and report.repeated == ["row 4 repeats row 1 (张三 (一中))"]
    assert summary.startswith("3 players entered.") and "周七" in summary and "row 4 repeats row 1" in summary
    assert tournament.entries.count() == 4


@pytest.mark.parametrize("players", [8, 40])
def test_standings_use_a_constant_number_of_queries(players: int) -> None:
    sim = simulate(players=players, seed=1)
    stage = sim.stages[0].stage

    with CaptureQueriesContext(connection) as queries:
        stage_standings(stage)

    assert len(queries) == 5


@pytest.mark.parametrize("players", [2, 3, 5, 6, 7, 13])
def test_small_fields_run_to_the_end(players: int) -> None:
    sim = simulate(players=players, seed=players)

    assert sim.tournament.status == "finished"
    first = sim.stages[0].tables
    assert sum(len(t["rows"]) for t in first) == players


def test_arena_holder_keeps_the_table_and_the_longest_streak_is_kept() -> None:
    tournament = services.tournament_create(name="arena")
    a, b, c = (Player.objects.create(name=n) for n in "abc")
    stranger = Player.objects.create(name="not entered")
    for player in (a, b, c):
        services.register(tournament=tournament, player=player)
    with pytest.raises(services.TournamentError) as outside:  # a bout is between the tournament's own entrants
        appeals.arena_bout(tournament=tournament, holder=a, challenger=stranger, winner=stranger)
    assert outside.value.code == "not_entered"
    appeals.arena_bout(tournament=tournament, holder=a, challenger=b, winner=a)
    appeals.arena_bout(tournament=tournament, challenger=c, winner=a)
    appeals.arena_bout(tournament=tournament, challenger=b, winner=b)
    appeals.arena_bout(tournament=tournament, challenger=c, winner=b)

    summary = selectors.arena_summary(tournament)

    assert summary == {"holder": "b", "streak": 1, "longest": {"player": "a", "defences": 2}, "bouts": 4}
    with pytest.raises(services.TournamentError):
        appeals.arena_bout(tournament=tournament, challenger=b, winner=b)


def test_appeal_against_a_ruling_is_decided_finally_by_three() -> None:
    from django.contrib.auth import get_user_model

    from games.services import game_create, game_report_result, game_rule

    one, two = Player.objects.create(name="x"), Player.objects.create(name="y")
    game = game_create(player_one=one, player_two=two, mode="otb")
    game_report_result(game_id=game.pk, reporter=one, result="black", reason="time")
    with pytest.raises(services.TournamentError) as early:
        appeals.appeal_file(game=game, appellant=two, reason="no ruling yet")
    assert early.value.code == "no_ruling"
    game_rule(game_id=game.pk, result="black", reason="time", note="flag fell")
    appeal = appeals.appeal_file(game=game, appellant=two, reason="the clock was broken")
    users = [get_user_model().objects.create_user(f"c{n}") for n in range(3)]

    with pytest.raises(services.TournamentError) as two_only:
        appeals.appeal_decide(
            appeal=appeal, committee=users[:2], upheld=True, decision="x", result="draw", reason="referee"
        )
    decided = appeals.appeal_decide(
        appeal=appeal, committee=users, upheld=True, decision="broken clock", result="draw", reason="referee"
    )

    game.refresh_from_db()
    assert two_only.value.code == "committee_of_three"
    assert (decided.status, game.result) == ("upheld", "draw")
    with pytest.raises(services.TournamentError) as final:
        appeals.appeal_file(game=game, appellant=two, reason="again")
    assert final.value.code == "appeal_decided"


def test_in_every_group_each_pair_plays_twice_with_colours_swapped() -> None:
    from collections import Counter

    sim = simulate(players=13, seed=5)
    stage = sim.stages[0].stage

    for group in stage.groups.filter(kind=Group.Kind.ROUND_ROBIN, parent__isnull=True):
        colours: Counter[tuple[int, int]] = Counter()
        for game in Game.objects.filter(match_game__match__group=group):
            colours[(game.black_id, game.white_id)] += 1
        members = list(group.memberships.values_list("entry__player_id", flat=True))
        pairs = [(a, b) for i, a in enumerate(members) for b in members[i + 1 :]]
        assert all(colours[(a, b)] == 1 and colours[(b, a)] == 1 for a, b in pairs), colours
        assert sum(colours.values()) == 2 * len(pairs)


def test_a_recorded_colour_toss_decides_game_one_and_colours_then_alternate() -> None:
    tournament = services.tournament_create(name="toss", boards=1)
    a, b = Player.objects.create(name="A"), Player.objects.create(name="B")
    entry_a = services.register(tournament=tournament, player=a)
    services.register(tournament=tournament, player=b)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)  # two players: a best-of-three
    match = Match.objects.get(group__stage=stage)
    grabber_is_first = match.first_id == entry_a.pk

    services.record_colour_toss(match=match, grabber=entry_a, guess="odd", count=7)  # B guessed right: B black
    services.start_stage(stage=stage)

    first_game = Game.objects.get(match_game__match=match)
    assert (first_game.black, first_game.white) == (b, a)
    finish(first_game, "black")
    second = Game.objects.filter(match_game__match=match).order_by("-pk").first()
    assert second is not None and (second.black, second.white) == (a, b)
    assert Match.objects.get(pk=match.pk).colour_toss["grabber"] == (0 if grabber_is_first else 1)
    with pytest.raises(services.TournamentError) as late:
        services.record_colour_toss(match=match, grabber=entry_a, guess="even", count=4)
    assert late.value.code == "toss_too_late"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [(["--players", "1"], "--players"), (["--preset", "x"], "--preset"), (["--draws", "2"], "--draws")],
)
def test_simulate_command_refuses_bad_arguments(args: list[str], fragment: str) -> None:
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match=fragment):
        call_command("simulate_tournament", *args)
    assert not Tournament.objects.exists()


def test_simulate_command_prints_every_stage_and_the_ranking() -> None:
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("simulate_tournament", "--players", "7", "--seed", "2", stdout=out)

    text = out.getvalue()
    assert "== 初赛 ==" in text and "== 决赛 ==" in text and "Final ranking" in text  # the site's language names stages
