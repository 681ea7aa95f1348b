"""FIDE's Dutch system as revised for 2026 beside the text in force until January 2026: hand-made states
where the two texts differ (who takes the bye, which moved-down player is paired), a brute-force check
of the new bye rule, and the places where nothing changed (round 1, the round's validity)."""

from __future__ import annotations

import itertools
import random

import pytest

from tournament import services
from tournament.models import Round, Stage
from tournament.services import rounds as cycle
from tournament.swiss import dutch, selectors, sim, trf
from tournament.swiss import services as swiss
from tournament.swiss.pairing import PAIRERS, Board, PairingError, pairer
from tournament.swiss.state import (
    RULES_2017,
    RULES_2026,
    SwissPlayer,
    SwissState,
    baku_accelerations,
    baku_group_a,
)
from tournament.tests.helpers import state_of


def pairs(boards: list[Board]) -> set[frozenset[int | None]]:
    return {frozenset((b.first, b.second)) for b in boards}


def bye(boards: list[Board]) -> int | None:
    return next((b.first for b in boards if b.second is None), None)


# -- C.9: the bye leaves the fewest unplayed games -------------------------------------------------------


def test_among_the_lowest_scores_the_bye_goes_to_the_player_it_leaves_with_the_fewest_unplayed_games() -> None:
    # C.04.3 (2026) C.9. Round 1: P1 beat P3, P2 and P4 drew, P5 entered late (absent: Z). At the lowest
    # score, 0, are P3 (one game played) and P5 (none): a bye to P5 would leave it two unplayed rounds of
    # two, a bye to P3 one. P3 takes it; the late starter plays.
    state = state_of(
        5,
        "1 P1 2400 3 w 1",
        "2 P2 2390 4 b =",
        "3 P3 2380 1 b 0",
        "4 P4 2370 2 w =",
        "5 P5 2360 - - Z",
    )
    assert bye(pairer(RULES_2026).pair(state)) == 3


# -- 1.4.2 and 1.4.3: floats only from games played, or from a win's points scored without playing ----------


def test_a_forfeit_loss_is_no_float_and_a_forfeit_win_is_a_downfloat() -> None:
    # Round 1: P1 lost to P2, P3 beat P7, P4 lost by forfeit to P5, P6 had the bye. Round 2: P2 had the
    # bye, P1 lost to P3, P4 won by forfeit against P6, P5 and P7 drew. 1.4.2 floats only players of
    # different scores who played each other; 1.4.3 makes a point scored without playing a downfloat.
    state = state_of(
        5,
        "1 P1 2400 2 w 0 3 b 0",
        "2 P2 2390 1 b 1 - - U",
        "3 P3 2380 7 w 1 1 w 1",
        "4 P4 2370 5 w - 6 b +",
        "5 P5 2360 4 b + 7 b =",
        "6 P6 2350 - - U 4 w -",
        "7 P7 2340 3 b 0 5 w =",
    )
    floats = {p.number: p.float1 for p in dutch.Round(state, dutch.SHORTCUTS).players}
    assert floats[6] == dutch.NONE  # lost by forfeit to a lower score: not an upfloat, not a downfloat
    assert floats[4] == dutch.DOWN  # won by forfeit (1.4.3)
    assert floats[2] == dutch.DOWN  # the pairing-allocated bye (1.4.3)
    assert (floats[5], floats[7]) == (dutch.DOWN, dutch.UP)  # played, 1 against 0
    # P2 and P3 (2) meet; P5 (1½) floats down to the 1-point group {P4, P6}, and the one of them left over
    # floats down to P7 (½). P4 floated down last round (its forfeit win), P6 did not, so C.14 (no repeated
    # downfloat) sends P6 down and P4 meets P5. Reading P6's forfeit loss as a game against a lower score
    # would make P6 a downfloater too, and gave P5-P6, P4-P7.
    assert pairs(pairer(RULES_2026).pair(state)) == {frozenset(p) for p in ((2, 3), (4, 5), (6, 7), (1, None))}


# -- C.5: the bye goes to the lowest score that still lets the round be paired ---------------------------


def five_after_round_one() -> SwissState:
    # P5 had the bye in round 1; P1 and P3 drew; P2 beat P4. Scores: P2 1, P5 1, P1 ½, P3 ½, P4 0.
    return state_of(
        4,
        "1 P1 2400 3 w =",
        "2 P2 2390 4 b 1",
        "3 P3 2380 1 b =",
        "4 P4 2370 2 w 0",
        "5 P5 2360 - - U",
    )


def test_the_bye_goes_to_the_player_on_zero_under_the_2026_rules_not_to_one_on_half() -> None:
    state = five_after_round_one()
    new, old = pairer(RULES_2026).pair(state), pairer(RULES_2017).pair(state)
    assert bye(new) == 4  # the lowest score, 0 (C.5 of the 2026 text)
    assert bye(old) == 1  # before 2026 the brackets were paired from the top and the bye fell on ½
    assert pairs(new) == {frozenset((1, 2)), frozenset((3, 5)), frozenset((4, None))}


def complete_without(state: SwissState, players: list[int], forbidden: set[frozenset[int]]) -> bool:
    """Brute force: can ``players`` all be paired with nobody meeting twice?"""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        frozenset((first, other)) not in forbidden and complete_without(state, rest[:k] + rest[k + 1 :], forbidden)
        for k, other in enumerate(rest)
    )


@pytest.mark.parametrize("seed", range(12))
def test_the_bye_is_the_lowest_score_any_completed_round_allows_checked_by_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([5, 7, 9])
    state = SwissState("t", 5, [SwissPlayer(i + 1, f"P{i + 1}", 2400 - 10 * i) for i in range(n)])
    for _ in range(rng.randint(1, 3)):
        sim.play(state, pairer(RULES_2026).pair(state), rng)
    forbidden = {frozenset((p.number, r.opponent)) for p in state.players for r in p.rounds if r.played and r.opponent}
    # colour rule C.3 aside (no absolute preferences clash this early in these fields), who could sit out?
    possible = []
    for p in state.players:
        if p.had_bye():
            continue
        others = [q.number for q in state.players if q.number != p.number]
        if complete_without(state, others, forbidden):
            possible.append(state.pairing_score(p))
    if not possible:  # everybody who could sit out has had the bye: the round cannot be paired
        with pytest.raises(PairingError):
            pairer(RULES_2026).pair(state)
        return
    boards = pairer(RULES_2026).pair(state)
    assert state.pairing_score(state.by_number()[bye(boards)]) == min(possible)


# -- C.7: the highest-scored moved-down players are paired first -----------------------------------------


def six_before_the_last_round() -> SwissState:
    return state_of(
        4,
        "1 P1 2400 4 w 1 3 b 1 5 w 0",
        "2 P2 2390 5 b = 4 w 0 6 b 0",
        "3 P3 2380 6 w 1 1 w 0 4 b =",
        "4 P4 2370 1 b 0 2 b 1 3 w =",
        "5 P5 2360 2 w = 6 b 1 1 b 1",
        "6 P6 2350 3 b 0 5 w 0 2 w 1",
    )


def test_the_higher_scored_moved_down_player_is_paired_first_under_the_2026_rules() -> None:
    # P1 (2 points) has met P3, P4 and P5 and floats down to the 1-point bracket with a 1½-point player.
    # The 2026 text pairs the moved-down players with the highest scores first (C.7): P1 meets P6 there and
    # P2 (½) meets a 1½-point player. The older text minimised the pairing score difference and sent P1
    # down to P2.
    state = six_before_the_last_round()
    new, old = pairs(pairer(RULES_2026).pair(state)), pairs(pairer(RULES_2017).pair(state))
    assert frozenset((1, 6)) in new and frozenset((4, 5)) in new and frozenset((2, 3)) in new
    assert frozenset((1, 2)) in old


def twenty_before_the_last_round() -> SwissState:
    return state_of(
        7,
        "1 P1 2400 11 w 1 8 b 1 19 w 1 2 b 1 16 b 1 3 w =",
        "2 P2 2393 12 b 1 14 w 1 20 b 1 1 w 0 8 b 1 16 w 0",
        "3 P3 2386 13 w 1 16 b = 5 w 1 8 b 0 19 w 1 1 b =",
        "4 P4 2379 14 b 0 7 w 0 13 b 1 12 w 0 6 b 1 9 w 1",
        "5 P5 2372 15 w 1 19 b 0 3 b 0 18 w 0 13 b 0 14 w =",
        "6 P6 2365 16 b 0 12 w 0 15 b = 17 b = 4 w 0 13 w 1",
        "7 P7 2358 17 w = 4 b 1 16 w 0 14 b 1 12 w 0 18 b 1",
        "8 P8 2351 18 b 1 1 w 0 12 b 1 3 w 1 2 w 0 19 b 0",
        "9 P9 2344 19 w 0 13 b 1 10 w 0 11 b 0 14 w 1 4 b 0",
        "10 P10 2337 20 b 0 15 w 1 9 b 1 16 w 0 18 b = 17 w 1",
        "11 P11 2330 1 b 0 18 w = 14 b = 9 w 1 20 b 0 15 w 1",
        "12 P12 2323 2 w 0 6 b 1 8 w 0 4 b 1 7 b 1 20 w 1",
        "13 P13 2316 3 b 0 9 w 0 4 w 0 15 b 0 5 w 1 6 b 0",
        "14 P14 2309 4 w 1 2 b 0 11 w = 7 w 0 9 b 0 5 b =",
        "15 P15 2302 5 b 0 10 b 0 6 w = 13 w 1 17 b 0 11 b 0",
        "16 P16 2295 6 w 1 3 w = 7 b 1 10 b 1 1 w 0 2 b 1",
        "17 P17 2288 7 b = 20 w 0 18 b = 6 w = 15 w 1 10 b 0",
        "18 P18 2281 8 w 0 11 b = 17 w = 5 b 1 10 w = 7 w 0",
        "19 P19 2274 9 b 1 5 w 1 1 b 0 20 w 1 3 b 0 8 w 1",
        "20 P20 2267 10 w 1 17 b 1 2 w 0 19 b 0 11 w 1 12 b 0",
    )


def test_the_last_round_weighs_the_scores_paired_in_the_next_bracket_under_the_2026_rules() -> None:
    # P17 and P18 (2½) have met and float to the 2-point bracket (P6, P9, P14); only one of them can be
    # paired there, or P6, P5, P15 and P13 (who have met each other) could not all be paired below. Both
    # texts pair one pair there and float three. The older text kept P18 near its score (P18-P14, ½ apart)
    # and floated P17 down to P13 (1½ apart); the 2026 text maximises the scores paired in the next
    # bracket (C.8), so P18 (2½) rather than P9 (2) is paired in the 1½ bracket: P17-P9, P18-P15, P14-P13.
    state = twenty_before_the_last_round()
    new, old = pairs(pairer(RULES_2026).pair(state)), pairs(pairer(RULES_2017).pair(state))
    assert {frozenset((9, 17)), frozenset((15, 18)), frozenset((13, 14)), frozenset((5, 6))} <= new
    assert {frozenset((14, 18)), frozenset((13, 17)), frozenset((9, 15)), frozenset((5, 6))} <= old
    assert len(new & old) == 7  # the six boards above them, and P5-P6, are the same


# -- what did not change ------------------------------------------------------------------------------


def random_field(seed: int, players: int, rounds: int) -> SwissState:
    rng = random.Random(seed)
    ratings = sorted((rng.randint(1400, 2600) for _ in range(players)), reverse=True)
    return SwissState("t", rounds, [SwissPlayer(i + 1, f"P{i + 1:03d}", ratings[i]) for i in range(players)])


@pytest.mark.parametrize("players", [2, 9, 10, 31, 64])
@pytest.mark.parametrize("accelerate", [False, True])
def test_round_one_is_the_same_under_both_texts_and_read_off_the_ranking(players: int, accelerate: bool) -> None:
    state = random_field(players, players, 7)
    if accelerate:
        numbers = list(range(1, players + 1))
        state.accelerations = baku_accelerations(numbers, baku_group_a(numbers), 7)
    new = pairer(RULES_2026).pair(state)
    assert new == pairer(RULES_2017).pair(state)
    full = dutch.pair(state, dutch.Shortcuts(read_round_one=False))  # the whole matching, for comparison
    assert [Board(a, b) for a, b in full] == new


@pytest.mark.parametrize("seed", range(6))
def test_every_round_is_a_valid_pairing_and_mostly_the_same_as_before(seed: int) -> None:
    rng = random.Random(seed)
    state = random_field(seed, rng.choice([19, 20, 33, 40]), 9)
    same = 0
    for _ in range(9):
        boards = pairer(RULES_2026).pair(state)
        seen = [x for b in boards for x in (b.first, b.second) if x is not None]
        assert sorted(seen) == sorted(p.number for p in state.players)
        for b in boards:
            if b.second is not None:
                assert not any(r.opponent == b.second and r.played for r in state.by_number()[b.first].rounds)
            else:
                assert not state.by_number()[b.first].had_bye()
        same += pairs(boards) == pairs(pairer(RULES_2017).pair(state))
        sim.play(state, boards, rng)
    assert same >= 6  # the texts differ at the bye and the moved-down players, not everywhere


def test_the_rules_travel_in_the_trf_and_an_isolated_pairing_gives_the_same_round() -> None:
    state = five_after_round_one()
    for rules in (RULES_2026, RULES_2017):
        state.rules = rules
        text = trf.write(state)
        assert trf.read(text).rules == rules
        assert pairer(rules, isolated=True).pair(state) == pairer(rules).pair(state)
    assert "2026 rules" in trf.write(SwissState("t", 5, [SwissPlayer(1, "A")]))


def test_the_pairers_are_named_by_their_rules() -> None:
    assert pairer(RULES_2026).name == PAIRERS["fide-dutch-2026"].name
    assert pairer(RULES_2017).name == "py4swiss-dutch"
    with pytest.raises(KeyError):
        pairer("1992")


# -- through the services ------------------------------------------------------------------------------


def swiss_stage(**options: object) -> Stage:
    from games.models import Player

    tournament = services.tournament_create(name="Open", preset="swiss", stage_options={"rounds": 5, **options})
    for n in range(1, 8):
        player = Player.objects.create(name=f"P{n:02d}", rating=2500 - 10 * n)
        services.register(tournament=tournament, player=player)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    stage.refresh_from_db()
    return stage


@pytest.mark.django_db
def test_a_new_stage_is_paired_by_the_2026_rules_and_an_organizer_may_choose_the_older_ones() -> None:
    stage = swiss_stage()
    rnd = cycle.round_pair(stage=stage)
    assert rnd.engine == "fide-dutch-2026"
    bye_why = next(item for item in rnd.why if item.get("bye"))
    assert "2026" in selectors.why_text(bye_why, {})  # 7 players: the bye, explained by the new rule
    assert "2026 rules" in trf.write(selectors.load(stage).state)
    cycle.round_unpair(stage=stage, number=rnd.number)
    swiss.swiss_configure(stage=Stage.objects.get(pk=stage.pk), options={"rules": "2017"})
    assert cycle.round_pair(stage=stage).engine == "py4swiss-dutch"
    with pytest.raises(services.TournamentError):  # a rule set, once a round is paired, stays
        swiss.swiss_configure(stage=Stage.objects.get(pk=stage.pk), options={"rules": "2026"})
    with pytest.raises(services.TournamentError):
        swiss.swiss_configure(stage=swiss_stage(), options={"rules": "1992"})
    assert Round.objects.filter(stage=stage).count() == 1


def test_the_combinations_in_the_brute_force_are_all_the_pairings() -> None:
    # the helper above is itself checked: 4 players, none met, 3 ways; one rematch forbidden, 2 ways
    assert complete_without(SwissState("t", 1, []), [1, 2, 3, 4], set())
    assert not complete_without(SwissState("t", 1, []), [1, 2, 3, 4], {frozenset(p) for p in ((1, 2), (1, 3), (1, 4))})
    assert len(list(itertools.combinations(range(4), 2))) == 6


@pytest.mark.parametrize("seed", range(2))
def test_the_shortcuts_of_a_large_field_change_no_pairing(seed: int) -> None:
    """Stand-ins for the players below a bracket, the skipped first matching, S1 settled in chunks or by
    kinds: the same rounds as the whole-field method (bbpPairings' way) on a field large enough to use
    them."""
    rng = random.Random(seed)
    state = random_field(seed, 151, 7)
    state.forbidden = {(1, 2), (3, 4), (10, 60)}
    used = 0
    for _ in range(5):
        quick, fast = dutch.paired_round(state, dutch.SHORTCUTS)
        used += fast.windowed
        assert dutch.pair(state, dutch.NO_SHORTCUTS) == quick
        sim.play(state, [Board(a, b) for a, b in quick], rng)
    assert used > 0  # the windowed brackets were really used
