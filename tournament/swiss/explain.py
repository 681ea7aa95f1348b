"""Why each board of a Swiss round is paired as it is: its score group, who floated and why, and the
colour rule (FIDE C.04.3, part E) that gave the first-player role. Plain Python; the pages and the API
render the codes in the reader's language (:func:`tournament.swiss.selectors.why_text`)."""

from __future__ import annotations

from typing import Any

from tournament.swiss.pairing import Board
from tournament.swiss.state import FIRST, SECOND, SwissPlayer, SwissState

ABSOLUTE, STRONG, MILD, NONE = 3, 2, 1, 0


def preference(player: SwissPlayer, before_round: int) -> tuple[str | None, int, int]:
    """(preferred role, strength, colour difference) from the games played over the board (C.04.3 A.6)."""
    colours = player.colours(before_round - 1)
    if not colours:
        return None, NONE, 0
    diff = colours.count(FIRST) - colours.count(SECOND)
    other = {FIRST: SECOND, SECOND: FIRST}
    if diff > 1 or diff < -1 or (len(colours) >= 2 and colours[-1] == colours[-2]):
        wanted = SECOND if diff > 1 else FIRST if diff < -1 else other[colours[-1]]
        return wanted, ABSOLUTE, diff
    if diff != 0:
        return (SECOND if diff > 0 else FIRST), STRONG, diff
    return other[colours[-1]], MILD, diff


def colour_rule(state: SwissState, a: SwissPlayer, b: SwissPlayer) -> tuple[str, str]:
    """(rule, role of ``a``) as part E allocates the pair; ``a``/``b`` in any order."""
    rnd = state.next_round
    pa, sa, da = preference(a, rnd)
    pb, sb, db = preference(b, rnd)
    other = {FIRST: SECOND, SECOND: FIRST}
    higher = a if (state.pairing_score(a), -a.number) >= (state.pairing_score(b), -b.number) else b
    initial = state.first_colour if higher.number % 2 == 1 else other[state.first_colour]
    if pa is None and pb is None:  # neither has played: E.5
        return "initial_colour", initial if higher is a else other[initial]
    if pb is None or (pa is not None and pa != pb):
        return "both_preferences", pa  # type: ignore[return-value]  # pa is set when pb is None here
    if pa is None:
        return "both_preferences", other[pb]
    if sa != sb:
        return "stronger_preference", pa if sa > sb else other[pb]
    if sa == ABSOLUTE and abs(da) != abs(db):
        return "stronger_preference", pa if abs(da) > abs(db) else other[pb]
    # C.04.2 D.5: unplayed rounds are skipped, so the two played sequences are compared from their ends
    for ca, cb in zip(reversed(a.colours(rnd - 1)), reversed(b.colours(rnd - 1)), strict=False):
        if ca != cb:
            return "alternate", other[ca]
    wanted = pa if higher is a else pb
    return "higher_ranked", wanted if higher is a else other[wanted]


def explain(state: SwissState, boards: list[Board]) -> list[dict[str, Any]]:
    numbers = state.by_number()
    scores = {b.first: state.pairing_score(numbers[b.first]) for b in boards}
    scores |= {b.second: state.pairing_score(numbers[b.second]) for b in boards if b.second is not None}
    group_sizes: dict[int, int] = {}
    for s in scores.values():
        group_sizes[s] = group_sizes.get(s, 0) + 1
    out: list[dict[str, Any]] = []
    for number, board in enumerate(boards, start=1):
        first = numbers[board.first]
        if board.second is None:
            # Eligible: paired this round and never had a pairing-allocated bye (nor a win by forfeit).
            eligible = [n for n in scores if not numbers[n].had_bye()]
            lowest = min(eligible, key=lambda n: (scores[n], -n)) if eligible else board.first
            out.append(
                {
                    "board": number,
                    "bye": True,
                    "group": scores[board.first],
                    "player": board.first,
                    "lowest": lowest == board.first,  # else the pairing of the groups above left this player out
                    "rules": state.rules,
                }
            )
            continue
        second = numbers[board.second]
        sf, ss = scores[board.first], scores[board.second]
        item: dict[str, Any] = {"board": number, "group": max(sf, ss), "first": board.first, "second": board.second}
        if sf != ss:
            high, low = (first, second) if sf > ss else (second, first)
            item["down"], item["up"] = high.number, low.number
            item["float_reason"] = "odd_group" if group_sizes[max(sf, ss)] % 2 else "no_partner"
        rule, role = colour_rule(state, first, second)
        item["colour_rule"] = rule if role == FIRST else "organizer"
        out.append(item)
    return out
