"""A Swiss stage through the services: the round cycle, byes, late entries, withdrawals and returns,
manual edits, corrections after the next round was paired, chaining into a knockout, mini-matches."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from games.enums import GameStatus
from games.models import Game, Player
from tournament import services, tasks
from tournament.models import AuditLog, Entry, Match, Round, Stage, SwissBye
from tournament.services import TournamentError
from tournament.services import rounds as cycle
from tournament.swiss import selectors, trf
from tournament.swiss import services as swiss
from tournament.swiss.pairing import pairer
from tournament.tests.helpers import OPEN, correct, pair_and_publish, play_round, win
from tournament.withdrawals import entry_withdraw

pytestmark = pytest.mark.django_db


def swiss_tournament(players: int = 7, **options: object) -> tuple[Stage, list[Entry]]:
    tournament = services.tournament_create(name="Anji Open", preset="swiss", stage_options={"rounds": 5, **options})
    entries = []
    for n in range(1, players + 1):
        player = Player.objects.create(name=f"P{n:02d}", rating=2500 - 10 * n, unit="一中" if n % 2 else "二中")
        entries.append(services.register(tournament=tournament, player=player))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=11)
    services.start_stage(stage=stage)
    stage.refresh_from_db()
    return stage, entries


def test_a_round_is_a_draft_until_published_then_its_matches_are_called() -> None:
    stage, entries = swiss_tournament(7)
    rnd = cycle.round_pair(stage=stage)
    assert rnd.status == Round.Status.DRAFT and rnd.boards == rnd.engine_boards
    assert not Match.objects.filter(group__stage=stage).exists()  # nothing on a board before it is published
    assert rnd.boards[0][0] in (entries[0].pk, entries[3].pk) and rnd.boards[-1] == [entries[6].pk, None]
    cycle.round_publish(stage=stage, number=1)
    matches = list(Match.objects.filter(group__stage=stage, round=1))
    assert len(matches) == 3 and all(m.status == Match.Status.CALLED for m in matches)
    assert SwissBye.objects.get(stage=stage, round=1).entry_id == entries[6].pk  # the lowest-rated has the bye
    for match in matches:  # the first-named has the first-player role: black
        game = Game.objects.get(match_game__match=match)
        assert game.black_id == match.first.player_id


@pytest.mark.parametrize("rules", ["2026", "2017"])
def test_each_round_is_paired_from_the_results_as_the_program_pairs_the_same_state(rules: str) -> None:
    stage, _entries = swiss_tournament(9, rules=rules)
    rng = random.Random(4)
    for number in range(1, 6):
        state = selectors.load(stage).state
        assert state.rules == rules
        expected = pairer(rules).pair(state)
        rnd = pair_and_publish(stage)
        data = selectors.load(stage, through=number - 1)
        assert [[data.number[a], None if b is None else data.number[b]] for a, b in rnd.boards] == [
            [b.first, b.second] for b in expected
        ]
        with pytest.raises(TournamentError) as caught:
            cycle.round_pair(stage=stage)  # the round is still being played
        assert caught.value.code == "round_unfinished"
        play_round(stage, rng)
    met = [frozenset((m.first_id, m.second_id)) for m in Match.objects.filter(group__stage=stage)]
    assert len(met) == len(set(met))  # no rematch over five rounds
    with pytest.raises(TournamentError) as caught:
        cycle.round_pair(stage=stage)
    assert caught.value.code == "all_rounds_paired"
    assert Round.objects.filter(stage=stage, status=Round.Status.CLOSED).count() == 5


def test_requested_byes_are_kept_to_the_limit_and_out_of_the_last_rounds() -> None:
    stage, entries = swiss_tournament(8, max_requested_byes=1, no_byes_last=2)
    swiss.swiss_request_bye(stage=stage, entry=entries[2], number=2, kind="H")
    with pytest.raises(TournamentError) as caught:
        swiss.swiss_request_bye(stage=stage, entry=entries[2], number=3, kind="H")
    assert caught.value.code == "too_many_byes"
    with pytest.raises(TournamentError) as caught:
        swiss.swiss_request_bye(stage=stage, entry=entries[4], number=4, kind="Z")
    assert caught.value.code == "bye_too_late"
    pair_and_publish(stage)
    with pytest.raises(TournamentError) as caught:
        swiss.swiss_request_bye(stage=stage, entry=entries[4], number=1, kind="Z")
    assert caught.value.code == "round_paired"
    play_round(stage, random.Random(1))
    rnd = pair_and_publish(stage)
    assert entries[2].pk not in {e for pair in rnd.boards for e in pair}  # not paired in the round asked for
    play_round(stage, random.Random(2))
    table = selectors.standings(stage)
    row = next(r for r in table["rows"] if r["entry"] == entries[2].pk)
    round_two = selectors.load(stage).state.by_number()[row["number"]].rounds[1]
    assert round_two.result == "H" and round_two.opponent is None


def test_a_late_entry_scores_its_missed_rounds_as_configured_and_is_paired_next() -> None:
    stage, _entries = swiss_tournament(6, late_score="half")
    pair_and_publish(stage)
    play_round(stage, random.Random(3))
    late = swiss.swiss_late_entry(stage=stage, player=Player.objects.create(name="迟到", rating=2600))
    bye = SwissBye.objects.get(stage=stage, entry=late)
    assert (bye.round, bye.kind, bye.late) == (1, "H", True)
    rnd = pair_and_publish(stage)
    assert late.pk in {e for pair in rnd.boards for e in pair}
    row = next(r for r in selectors.standings(stage)["rows"] if r["entry"] == late.pk)
    assert row["score"] == 0.5


def test_a_withdrawn_player_forfeits_the_round_under_way_is_not_paired_again_and_can_return() -> None:
    stage, entries = swiss_tournament(6)
    pair_and_publish(stage)
    leaver = entries[0]
    match = Match.objects.get(Q(first=leaver) | Q(second=leaver), group__stage=stage, round=1)
    entry_withdraw(entry=leaver, reason="ill", policy="annul")  # annul does not apply to a Swiss: results stand
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED  # forfeited, not annulled
    play_round(stage, random.Random(5))
    state = selectors.load(stage).state
    number = selectors.load(stage).number[leaver.pk]
    assert state.by_number()[number].rounds[0].result == "-"  # a forfeit, not a game
    rnd = pair_and_publish(stage)
    assert leaver.pk not in {e for pair in rnd.boards for e in pair}
    play_round(stage, random.Random(6))
    swiss.swiss_return(stage=stage, entry=leaver)
    rnd = pair_and_publish(stage)
    assert leaver.pk in {e for pair in rnd.boards for e in pair}
    assert selectors.load(stage).state.by_number()[number].rounds[1].result == "Z"  # the round missed


def test_a_draft_with_a_player_who_withdrew_since_is_not_published() -> None:
    stage, entries = swiss_tournament(6)
    cycle.round_pair(stage=stage)
    entry_withdraw(entry=entries[1], reason="left")
    with pytest.raises(TournamentError) as caught:
        cycle.round_publish(stage=stage, number=1)
    assert caught.value.code == "stale_pairing"
    cycle.round_unpair(stage=stage, number=1)
    rnd = pair_and_publish(stage)
    assert entries[1].pk not in {e for pair in rnd.boards for e in pair}


def test_unpairing_before_the_round_starts_and_not_after() -> None:
    stage, _entries = swiss_tournament(6)
    first = cycle.round_pair(stage=stage)
    cycle.round_unpair(stage=stage, number=1)
    assert not Round.objects.filter(stage=stage).exists()
    again = pair_and_publish(stage)
    assert again.boards == first.boards  # the same state pairs the same way
    cycle.round_unpair(stage=stage, number=1)  # published, no game begun: the boards are freed
    assert not Match.objects.filter(group__stage=stage).exclude(status=Match.Status.CANCELLED).exists()
    assert not Game.objects.exclude(status=GameStatus.CANCELLED).exists()
    pair_and_publish(stage)
    game = Game.objects.filter(status__in=OPEN).select_related("black").first()
    win(game, game.black)
    with pytest.raises(TournamentError) as caught:
        cycle.round_unpair(stage=stage, number=1)
    assert caught.value.code == "round_started"


def test_a_manual_edit_needs_a_reason_warns_and_keeps_the_programs_pairing() -> None:
    stage, entries = swiss_tournament(8)
    pair_and_publish(stage)
    play_round(stage, random.Random(7))
    rnd = cycle.round_pair(stage=stage)
    (a, b), (c, d) = rnd.boards[0], rnd.boards[1]
    with pytest.raises(TournamentError) as caught:
        cycle.round_edit(stage=stage, number=2, action="swap", first=b, second=c, reason=" ")
    assert caught.value.code == "reason_required"
    # make a rematch: put b against someone b already met in round 1
    met = Match.objects.filter(group__stage=stage, round=1).filter(first_id=b).first() or Match.objects.get(
        group__stage=stage, round=1, second_id=b
    )
    old_opponent = met.second_id if met.first_id == b else met.first_id
    rnd = cycle.round_edit(stage=stage, number=2, action="swap", first=a, second=old_opponent, reason="siblings")
    warnings = rnd.edits[-1]["warnings"]
    assert any(w["code"] == "rematch" and set(w["entries"]) == {old_opponent, b} for w in warnings)
    assert rnd.engine_boards[0] == [a, b] and rnd.boards != rnd.engine_boards
    assert AuditLog.objects.filter(action="round_edit", data__reason="siblings").exists()
    rnd = cycle.round_edit(stage=stage, number=2, action="flip", first=c, reason="colour request")
    assert rnd.boards[1] == [d, c]
    assert next(w for w in rnd.why if w["board"] == 2)["colour_rule"] == "organizer"  # against part E
    cycle.round_publish(stage=stage, number=2)
    assert Match.objects.filter(group__stage=stage, round=2, first_id=d, second_id=c).exists()


def test_a_correction_after_the_next_round_was_paired_stands_with_a_warning() -> None:
    stage, _entries = swiss_tournament(6)
    pair_and_publish(stage)
    play_round(stage, random.Random(8))
    second = pair_and_publish(stage)
    before = selectors.standings(stage)["rows"]
    game = Game.objects.filter(match_game__match__round=1, status=GameStatus.FINISHED, result="black").first()
    if game is None:
        game = Game.objects.filter(match_game__match__round=1, status=GameStatus.FINISHED).first()
        correct(game, game.black)
    else:
        correct(game, game.white)
    assert AuditLog.objects.filter(action="swiss_correction_after_pairing").exists()
    assert Round.objects.get(pk=second.pk).boards == second.boards  # the published pairing stands
    assert selectors.standings(stage)["rows"] != before


def test_a_swiss_qualifier_sends_its_top_four_to_a_knockout() -> None:
    stage, _entries = swiss_tournament(8, rounds=3, advance=4, then="knockout")
    rng = random.Random(9)
    for _ in range(3):
        pair_and_publish(stage)
        play_round(stage, rng)
    top4 = [row["entry"] for row in selectors.standings(stage)["rows"][:4]]
    following = services.advance(stage=stage)
    assert following is not None and following.kind == Stage.Kind.KNOCKOUT
    assert following.options["entries"] == top4  # in the Swiss order of merit
    services.draw_stage(stage=following, seed=1)
    pairs = {frozenset((m.first_id, m.second_id)) for m in Match.objects.filter(group__stage=following)}
    assert pairs == {frozenset((top4[0], top4[3])), frozenset((top4[1], top4[2]))}  # seeded: 1 v 4, 2 v 3


def test_a_mini_match_of_two_swaps_colours_and_scores_the_match() -> None:
    stage, _entries = swiss_tournament(4, games=2)
    pair_and_publish(stage)
    match = Match.objects.filter(group__stage=stage, round=1).first()
    first = Game.objects.get(match_game__match=match, match_game__number=1)
    assert first.black_id == match.first.player_id
    win(first, first.black)  # the first-named wins game 1 …
    second = Game.objects.get(match_game__match=match, match_game__number=2)
    assert second.black_id == match.second.player_id  # … colours swapped for game 2
    win(second, second.black)  # … and loses game 2: the match is drawn
    data = selectors.load(stage)
    assert data.state.by_number()[data.number[match.first_id]].rounds[0].result == "="


def test_a_best_of_three_round_goes_to_the_match_winner() -> None:
    stage, _entries = swiss_tournament(4, games=3)
    pair_and_publish(stage)
    match = Match.objects.filter(group__stage=stage, round=1).first()
    for _ in range(2):
        game = Game.objects.get(match_game__match=match, status__in=OPEN)
        win(game, match.second.player)
    data = selectors.load(stage)
    assert data.state.by_number()[data.number[match.second_id]].rounds[0].result == "1"


def test_players_of_one_unit_are_kept_apart_in_the_first_rounds() -> None:
    stage, entries = swiss_tournament(8, unit_rounds=1)
    rnd = cycle.round_pair(stage=stage)
    units = {e.pk: e.player.unit for e in entries}
    assert all(units[a] != units[b] for a, b in rnd.boards if b is not None)


@pytest.mark.parametrize("seed", [2, 3, 8])
def test_players_of_one_unit_are_kept_apart_in_the_last_rounds_as_the_country_rule_asks(seed: int) -> None:
    """The World Championship's country rule in a Swiss: no two of one unit (country) meet in the last two
    rounds. A twin stage without the rule, played to the same results, pairs the first three rounds alike and
    would pair compatriots in round 4."""
    stage, entries = swiss_tournament(10, unit_last_rounds=2)
    twin, twin_entries = swiss_tournament(10)
    units = {e.pk: e.player.unit for e in entries}
    same = {e.pk: t.pk for e, t in zip(entries, twin_entries, strict=True)}
    rng, twin_rng = random.Random(seed), random.Random(seed)
    for number in range(1, 6):
        rnd = cycle.round_pair(stage=stage)
        if number <= 4:
            plain = cycle.round_pair(stage=twin)
        if number <= 3:
            assert [[same.get(e) for e in board] for board in rnd.boards] == plain.boards
            cycle.round_publish(stage=twin, number=number)
            play_round(twin, twin_rng)
        else:
            assert rnd.notes == [] and all(units[a] != units[b] for a, b in rnd.boards if b is not None), number
        if number == 4:
            twin_units = {t: units[e] for e, t in same.items()}
            assert any(b is not None and twin_units[a] == twin_units[b] for a, b in plain.boards)
        cycle.round_publish(stage=stage, number=number)
        play_round(stage, rng)


def test_a_unit_rule_that_leaves_no_pairing_gives_way_and_says_so() -> None:
    stage, entries = swiss_tournament(4, unit_rounds=1)
    Player.objects.filter(entries__in=entries).update(unit="一中")
    rnd = cycle.round_pair(stage=stage)
    assert rnd.notes == ["unit_rule_relaxed"]


def test_the_exported_trf_imported_again_pairs_the_same_next_round() -> None:
    stage, _entries = swiss_tournament(9)
    rng = random.Random(10)
    for _ in range(2):
        pair_and_publish(stage)
        play_round(stage, rng)
    data = selectors.load(stage)
    text = trf.write(data.state)
    from tournament.swiss.imports import tournament_from_trf

    copy = tournament_from_trf(text=text, name="copy")
    copy_stage = copy.stages.get()
    ours = cycle.round_pair(stage=stage)
    theirs = cycle.round_pair(stage=copy_stage)
    names = dict(Entry.objects.values_list("pk", "player__name"))
    assert [[names.get(a), names.get(b)] for a, b in ours.boards] == [
        [names.get(a), names.get(b)] for a, b in theirs.boards
    ]
    assert trf.write(selectors.load(copy_stage).state).split("\n")[4:] == text.split("\n")[4:]


def test_the_standings_take_the_same_number_of_queries_for_any_field() -> None:
    counts = []
    for players in (6, 20):
        stage, _entries = swiss_tournament(players)
        pair_and_publish(stage)
        play_round(stage, random.Random(players))
        with CaptureQueriesContext(connection) as queries:
            selectors.standings(stage)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_large_field_is_paired_by_the_task_in_a_child_process(settings: object) -> None:
    stage, _entries = swiss_tournament(8)
    settings.SWISS_SYNC_PLAYERS = 5  # type: ignore[attr-defined]  # pytest-django's settings fixture
    assert tasks.pair_in_background(stage)
    assert tasks.round_pair_task(stage.pk) == "round 1"  # run here as the worker runs it
    rnd = Round.objects.get(stage=stage)
    assert rnd.status == Round.Status.DRAFT and len(rnd.boards) == 4
    assert tasks.round_pair_task(stage.pk) == "draft_open"  # a second task for the same round is refused, logged
    assert AuditLog.objects.filter(action="round_pair_failed", data__code="draft_open").exists()


def test_a_result_that_changes_while_the_program_pairs_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """The program pairs outside the lock; if a result changes meanwhile, the round is paired again from
    the new state rather than written from the old one."""
    stage, _entries = swiss_tournament(6)
    pair_and_publish(stage)
    play_round(stage, random.Random(11))
    real = swiss.plan
    calls: list[Any] = []

    def plan_then_correct(stage_: Stage, isolated: bool) -> object:
        planned = real(stage_, isolated)
        if not calls:  # the first time: a correction lands while the program was pairing
            game = Game.objects.filter(status=GameStatus.FINISHED).exclude(result="draw").first()
            correct(game, None)
        calls.append(planned)
        return planned

    monkeypatch.setattr(swiss, "plan", plan_then_correct)
    rnd = cycle.round_pair(stage=stage)
    assert len(calls) == 2 and rnd.engine_boards == calls[1].boards
    data = selectors.load(stage, through=1)
    assert swiss.fingerprint(data) == calls[1].fingerprint != calls[0].fingerprint


def test_settings_change_freely_before_round_one_and_only_the_safe_ones_after() -> None:
    stage, entries = swiss_tournament(6)
    swiss.swiss_configure(stage=stage, options={"games": 2, "accelerate": True, "tiebreaks": ["wins", "buchholz"]})
    assert selectors.SwissOptions.of(Stage.objects.get(pk=stage.pk)).games == 2
    with pytest.raises(TournamentError) as caught:
        swiss.swiss_configure(stage=stage, options={"tiebreaks": ["nonsense"]})
    assert caught.value.code == "bad_options"
    cycle.round_pair(stage=stage)
    with pytest.raises(TournamentError) as caught:
        swiss.swiss_configure(stage=stage, options={"rounds": 9})
    assert caught.value.code == "options_fixed"
    swiss.swiss_configure(stage=stage, options={"prohibited": [[entries[0].pk, entries[1].pk]]})
    assert selectors.SwissOptions.of(Stage.objects.get(pk=stage.pk)).prohibited == (
        tuple(sorted((entries[0].pk, entries[1].pk))),
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_first_pairing_uses_the_initial_colour_it_draws_whatever_the_lot(seed: int) -> None:
    """The lot for the initial colour is recorded before the pairing; the pairing must read it back (a
    stale copy of the stage's settings once made every pairing after a "black1" lot fail)."""
    tournament = services.tournament_create(name=f"Lot {seed}", preset="swiss", stage_options={"rounds": 3})
    for n in range(4):
        services.register(tournament=tournament, player=Player.objects.create(name=f"L{seed}-{n}", rating=2000 - n))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=seed)
    services.start_stage(stage=stage)
    rnd = cycle.round_pair(stage=stage)
    first_colour = Stage.objects.get(pk=stage.pk).options["first_colour"]
    top = rnd.boards[0]
    data = selectors.load(stage)
    assert (data.number[top[0]] == 1) == (first_colour == "w")  # the top seed opens exactly when the lot says so


def test_a_round_with_no_pairing_left_is_refused_with_a_reason() -> None:
    stage, _entries = swiss_tournament(2, rounds=3)
    pair_and_publish(stage)
    play_round(stage, random.Random(1))
    with translation.override("en"), pytest.raises(TournamentError) as caught:
        cycle.round_pair(stage=stage)  # the only two players have met
    assert caught.value.code == "cannot_pair" and "repeat a game" in caught.value.message
    assert not Round.objects.filter(stage=stage, number=2).exists()


def test_a_background_pairing_with_no_worker_to_reach_is_a_clear_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    stage, _entries = swiss_tournament(6)

    def unreachable(*args: object, **kwargs: object) -> None:
        raise ConnectionError("no broker")

    monkeypatch.setattr(tasks.round_pair_task, "apply_async", unreachable)
    with pytest.raises(TournamentError) as caught:
        tasks.queue_round_pair(stage, None)
    assert (caught.value.code, caught.value.status) == ("worker_unreachable", 503)


def test_the_initial_colour_is_recorded_at_the_draw_so_a_trf_exported_before_round_1_pairs_the_same() -> None:
    """The lot is drawn with the draw (from its seed), so the TRF exported between the draw and round 1
    already says XXC white1 or black1, and pairing that file (by the rules it names) gives the round the
    project then pairs."""
    from django.test import Client

    seen = set()
    for seed in range(8):
        tournament = services.tournament_create(name=f"Export {seed}", preset="swiss", stage_options={"rounds": 3})
        services.publish(tournament=tournament)
        for n in range(6):
            services.register(tournament=tournament, player=Player.objects.create(name=f"X{seed}-{n}", rating=2100 - n))
        stage = tournament.stages.get()
        services.draw_stage(stage=stage, seed=seed)
        colour = Stage.objects.get(pk=stage.pk).options.get("first_colour")
        assert colour == selectors.initial_colour(seed)  # recorded at the draw, before any pairing
        seen.add(colour)
        text = Client().get(f"/t/{tournament.pk}/swiss/{stage.pk}.trf").content.decode()
        assert ("XXC white1" if colour == "w" else "XXC black1") in text
        services.start_stage(stage=stage)
        rnd = cycle.round_pair(stage=stage)
        data = selectors.load(Stage.objects.get(pk=stage.pk))
        ours = [[data.number[a], data.number[b] if b is not None else None] for a, b in rnd.boards]
        exported = trf.read(text)
        theirs = [[board.first, board.second] for board in pairer(exported.rules).pair(exported)]
        assert sorted(map(tuple, ours), key=str) == sorted(map(tuple, theirs), key=str)
    assert seen == {"w", "b"}  # both lots came up: the export follows either


def test_a_withdrawn_players_row_names_no_tie_break_while_every_tied_row_does() -> None:
    stage, entries = swiss_tournament(8)
    rng = random.Random(4)
    for _round in range(2):
        pair_and_publish(stage)
        play_round(stage, rng)
    entry_withdraw(entry=entries[0], reason="ill")

    rows = selectors.standings(Stage.objects.get(pk=stage.pk))["rows"]

    withdrawn = next(r for r in rows if r["entry"] == entries[0].pk)
    assert withdrawn["withdrawn"] and withdrawn["decided_by"] == "" and withdrawn["decided_by_text"] == ""
    for row in (r for r in rows if not r["withdrawn"]):
        tied = [o for o in rows if o is not row and o["score"] == row["score"]]
        assert bool(row["decided_by"]) == bool(tied), row  # named exactly when tied with someone
