"""``simulate_tournament --preset swiss``: a whole Swiss through the services, the same bytes under any
``PYTHONHASHSEED`` (pairings, tie-breaks and lots never depend on hash order)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tournament.tests.helpers import simulations

pytestmark = pytest.mark.django_db


def test_a_whole_swiss_is_played_and_ranked() -> None:
    out = io.StringIO()
    call_command(
        "simulate_tournament", "--preset", "swiss", "--players", "11", "--rounds", "5", "--seed", "3", stdout=out
    )
    text = out.getvalue()
    ranking = text.split("== Final ranking ==")[1].strip().splitlines()
    assert len(ranking) == 11 and ranking[0].lstrip().startswith("1 ")
    assert "BH-C1" in text  # the tie-break columns


def _swiss(hash_seed: str) -> str:
    loop = (
        "for n in (7, 12, 17):\n"
        "    out = io.StringIO()\n"
        "    call_command('simulate_tournament', '--preset', 'swiss', '--players', str(n), '--rounds', '5', "
        "'--seed', str(n), stdout=out)\n"
        "    print(out.getvalue())\n"
    )
    return simulations(hash_seed, loop, [], 900)


def test_a_simulated_swiss_prints_the_same_under_any_hash_seed() -> None:
    first = _swiss("1")
    assert first == _swiss("987") and "Final ranking" in first
