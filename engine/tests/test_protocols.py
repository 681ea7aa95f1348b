"""Scripted openings for every protocol, each swap branch and each illegal action."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
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

ONE, TWO = Player.ONE, Player.TWO


def run(protocol: str, script: list[tuple[Player, str]], options: Options | None = None) -> OpeningState:
    state = start(protocol, options)
    for player, text in script:
        state = apply(state, player, Action.parse(text))
    return state


def board_text(state: OpeningState) -> str:
    return " ".join(str(m) for m in state.moves)


RIF_OPENING = [(ONE, "place h8"), (ONE, "place h9"), (ONE, "place j10")]

# (protocol, options, script, final moves, who holds black at the end)
COMPLETE = [
    ("none", None, [], "", ONE),
    (
        "free-swap3",
        None,
        [(ONE, "place a1"), (TWO, "place o15"), (ONE, "place c3"), (TWO, "no-swap")],
        "a1 o15 c3",
        ONE,
    ),
    ("free-swap3", None, [(ONE, "place a1"), (TWO, "place o15"), (ONE, "place c3"), (TWO, "swap")], "a1 o15 c3", TWO),
    (
        "rif",
        None,
        [
            *RIF_OPENING,
            (TWO, "no-swap"),
            (TWO, "place h6"),
            (ONE, "offer g8 j11"),
            (TWO, "choose j11"),
            (TWO, "place k11"),
        ],
        "h8 h9 j10 h6 j11 k11",
        ONE,
    ),
    (
        "rif",
        None,
        [*RIF_OPENING, (TWO, "swap"), (ONE, "place h6"), (TWO, "offer g8 j11"), (ONE, "choose g8"), (ONE, "place k11")],
        "h8 h9 j10 h6 g8 k11",
        TWO,
    ),
    (
        "yamaguchi",
        None,
        [
            *RIF_OPENING,
            (ONE, "declare 3"),
            (TWO, "no-swap"),
            (TWO, "place i11"),
            (ONE, "offer g8 i8 k10"),
            (TWO, "choose i8"),
            (TWO, "place g7"),
        ],
        "h8 h9 j10 i11 i8 g7",
        ONE,
    ),
    (
        "yamaguchi-52",
        None,
        [
            (ONE, "place h8"),
            (ONE, "place h9"),
            (ONE, "place h11"),
            (ONE, "declare 1"),
            (TWO, "swap"),
            (ONE, "place g10"),
            (TWO, "offer i10"),
            (ONE, "choose i10"),
            (ONE, "place j11"),
        ],
        "h8 h9 h11 g10 i10 j11",
        TWO,
    ),
    (
        "yamaguchi-variation",
        None,
        [
            (ONE, "place h8"),
            (TWO, "place i9"),
            (ONE, "place k11"),
            (ONE, "declare 2"),
            (TWO, "no-swap"),
            (TWO, "place g7"),
            (ONE, "offer h10 l12"),
            (TWO, "choose l12"),
            (TWO, "place j10"),
        ],
        "h8 i9 k11 g7 l12 j10",
        ONE,
    ),
    (
        "tarannikov",
        None,
        [
            (ONE, "place h8"),
            (TWO, "swap"),
            (ONE, "place h9"),
            (TWO, "no-swap"),
            (TWO, "place j10"),
            (ONE, "swap"),
            (TWO, "place g7"),
            (ONE, "no-swap"),
            (ONE, "place e5"),
            (TWO, "no-swap"),
            (TWO, "place a15"),
        ],
        "h8 h9 j10 g7 e5 a15",
        ONE,
    ),
    (
        "taraguchi",
        None,
        [
            (ONE, "place h8"),
            (TWO, "no-swap"),
            (TWO, "place h9"),
            (ONE, "no-swap"),
            (ONE, "place j10"),
            (TWO, "no-swap"),
            (TWO, "place g7"),
            (ONE, "branch 1"),
            (ONE, "swap"),
            (TWO, "place l12"),
            (ONE, "swap"),
            (TWO, "place a1"),
        ],
        "h8 h9 j10 g7 l12 a1",
        ONE,
    ),
    (
        "taraguchi",
        None,
        [
            (ONE, "place h8"),
            (TWO, "no-swap"),
            (TWO, "place h9"),
            (ONE, "no-swap"),
            (ONE, "place j10"),
            (TWO, "no-swap"),
            (TWO, "place g7"),
            (ONE, "branch 2"),
            (ONE, "offer a1 b1 c1 d1 e1"),
            (TWO, "choose c1"),
            (TWO, "place o15"),
        ],
        "h8 h9 j10 g7 c1 o15",
        ONE,
    ),
    (
        "taraguchi-10",
        None,
        [
            (ONE, "place h8"),
            (TWO, "no-swap"),
            (TWO, "place h9"),
            (ONE, "no-swap"),
            (ONE, "place j10"),
            (TWO, "swap"),
            (ONE, "place g7"),
            (TWO, "branch 2"),
            (TWO, "offer a1 b1 c1 d1 e1 f1 g1 h1 i1 j1"),
            (ONE, "choose j1"),
            (ONE, "place o1"),
        ],
        "h8 h9 j10 g7 j1 o1",
        TWO,
    ),
    (
        "jonsson",
        None,
        [
            *RIF_OPENING,
            (TWO, "no-swap"),
            (TWO, "place g10"),
            (TWO, "declare 3"),
            (ONE, "swap"),
            (TWO, "offer i10 k11 f8"),
            (ONE, "choose k11"),
            (ONE, "place g9"),
        ],
        "h8 h9 j10 g10 k11 g9",
        TWO,
    ),
    (
        "soosorv",
        None,
        [
            *RIF_OPENING,
            (TWO, "swap"),
            (ONE, "place g10"),
            (ONE, "declare 4"),
            (TWO, "no-swap"),
            (TWO, "offer i10 k11 f8 g8"),
            (ONE, "choose g8"),
            (ONE, "place f7"),
        ],
        "h8 h9 j10 g10 g8 f7",
        TWO,
    ),
    (
        "soosorv-8",
        None,
        [
            *RIF_OPENING,
            (TWO, "no-swap"),
            (TWO, "place g10"),
            (TWO, "declare 8"),
            (ONE, "no-swap"),
            (ONE, "offer i10 k11 f8 g8 a1 b1 c1 d1"),
            (TWO, "choose a1"),
            (TWO, "place f7"),
        ],
        "h8 h9 j10 g10 a1 f7",
        ONE,
    ),
    ("swap1", None, [(ONE, "place a1"), (ONE, "place b2"), (ONE, "place c3"), (TWO, "color black")], "a1 b2 c3", TWO),
    ("swap2", None, [(ONE, "place h8"), (ONE, "place h9"), (ONE, "place i9"), (TWO, "color white")], "h8 h9 i9", ONE),
    ("swap2", None, [(ONE, "place h8"), (ONE, "place h9"), (ONE, "place i9"), (TWO, "color black")], "h8 h9 i9", TWO),
    (
        "swap2",
        None,
        [
            (ONE, "place h8"),
            (ONE, "place h9"),
            (ONE, "place i9"),
            (TWO, "place g7"),
            (TWO, "place j10"),
            (ONE, "color white"),
        ],
        "h8 h9 i9 g7 j10",
        TWO,
    ),
    (
        "chinese",
        None,
        [
            *RIF_OPENING,
            (TWO, "swap"),
            (ONE, "place h6"),
            (TWO, "offer g8 j11"),
            (ONE, "choose j11"),
            (ONE, "place k11"),
        ],
        "h8 h9 j10 h6 j11 k11",
        TWO,
    ),
    (
        "chinese",
        Options(chinese_declared=True),
        [
            *RIF_OPENING,
            (ONE, "declare 3"),
            (TWO, "no-swap"),
            (TWO, "place h6"),
            (ONE, "offer g8 j11 a1"),
            (TWO, "choose a1"),
            (TWO, "place k11"),
        ],
        "h8 h9 j10 h6 a1 k11",
        ONE,
    ),
    (
        "chinese-assigned",
        Options(assigned_opening="3D"),
        [*RIF_OPENING, (TWO, "place h6"), (ONE, "offer g8 j11"), (TWO, "choose g8"), (TWO, "place k11")],
        "h8 h9 j10 h6 g8 k11",
        ONE,
    ),
]


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
        [
            (ONE, "place h8"),
            (TWO, "no-swap"),
            (TWO, "place h9"),
            (ONE, "no-swap"),
            (ONE, "place j10"),
            (TWO, "no-swap"),
        ],
        (TWO, "place l12"),
        "the fourth stone must be inside the central 7×7",
    ),
    (
        "tarannikov",
        [
            (ONE, "place h8"),
            (TWO, "no-swap"),
            (TWO, "place h9"),
            (ONE, "no-swap"),
            (ONE, "place j10"),
            (TWO, "no-swap"),
            (TWO, "place g7"),
            (ONE, "no-swap"),
        ],
        (ONE, "place m13"),
        "the fifth stone must be inside the central 9×9",
    ),
    (
        "taraguchi",
        [
            (ONE, "place h8"),
            (TWO, "no-swap"),
            (TWO, "place h9"),
            (ONE, "no-swap"),
            (ONE, "place j10"),
            (TWO, "no-swap"),
            (TWO, "place g7"),
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
