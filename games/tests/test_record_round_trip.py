"""Records keep everything: every protocol's actions, who took them and when, round trip through plain and .rif."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone, translation

from engine.protocols import PROTOCOLS
from games.exports import export_plain, export_rif
from games.models import Game
from games.services import GameError, game_import
from games.tests.helpers import CASES, played

pytestmark = pytest.mark.django_db


def history(game: Game) -> list[tuple[str, str, str, int | None, int | None]]:
    return [
        (m["text"], ("甲", "乙")[m["player_number"] - 1], m["color"], m["move_number"], m["clock_ms"].get("think_ms"))
        for m in game.moves.order_by("ply").values("text", "player_number", "color", "move_number", "clock_ms")
    ]


def names(game: Game) -> dict[int, str]:
    return {1: game.player_one.name, 2: game.player_two.name}


def same_game(original: Game, copy: Game) -> None:
    assert copy.mode == "otb" and copy.pk != original.pk
    for field in ("protocol", "protocol_options", "rules", "result", "result_reason", "event", "round", "ply"):
        assert getattr(copy, field) == getattr(original, field), field
    assert (copy.black.name, copy.white.name) == (original.black.name, original.white.name)
    # the same actions by the same people, with the same colours, stone numbers and times
    ours = [(t, names(original)[1 if p == "甲" else 2], c, n, ms) for t, p, c, n, ms in history(original)]
    theirs = [(t, names(copy)[1 if p == "甲" else 2], c, n, ms) for t, p, c, n, ms in history(copy)]
    assert theirs == ours


@pytest.mark.parametrize(("protocol", "options", "script"), [c[:3] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("fmt", ["plain", "rif"])
def test_every_protocol_survives_export_and_import(protocol: str, options: Any, script: Any, fmt: str) -> None:
    original = played(protocol, options, script)
    text = export_plain(original) if fmt == "plain" else export_rif([original], timezone.now())

    copy = game_import(text=text)

    same_game(original, copy)
    again = export_plain(copy) if fmt == "plain" else export_rif([copy], timezone.now())
    if fmt == "plain":

        def strip(t: str) -> str:
            return "\n".join(ln for ln in t.splitlines() if "Game" not in ln)

        assert strip(again) == strip(text)


def test_the_cases_cover_every_protocol() -> None:
    assert {c[0] for c in CASES} | {"none"} == set(PROTOCOLS)


def test_the_plain_export_shows_swaps_declarations_and_offers() -> None:
    case = next(c for c in CASES if c[0] == "yamaguchi")
    text = export_plain(played(*case[:3]))

    assert '[Protocol "yamaguchi"]' in text and '[Round "1.2.1"]' in text and '[Event "校际赛"]' in text
    assert "{declare" in text and "{offer" in text and " {chosen}" in text and "swap}" in text
    assert '[Times "1.3 1.4 1.5' in text


def test_the_rif_export_carries_swap_alt_times_and_round() -> None:
    case = next(c for c in CASES if c[0] == "rif")
    text = export_rif([played(*case[:3])], timezone.now())

    assert 'round="1.2.1"' in text and 'protocol="rif"' in text and "btime=" in text and "wtime=" in text
    assert 'swap="' in text and 'alt="' in text and "<actions>" in text


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[Protocol "rif"]\n\nh8 h9 j10 {swap} {swap}', "Action 5"),
        ('[Protocol "rif"]\n\nh8 h9 j10 {no-swap', "brace"),
        ('[Protocol "nosuch"]\n\nh8 {swap}', "nosuch"),
        ('[Protocol "rif"]\n[Times "x"]\n\nh8 h9 j10 {swap}', "Times"),
        ("<database><games><game/><game/></games></database>", "2 games"),
        ("<database><games>", "XML"),
    ],
)
def test_bad_records_are_refused_and_nothing_is_created(text: str, fragment: str) -> None:
    with translation.override("en"), pytest.raises(GameError) as info:
        game_import(text=text)

    assert info.value.code == "bad_record" and fragment in info.value.message
    assert not Game.objects.exists()
