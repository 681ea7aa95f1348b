"""Scripted openings for every protocol, each swap branch and each illegal action."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.notation import Color, Point
from engine.protocols import (
    PROTOCOLS,
    Action,
    OpeningState,
    Options,
    Player,
    ProtocolError,
    apply,
    opening_name,
    replay,
    start,
)
from engine.tests.protocol_scripts import COMPLETE, FOUR_KEPT, ONE, RIF_OPENING, TWO


def run(protocol: str, script: list[tuple[Player, str]], options: Options | None = None) -> OpeningState:
    state = start(protocol, options)
    for player, text in script:
        state = apply(state, player, Action.parse(text))
    return state


def board_text(state: OpeningState) -> str:
    return " ".join(str(m) for m in state.moves)


@pytest.mark.parametrize(
    ("protocol", "options", "script", "moves", "black"), COMPLETE, ids=[f"{c[0]}-{i}" for i, c in enumerate(COMPLETE)]
)
def test_complete_opening(
    protocol: str, options: Options | None, script: list[tuple[Player, str]], moves: str, black: Player
) -> None:
    state = run(protocol, script, options)

    assert state.finished and state.expects == "play"
    assert board_text(state) == moves
    assert state.black_player is black
    assert state.actor is state.holder(state.next_color)
    assert replay(protocol, state.record, options) == state


def test_every_protocol_has_a_complete_script() -> None:
    assert {c[0] for c in COMPLETE} == set(PROTOCOLS)


ILLEGAL = [
    ("rif", [], (ONE, "place h9"), "the first stone must be on h8 (天元)"),
    ("rif", [(ONE, "place h8")], (ONE, "place h10"), "the second stone must be next to h8 (the central 3×3)"),
    (
        "rif",
        [(ONE, "place h8"), (ONE, "place h9")],
        (ONE, "place k11"),
        "the third stone must be inside the central 5×5",
    ),
    ("rif", [(ONE, "place h8"), (ONE, "place h9")], (ONE, "place h9"), "h9 is already occupied"),
    ("rif", RIF_OPENING, (ONE, "swap"), "it is player two's turn, not player one's"),
    ("rif", RIF_OPENING, (TWO, "place h6"), "expected swap or no-swap, got place"),
    (
        "rif",
        [*RIF_OPENING, (TWO, "no-swap"), (TWO, "place h6")],
        (ONE, "offer g8"),
        "offer exactly 2 points for move 5, got 1",
    ),
    ("rif", [*RIF_OPENING, (TWO, "no-swap"), (TWO, "place h6")], (ONE, "offer g8 g8"), "g8 is offered twice"),
    ("rif", [*RIF_OPENING, (TWO, "no-swap"), (TWO, "place h6")], (ONE, "offer g8 h9"), "h9 is already occupied"),
    (
        "rif",
        [(ONE, "place h8"), (ONE, "place h9"), (ONE, "place h7"), (TWO, "no-swap"), (TWO, "place h6")],
        (ONE, "offer g8 i8"),
        "g8 and i8 are symmetric offers",
    ),
    (
        "rif",
        [*RIF_OPENING, (TWO, "no-swap"), (TWO, "place h6"), (ONE, "offer g8 j11")],
        (TWO, "choose a1"),
        "choose one of the offered points: g8, j11",
    ),
    ("rif", [], (ONE, "pass"), "expected place, got pass"),
    ("yamaguchi", RIF_OPENING, (ONE, "declare 21"), "the number of fifth-move offers must be between 1 and 20, got 21"),
    ("yamaguchi", RIF_OPENING, (ONE, "declare 0"), "the number of fifth-move offers must be between 1 and 20, got 0"),
    (
        "jonsson",
        [*RIF_OPENING, (TWO, "no-swap"), (TWO, "place g10")],
        (TWO, "declare 4"),
        "the number of fifth-move offers must be between 1 and 3, got 4",
    ),
    (
        "soosorv",
        [*RIF_OPENING, (TWO, "no-swap"), (TWO, "place g10")],
        (TWO, "declare 5"),
        "the number of fifth-move offers must be between 1 and 4, got 5",
    ),
    (
        "tarannikov",
        FOUR_KEPT[:6],  # the fourth stone next
        (TWO, "place l12"),
        "the fourth stone must be inside the central 7×7",
    ),
    (
        "tarannikov",
        [
            *FOUR_KEPT,
            (ONE, "no-swap"),
        ],
        (ONE, "place m13"),
        "the fifth stone must be inside the central 9×9",
    ),
    (
        "taraguchi",
        [
            *FOUR_KEPT,
        ],
        (ONE, "branch 3"),
        "choose branch 1 or 2, got 3",
    ),
    (
        "swap2",
        [(ONE, "place h8"), (ONE, "place h9"), (ONE, "place i9")],
        (TWO, "swap"),
        "expected color or place, got swap",
    ),
    ("chinese-assigned", [], (ONE, "place h8"), None),
    (
        "chinese-assigned",
        [(ONE, "place h8")],
        (ONE, "place i9"),
        "the second stone of the assigned opening goes on g8 or h7 or h9 or i8",
    ),
]


@pytest.mark.parametrize(
    ("protocol", "script", "bad", "message"), ILLEGAL, ids=[f"{c[0]}-{i}" for i, c in enumerate(ILLEGAL)]
)
def test_illegal_action_is_refused_with_its_reason(
    protocol: str, script: list[tuple[Player, str]], bad: tuple[Player, str], message: str | None
) -> None:
    state = run(protocol, script)
    player, text = bad

    if message is None:  # the legal counterpart of the next case
        assert apply(state, player, Action.parse(text)).moves
        return
    with pytest.raises(ProtocolError) as info:
        apply(state, player, Action.parse(text))

    assert str(info.value) == message
    assert run(protocol, script) == state  # nothing changed


def test_opening_over_refuses_more_actions() -> None:
    state = run("swap1", [(ONE, "place a1"), (ONE, "place b2"), (ONE, "place c3"), (TWO, "color white")])

    with pytest.raises(ProtocolError, match="the opening is over"):
        apply(state, ONE, Action.parse("place d4"))


def test_pass_allowed_only_from_the_configured_move() -> None:
    options = Options(pass_from_move=4)
    state = run("rif", [*RIF_OPENING, (TWO, "no-swap")], options)

    after = apply(state, TWO, Action.parse("pass"))

    assert board_text(after) == "h8 h9 j10 pass"
    assert "pass" not in [k.value for k in start("rif").legal_kinds()]


def test_opening_name_of_a_state() -> None:
    state = run("rif", RIF_OPENING)

    assert opening_name(state) == "3 3D 疏星 Sosei"
    assert state.color_of(ONE) is Color.BLACK


def test_unknown_protocol_and_malformed_action() -> None:
    with pytest.raises(ProtocolError, match="unknown opening protocol 'chess'"):
        start("chess")
    with pytest.raises(ProtocolError, match="malformed action 'declare x'"):
        Action.parse("declare x")


@st.composite
def random_walks(draw: st.DrawFn) -> tuple[str, list[tuple[Player, Action]]]:
    """A protocol and a sequence of legal actions chosen at random."""
    protocol = draw(st.sampled_from(PROTOCOLS))
    state = start(protocol)
    record: list[tuple[Player, Action]] = []
    for _ in range(20):
        if state.finished:
            break
        # no protocol state offers an occupied point
        occupied = {m.point for m in state.moves if m.point is not None}
        legal = sorted(state.legal_points(), key=lambda p: (p.col, p.row))
        assert not occupied & set(legal)
        expects = state.expects
        if expects in ("place", "swap2") and legal and (expects == "place" or draw(st.booleans())):
            action = Action.place(draw(st.sampled_from(legal)))
        elif expects == "swap2":
            action = Action.choose_color(draw(st.sampled_from([Color.BLACK, Color.WHITE])))
        elif expects == "swap":
            action = Action.swap(draw(st.booleans()))
        elif expects == "declare":
            step = state.current
            action = Action.declare(draw(st.integers(step.low, step.high or state.options.max_n)))
        elif expects == "branch":
            action = Action.branch(draw(st.sampled_from([1, 2])))
        elif expects == "color":
            action = Action.choose_color(draw(st.sampled_from([Color.BLACK, Color.WHITE])))
        elif expects == "choose":
            action = Action.choose(draw(st.sampled_from(state.offers)))
        else:  # offer: pick pairwise non-symmetric points greedily from a shuffled list
            wanted = state.offer_count or 1
            picks: list[Point] = []
            for point in draw(st.permutations(legal)):
                try:
                    apply(state, state.actor, Action.offer([*picks, point] + [point] * 0))
                except ProtocolError as exc:
                    if "exactly" not in str(exc):
                        continue
                picks.append(point)
                if len(picks) == wanted:
                    break
            # a greedy pick can run out of points no earlier pick mirrors (the walk, not the rule, failed)
            assume(len(picks) == wanted)
            action = Action.offer(picks)
        player = state.actor
        state = apply(state, player, action)
        record.append((player, action))
    return protocol, record


@settings(max_examples=60, deadline=None)
@given(random_walks())
def test_replaying_a_record_gives_the_same_position_and_colours(walk: tuple[str, list[tuple[Player, Action]]]) -> None:
    protocol, record = walk

    first = replay(protocol, record)
    again = replay(protocol, [(p, Action.parse(str(a))) for p, a in record])

    assert again.moves == first.moves
    assert again.black_player is first.black_player
    assert again == first
    occupied = [m.point for m in again.moves if m.point is not None]
    assert len(occupied) == len(set(occupied))


@pytest.mark.parametrize(
    ("assigned", "stones"),
    [
        ("3D", "h8 h9 j10"),  # the catalogue's orientation
        ("3D", "h8 g8 f10"),  # rotated
        ("疏星", "h8 h7 j6"),  # mirrored in row 8, named as the seeds write it
        ("斜月", "h8 i9 g7"),  # 11I in its catalogue orientation
        ("shagetsu", "h8 g7 i9"),  # 11I rotated 180°
        ("24", "h8 g9 i7"),  # 11I mirrored in column h
        ("長星", "h8 g7 f6"),  # 1I rotated, a traditional character variant
    ],
)
def test_assigned_opening_is_accepted_in_any_orientation(assigned: str, stones: str) -> None:
    script = [(ONE, f"place {p}") for p in stones.split()]

    state = run("chinese-assigned", script, Options(assigned_opening=assigned))

    assert board_text(state) == stones and state.expects == "place"


def test_assigned_opening_keeps_to_the_orientation_its_first_stones_chose() -> None:
    state = run("chinese-assigned", [(ONE, "place h8"), (ONE, "place g8")], Options(assigned_opening="3D"))

    with pytest.raises(ProtocolError) as info:
        apply(state, ONE, Action.parse("place j10"))  # 3D's third stone, but for white on h9

    assert str(info.value) == "the third stone of the assigned opening goes on f6 or f10"


@pytest.mark.parametrize("assigned", ["27", "99", "0", "14D", "斜星", "", "1X"])
def test_assigned_opening_outside_the_26_is_refused_at_the_start(assigned: str) -> None:
    with pytest.raises(ProtocolError, match="no opening"):
        start("chinese-assigned", Options(assigned_opening=assigned))
