"""One class per tie-break (tournament/tiebreaks.py), computed on a format-neutral view of the results for
whoever is ranked (a group's player, a Swiss stage's player, a team), all ranked by the one ranking function."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tournament.formats import group_tiebreaks
from tournament.swiss import tiebreaks as swiss
from tournament.swiss.state import FIRST, SECOND, RoundRecord, SwissPlayer, SwissState
from tournament.teams import scoring
from tournament.teams.scoring import TeamResult
from tournament.tiebreaks import TIEBREAKS


def _documented(doc: str, heading: str) -> dict[str, str]:
    """A doc's table of tie-breaks under ``heading``: key -> the second column (the short name, if any)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / doc).read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*)\|", section, re.M)
    keys: dict[str, str] = {}
    for key, second in rows:
        if key in keys:
            break  # the next table
        keys[key] = second.strip()
    return keys


def test_each_format_offers_tie_breaks_of_the_one_set_of_classes_as_its_docs_list_them() -> None:
    offered = [group_tiebreaks(), swiss.TIEBREAKS, scoring.team_tiebreaks()]
    assert all(len(set(names)) == len(names) and set(names) <= set(TIEBREAKS) for names in offered)
    assert set().union(*offered) == set(TIEBREAKS)  # no class that no format offers
    assert len({type(t) for t in TIEBREAKS.values()}) == len(TIEBREAKS)  # one class per tie-break
    assert all(type(t).__module__ == "tournament.tiebreaks" for t in TIEBREAKS.values())
    swiss_doc = _documented("swiss.md", "## Tie-breaks")
    assert set(swiss_doc) == set(swiss.TIEBREAKS)
    assert {key: TIEBREAKS[key].short for key in swiss_doc} == swiss_doc  # FIDE's short names, as shown
    assert set(_documented("formats.md", "Or the organizer lists **computed tie-breaks**")) == set(group_tiebreaks())


def _computations(source: str) -> list[str]:
    """Where a module computes a tie-break itself: a function named after one (``_sonneborn_berger``,
    ``_direct``), or a dict literal whose entry for a tie-break's key is a computation (``"buchholz":
    sum(...)``, arithmetic; not a value read or a title)."""
    keys = set(TIEBREAKS) | {"direct"}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.strip("_") in keys:
            found.append(f"line {node.lineno}: def {node.name}")
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = key.value if isinstance(key, ast.Constant) else None
                arithmetic = isinstance(value, ast.BinOp | ast.GeneratorExp | ast.ListComp) or (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Name)
                    and value.func.id in ("sum", "len", "max", "min", "round")
                )
                if name in keys and arithmetic:
                    found.append(f"line {node.lineno}: {name!r} computed")
    return found


def test_each_tie_break_is_computed_in_one_place() -> None:
    """Buchholz, Sonneborn-Berger and the rest are computed by their class in tournament/tiebreaks.py only;
    a format builds the view of its results and ranks by the classes."""
    root = Path(__file__).resolve().parents[2]
    found = {
        path.relative_to(root).as_posix(): hits
        for path in sorted((root / "tournament").rglob("*.py"))
        if "tests" not in path.parts
        and "migrations" not in path.parts
        and path.name != "tiebreaks.py"
        or path.parent.name == "swiss"
        and path.name == "tiebreaks.py"
        if (hits := _computations(path.read_text(encoding="utf-8")))
    }
    assert found == {}
    old = "def _sonneborn_berger(rows):\n    return {'buchholz': sum(rows), 'wins': 1}\ndef _direct(b):\n    pass\n"
    assert len(_computations(old)) == 2 + 1  # the scanner finds what it forbids


def test_the_swiss_record_ranks_by_its_own_computation() -> None:
    # 1 beat 2, 2 beat 3, 3 beat 1: three on one point; Buchholz alike, so the direct encounter (all met, one
    # point each) cannot separate them, and the lot does.
    state = SwissState("t", 2, [SwissPlayer(n, f"P{n}", 2000) for n in (1, 2, 3)])
    played = {1: (2, "1"), 2: (3, "1"), 3: (1, "1")}
    for winner, (loser, _r) in played.items():
        state.by_number()[winner].rounds.append(RoundRecord(loser, FIRST, "1"))
        state.by_number()[loser].rounds.append(RoundRecord(winner, SECOND, "0"))
    ranked = swiss.standings(state, ["buchholz", "direct_encounter"], lot_seed="x")
    assert [row.values["direct_encounter"] for row in ranked] == [10, 10, 10]  # computed among the three
    assert [row.decided_by for row in ranked] == ["lot", "lot", "lot"]


def test_the_team_record_ranks_by_its_own_computation() -> None:
    # Halves on two boards. 1 beats 2 4-0 and 3 3-1; 2 and 3 draw 2-2: 2 and 3 level on match points (a
    # draw each). Game points: 1 has 7, 2 has 2, 3 has 3; Buchholz (the opponents' game points) puts 2 (7 + 3)
    # above 3 (7 + 2).
    results = [
        TeamResult(home=1, away=2, boards={1: (2, 0), 2: (2, 0)}, complete=True, match=1),
        TeamResult(home=1, away=3, boards={1: (2, 0), 2: (1, 1)}, complete=True, match=2),
        TeamResult(home=2, away=3, boards={1: (2, 0), 2: (0, 2)}, complete=True, match=3),
    ]
    rows = scoring.standings([1, 2, 3], results, boards=2, primary="match_points", order=["buchholz"])
    assert [(row.team, row.rank, row.values["buchholz"]) for row in rows] == [(1, 1, 5), (2, 2, 10), (3, 3, 9)]
    assert [row.decided_by for row in rows] == ["", "buchholz", "buchholz"]
