"""TRF files as TRF-16 and TRF-2026 define them: lines ended by CR (as bbpPairings writes its own files), LF
or CR LF; the file's pairing numbers kept when a tournament is started from it; points that are not FIDE's
standard written both as JaVaFo's XXS and as bbpPairings' BBx lines; an accelerated stage's XXA lines and
initial colour in the file from the first export on."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Player
from tournament import services
from tournament.models import Stage
from tournament.services import rounds as cycle
from tournament.swiss import selectors, trf
from tournament.swiss.imports import tournament_from_trf
from tournament.swiss.pairing import Board, pairer
from tournament.swiss.state import FIRST, SECOND, PointSystem, RoundRecord, SwissPlayer, SwissState


def line(number: int, name: str, rating: int, *rounds: str) -> str:
    """A 001 line in the fixed columns: ``rounds`` as ``"opp colour result"`` blocks."""
    blocks = ""
    for block in rounds:
        opponent, colour, result = block.split()
        blocks += f"  {'0000' if opponent == '-' else f'{int(opponent):4d}'} {colour} {result}"
    return f"001 {number:4d}      {name:<33} {rating:4d} {'':3} {'':11} {'':10} {'0.0':>4} {number:4d}" + blocks


# Six players whose pairing numbers are not in rating order (an arbiter's placing of an unrated player, a
# corrected rating): number 1 is rated lowest. Round 1 is played; round 2 is to be paired.
UNORDERED = [
    "012 unordered",
    "XXR 5",
    "XXC white1",
    line(1, "Low", 1500, "4 w 1"),
    line(2, "Mid", 1900, "5 b 0"),
    line(3, "High", 2400, "6 w ="),
    line(4, "Top", 2500, "1 b 0"),
    line(5, "Two", 2000, "2 w 1"),
    line(6, "Three", 2100, "3 b ="),
]


@pytest.mark.parametrize("end", ["\r", "\n", "\r\n"])
def test_a_file_is_read_whatever_ends_its_lines(end: str) -> None:
    state = trf.read(end.join(UNORDERED) + end)
    assert [p.number for p in state.players] == [1, 2, 3, 4, 5, 6]
    assert [p.rating for p in state.players] == [1500, 1900, 2400, 2500, 2000, 2100]
    assert state.by_number()[1].rounds == [RoundRecord(4, FIRST, "1")]
    assert state.total_rounds == 5


def test_the_download_ends_each_line_with_cr_and_reads_back_the_same() -> None:
    state = trf.read("\n".join(UNORDERED) + "\n")
    text = trf.as_file(trf.write(state))
    assert text.count("\r\n") == text.count("\n") and "\r\r" not in text
    again = trf.read(text.replace("\r\n", "\r"))  # as a program that keeps only the CR writes it back
    assert [(p.number, p.rating, p.rounds) for p in again.players] == [
        (p.number, p.rating, p.rounds) for p in state.players
    ]


@pytest.mark.django_db
def test_a_tournament_started_from_a_file_keeps_its_pairing_numbers_and_pairs_as_the_file_does() -> None:
    text = "\r".join(UNORDERED) + "\r"
    tournament = tournament_from_trf(text=text, name="copy")
    stage = tournament.stages.get()
    data = selectors.load(stage)

    by_name = {p.name: p.number for p in data.state.players}
    assert by_name == {"Low": 1, "Mid": 2, "High": 3, "Top": 4, "Two": 5, "Three": 6}
    expected = pairer("2026").pair(trf.read(text))
    assert pairer("2026").pair(data.state) == expected
    rnd = cycle.round_pair(stage=stage)
    names = {e: n for n, e in data.entry.items()}
    assert [Board(names[a], names[b] if b else None) for a, b in rnd.boards] == expected

    exported = trf.read(trf.write(selectors.load(stage).state))
    assert [(p.number, p.name) for p in exported.players] == [
        (n, nm) for nm, n in sorted(by_name.items(), key=lambda x: x[1])
    ]


def test_a_half_point_bye_and_other_points_are_written_for_javafo_and_for_bbppairings_and_read_back() -> None:
    players = [
        SwissPlayer(1, "A", rounds=[RoundRecord(None, None, "U")]),
        SwissPlayer(2, "B", rounds=[RoundRecord(3, FIRST, "1")]),
        SwissPlayer(3, "C", rounds=[RoundRecord(2, SECOND, "0")]),
    ]
    half = SwissState("bye", 5, players, points=PointSystem(pab=5))
    text = trf.write(half)
    lines = text.splitlines()
    assert "XXS PAB=0.5" in lines and "BBU  0.5" in lines
    assert trf.read(text).points == half.points
    bbp_only = "\r".join(ln for ln in lines if not ln.startswith("XXS")) + "\r"
    assert trf.read(bbp_only).points.pab == 5  # a file bbpPairings wrote (no XXS) reads the same

    three = SwissState("3-1-0", 5, players, points=PointSystem(win=30, draw=10, loss=0, pab=30))
    lines = trf.write(three).splitlines()
    assert {"BBW  3.0", "BBD  1.0", "BBU  3.0"} <= set(lines)
    assert trf.read(trf.write(three)).points == three.points
    assert trf.read("BBW  3.0\r" + "\r".join(ln for ln in lines if ln.startswith("0"))).points.pab == 30

    standard = SwissState("standard", 5, players)
    assert not [ln for ln in trf.write(standard).splitlines() if ln[:3] in ("XXS", "BBW", "BBU")]
    # the pre-2026 engine reads the same file (it skips the BBx lines it does not know)
    assert pairer("2017").pair(trf.read(text)) == pairer("2017").pair(half)


@pytest.mark.django_db
def test_an_accelerated_stage_exported_before_round_one_has_its_xxa_lines_and_pairs_as_the_project_does(
    client: Any,
) -> None:
    tournament = services.tournament_create(
        name="Open", preset="swiss", stage_options={"rounds": 5, "accelerate": True}
    )
    for n in range(1, 9):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}", rating=2500 - 10 * n))
    stage: Stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=11)
    services.start_stage(stage=stage)
    stage.refresh_from_db()

    text = client.get(f"/t/{tournament.pk}/swiss/{stage.pk}.trf").content.decode()
    assert "\r\n" in text
    xxa = [ln for ln in text.splitlines() if ln.startswith("XXA")]
    assert len(xxa) == 4  # group A: the top half, rounded up to an even number
    from_file = pairer("2026").pair(trf.read(text))

    rnd = cycle.round_pair(stage=stage)
    data = selectors.load(stage)
    ours = [Board(data.number[a], data.number[b] if b else None) for a, b in rnd.boards]
    assert ours == from_file
    unaccelerated = trf.read("\n".join(ln for ln in text.splitlines() if not ln.startswith("XXA")))
    assert pairer("2026").pair(unaccelerated) != from_file  # the lines matter: without them round 1 differs
