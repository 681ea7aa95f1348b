"""The 2026 Dutch rules (FIDE C.04.3, in force since February 2026) criterion by criterion: for each, a
hand-made state in which that criterion decides, with the pairing the text gives worked out in the comment
(docs/swiss.md lists the article each test covers). ``w`` in a state is TRF's white: the first-move role."""

from __future__ import annotations

from tournament.swiss.pairing import Board, pairer
from tournament.swiss.state import RULES_2026, SwissState
from tournament.tests.helpers import state_of


def pairs(boards: list[Board]) -> set[frozenset[int | None]]:
    return {frozenset((b.first, b.second)) for b in boards}


def paired(state: SwissState) -> list[Board]:
    return pairer(RULES_2026).pair(state)


def test_c1_two_players_do_not_meet_twice() -> None:
    # Round 1: 1-3 and 2-4 drawn, 1 and 2 moving first; everybody on ½, one bracket, S1 = {1, 2},
    # S2 = {3, 4}. The first transposition (1-3, 2-4) repeats both games; the next, 1-4 and 2-3, is the
    # pairing (and gives all four the colour they are due, so nothing else competes with it).
    state = state_of(5, "1 A 2400 3 w =", "2 B 2390 4 w =", "3 C 2380 1 b =", "4 D 2370 2 b =")
    assert pairs(paired(state)) == {frozenset((1, 4)), frozenset((2, 3))}


def test_c2_no_second_pairing_allocated_bye_and_none_after_a_forfeit_win() -> None:
    # After two rounds 3 leads on 2 points; 1, 2, 4 and 5 have 1. 4 and 5 had the pairing-allocated bye
    # (round 2 and 1), so among the lowest scores only 1 and 2 may take it (C.2).
    state = state_of(
        5,
        "1 A 2400 2 w 1 3 b 0",
        "2 B 2390 1 b 0 5 w 1",
        "3 C 2380 4 w 1 1 w 1",
        "4 D 2370 3 b 0 - - U",
        "5 E 2360 - - U 2 b 0",
    )
    bye = next(b.first for b in paired(state) if b.second is None)
    assert bye in (1, 2)
    # a forfeit win counts as a bye (C.2): 2 won round 2 by forfeit instead
    forfeit = state_of(
        5,
        "1 A 2400 2 w 1 3 b 0",
        "2 B 2390 1 b 0 5 w +",
        "3 C 2380 4 w 1 1 w 1",
        "4 D 2370 3 b 0 - - U",
        "5 E 2360 - - U 2 b -",
    )
    assert next(b.first for b in paired(forfeit) if b.second is None) == 1


# Two rounds played by six: 1 and 2 (2 points) both moved first twice, 5 and 6 (0) both second twice.
C3_ROUNDS = (
    "1 A 2400 4 w 1 5 w 1",
    "2 B 2390 5 w 1 6 w 1",
    "3 C 2380 6 w 1 4 b 0",
    "4 D 2370 1 b 0 3 w 1",
    "5 E 2360 2 b 0 1 b 0",
    "6 F 2350 3 b 0 2 b 0",
)


def test_c3_two_non_topscorers_with_the_same_absolute_colour_preference_do_not_meet() -> None:
    # Round 3 of 5 (nobody is a topscorer). 1 and 2 (2 points) both moved first twice, 5 and 6 (0) both
    # moved second twice: each pair has the same absolute preference and may not meet (C.3). So 5 and 6
    # need opponents from above: the round completes (C.4) only with 1 and 4 floating down to them — 1
    # has met 5 and 4 has met 6, so 1-6 and 4-5 — and 2 meets 3 (2 has met neither 3 nor 4; 4 went down).
    state = state_of(5, *C3_ROUNDS)
    boards = paired(state)
    assert pairs(boards) == {frozenset((2, 3)), frozenset((1, 6)), frozenset((4, 5))}
    assert {b.second for b in boards} == {1, 2, 4}  # every absolute preference met: 1, 2 second; 5, 6 first


def test_c12_colour_preferences_choose_between_transpositions_and_e_rules_give_each_its_colour() -> None:
    # Round 1 (white1): 1, 3 moved first, 2, 4 second, and all four won. The 1-point bracket: S1 {1, 2},
    # S2 {3, 4}. The first transposition, 1-3 and 2-4, leaves both boards with players wanting the same
    # colour (two preferences unmet); 1-4 and 2-3 meets all four (C.12 ranks it first). E.1: each gets
    # the colour it prefers: 4 and 2 move first.
    state = state_of(
        5,
        "1 A 2400 5 w 1",
        "2 B 2390 6 b 1",
        "3 C 2380 7 w 1",
        "4 D 2370 8 b 1",
        "5 E 2360 1 b 0",
        "6 F 2350 2 w 0",
        "7 G 2340 3 b 0",
        "8 H 2330 4 w 0",
    )
    top = [b for b in paired(state) if {b.first, b.second} <= {1, 2, 3, 4}]
    assert {(b.first, b.second) for b in top} == {(4, 1), (2, 3)}


def test_c3_gives_way_for_topscorers_in_the_last_round_and_e4_gives_the_higher_ranked_his_colour() -> None:
    # The C.3 state above, but round 3 is the last: 1 and 2 (2 of 2) are topscorers, so their common absolute
    # preference no longer keeps them apart and they meet (C.3 spares topscorers in the last round); 5 and 6
    # (0) still may not. Both 1 and 2 must move second and have the same colour difference (E.2 cannot
    # choose) and never differed (E.3 cannot), so E.4 gives the higher-ranked, 1, his colour: 2 moves first,
    # a third time running. Below, 3 and 4 have met, so 5-3 and 6-4, 5 and 6 moving first as they must.
    state = state_of(3, *C3_ROUNDS)
    assert {(b.first, b.second) for b in paired(state)} == {(2, 1), (5, 3), (6, 4)}
