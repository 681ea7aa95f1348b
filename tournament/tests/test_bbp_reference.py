"""The reference program's own test cases: bbpPairings 6's Dutch-system tests (inputs and expected pairings
copied unchanged into ``tests/data/bbpPairings``), paired by our engine for the 2026 rules, read from the
files exactly as bbpPairings reads them (one with CR line ends)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tournament.swiss import trf
from tournament.swiss.pairing import pairer
from tournament.swiss.state import RULES_2026

DATA = Path(__file__).parent / "data" / "bbpPairings"


def output(name: str) -> str:
    """Our pairing of ``name``'s input in bbpPairings' ``-p`` format."""
    state = trf.read((DATA / f"{name}.input").read_bytes().decode("utf-8"))
    boards = pairer(RULES_2026).pair(state)
    return f"{len(boards)}\n" + "".join(f"{b.first} {b.second or 0}\n" for b in boards)


@pytest.mark.parametrize("name", ["dutch_2025_C5", "dutch_2025_C9", "issue_7"])
def test_the_reference_programs_own_dutch_cases_pair_the_same(name: str) -> None:
    assert output(name) == (DATA / f"{name}.output.expected").read_text()


def test_the_largest_case_is_read_from_its_cr_ended_lines() -> None:
    raw = (DATA / "issue_7.input").read_bytes()
    assert b"\n" not in raw and raw.count(b"\r") == 61
    state = trf.read(raw.decode("utf-8"))
    assert len(state.players) == 60 and state.rounds_played == 14 and state.total_rounds == 15
