"""The shape of the tournament app, checked: the stage's kind is asked only of its format, the modules of
the app import each other at the top (no circle held apart by imports inside functions), and a format
written anywhere (here, in a test) runs a whole tournament without another module knowing of it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tournament.models import Group, Match, Stage, Tournament
from tournament.simulate import simulate
from tournament.tests.formats import FORMATS_FINAL, RoundsThenFinal
from tournament.tests.helpers import every_template, parse

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = ("tournament", "games", "ratings", "relay", "fairplay", "config")
STAGE_KINDS = set(Stage.Kind.values)


def _sources(package: str) -> Iterator[Path]:
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if "tests" in parts or "migrations" in parts:
            continue
        yield path


def _formats_own(path: Path) -> bool:
    """stage_formats.py and a format's own package (one with a ``format.py``: the seed's three, the Swiss
    system's, the team event's, the double elimination's) may know the kinds."""
    rel = path.relative_to(ROOT).as_posix()
    packages = tuple(f"{p.parent.relative_to(ROOT).as_posix()}/" for p in (ROOT / "tournament").glob("*/format.py"))
    return rel == "tournament/stage_formats.py" or rel.startswith(packages)


def kind_tests(source: str) -> list[str]:
    """Every place the code names a stage's kind: ``Stage.Kind.X``, ``Group.Kind.SWISS`` (the Swiss stage's
    one group), or a stage kind's value compared with or filtered on as a string."""
    found = []
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "Kind":
            owner = node.value.value
            listed = node.attr in ("choices", "values", "labels", "names")  # the kinds as a list, for a form
            if (
                isinstance(owner, ast.Name)
                and not listed
                and (owner.id == "Stage" or (owner.id == "Group" and node.attr == "SWISS"))
            ):
                found.append(f"line {node.lineno}: {owner.id}.Kind.{node.attr}")
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            names_kind = any(isinstance(s, ast.Attribute) and s.attr == "kind" for s in sides)
            values = {s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)}
            if names_kind and values & STAGE_KINDS - set(Group.Kind.values):
                found.append(f"line {node.lineno}: kind compared with {sorted(values)}")
        filters = ("kind", "kind__in", "stage__kind", "group__stage__kind")
        if isinstance(node, ast.keyword) and node.arg in filters and getattr(node.value, "value", None) in STAGE_KINDS:
            found.append(f"line {node.lineno}: filtered on kind {getattr(node.value, 'value', None)!r}")
    return found


def function_imports(source: str) -> list[str]:
    """Imports of first-party modules inside functions."""
    found = []
    for func in ast.walk(parse(source)):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["tournament (relative)"]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.split(".")[0] in FIRST_PARTY or name.endswith("(relative)"):
                    found.append(f"line {node.lineno} in {func.name}(): {name}")
    return found


def test_the_checks_find_what_they_look_for() -> None:
    """The two scanners below are not vacuous: they catch the shapes they forbid."""
    branchy = (
        "def f(stage, group, s):\n"
        "    if stage.kind == Stage.Kind.SWISS: pass\n"
        "    if group.kind == Group.Kind.SWISS: pass\n"
        "    if s.kind == 'knockout': pass\n"
        "    Stage.objects.filter(kind='swiss')\n"
        "    if group.kind == Group.Kind.PLAYOFF: pass\n"
    )
    assert len(kind_tests(branchy)) == 4  # a playoff group's kind is the group's shape, not the stage's format
    lazy = "def f():\n    from tournament.services import advance\n    import json\n    from . import x\n"
    assert len(function_imports(lazy)) == 2


def test_no_module_outside_the_formats_tests_a_stage_kind() -> None:
    offenders = {
        path.relative_to(ROOT).as_posix(): found
        for package in FIRST_PARTY
        for path in _sources(package)
        if not _formats_own(path) and (found := kind_tests(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
    pattern = re.compile(r"stage\.kind\s*[!=]=|kind\s*==\s*['\"](" + "|".join(sorted(STAGE_KINDS)) + ")['\"]")
    templates = {
        path.relative_to(ROOT).as_posix()
        for path in sorted(every_template())
        if pattern.search(path.read_text(encoding="utf-8"))
    }
    assert templates == set()


@pytest.mark.parametrize("package", ["tournament", "games", "ratings", "relay", "fairplay"])
def test_modules_import_each_other_at_the_top(package: str) -> None:
    """No first-party import inside a function anywhere in the app, except the app's ``ready`` (where Django
    wants the wiring done)."""
    offenders = {
        path.relative_to(ROOT).as_posix(): found
        for path in _sources(package)
        if path.name != "apps.py" and (found := function_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(packages: Sequence[str]) -> dict[str, set[str]]:
    """Module -> the first-party modules it imports when it is loaded (``from a.b import c`` is an edge to
    ``a.b.c`` when that is a module, else to ``a.b``, and to the package ``a.b`` whose ``__init__`` runs
    first; imports under ``if TYPE_CHECKING`` are not run)."""
    paths = {_module(path): path for package in packages for path in _sources(package)}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        edges = set()
        for node in parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    edges.add(full if full in paths else node.module)
            elif isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names}
        # importing a.b.c runs the package a.b first (its __init__), unless the importer is inside a.b
        parents = {".".join(edge.split(".")[:k]) for edge in edges for k in range(2, len(edge.split(".")))}
        edges |= {parent for parent in parents if not name.startswith(parent + ".")}
        graph[name] = {edge for edge in edges if edge in paths and edge != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import graph's strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_import_circle_in_the_apps() -> None:
    assert circles(import_graph(FIRST_PARTY)) == []


# The first house's rule: a module that grows past this is split along what it holds.
MODULE_LINES = 600


def test_no_module_of_the_application_is_over_600_lines() -> None:
    long = {
        path.relative_to(ROOT).as_posix(): lines
        for package in ("engine", *FIRST_PARTY, "devtools")
        for path in _sources(package)
        if "_build" not in path.parts and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_no_function_of_the_application_is_over_complexity_15() -> None:
    """mccabe's count, as ruff's C901 gives it (make lint runs the same check; this says where)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "C901", "--output-format", "concise", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout


def test_no_test_module_imports_another() -> None:
    """What tests share lives in fixtures (conftest.py) or helper modules, never in another test module (a
    script run in a subprocess included)."""
    pattern = re.compile(r"(from|import)\s+[\w.]*\btests\.test_\w+")
    offenders = [
        f"{path.relative_to(ROOT).as_posix()}: {match.group(0)}"
        for package in ("engine", *FIRST_PARTY)
        for path in sorted((ROOT / package).rglob("tests/**/*.py"))
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_private_helpers_are_not_imported_across_modules() -> None:
    offenders = []
    for package in FIRST_PARTY:
        for path in _sources(package):
            for node in ast.walk(parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in FIRST_PARTY:
                    offenders += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert offenders == []


# -- a format the rest of the code has never heard of ------------------------------------------------------


@pytest.mark.django_db
def test_a_format_registered_in_a_test_runs_a_whole_tournament(test_format: Any) -> None:
    sim = simulate(players=9, first_stage=RoundsThenFinal.kind, seed=3, draw_share=0.2)

    first, final = (report.stage for report in sim.stages)
    assert first.kind == RoundsThenFinal.kind and final.kind == FORMATS_FINAL
    matches = list(Match.objects.filter(group__stage=first, group__parent=None).exclude(status=Match.Status.CANCELLED))
    assert {m.round for m in matches} == set(range(1, 10))  # 9 players: 9 rounds, one sits out each
    pairs = [frozenset((m.first_id, m.second_id)) for m in matches]
    assert len(pairs) == len(set(pairs)) == 9 * 8 // 2  # everyone met everyone once
    assert all(m.status == Match.Status.FINISHED for m in matches)
    assert final.groups.get(parent=None).members.count() == 4
    assert sim.tournament.status == Tournament.Status.FINISHED
    ranked = sim.stages[0].tables[0]["rows"]
    assert sum(r["state"] == "qualified" for r in ranked) == 4


def test_every_receiver_is_connected_in_an_app_config() -> None:
    """Signals (Django's, Celery's) are connected in ``AppConfig.ready``, nowhere else (docs/architecture.md)."""
    offenders = []
    for package in FIRST_PARTY:
        for path in _sources(package):
            if path.name == "apps.py":
                continue
            for node in ast.walk(parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    for decorator in node.decorator_list:
                        text = ast.unparse(decorator)
                        if text.startswith("receiver") or text.endswith(".connect"):
                            offenders.append(f"{path.name}: @{text} on {node.name}")
                if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "connect":
                    owner = ast.unparse(node.func)
                    if not owner.startswith(("psycopg", "sqlite3", "websockets", "redis")):
                        offenders.append(f"{path.name}: {owner}(…) at line {node.lineno}")
    assert offenders == []


def test_the_shared_standings_and_control_panels_name_no_format() -> None:
    """The public standings and the control room's stage panels are the formats' declared parts
    (``page_part``, ``control_part``): the shared templates include whatever a stage's format names."""
    names = re.compile(r"swiss|teams?\b|bracket|knockout", re.IGNORECASE)
    standings = (ROOT / "templates" / "tournament" / "_standings.html").read_text(encoding="utf-8")
    assert names.findall(standings) == []
    room = (ROOT / "templates" / "tournament" / "control_room.html").read_text(encoding="utf-8")
    panels = room[room.index("{% for panel in panels %}") :]
    assert names.findall(panels.split("\n", 1)[0]) == []


SHARED_MODULES = [
    "tournament/views.py",
    "tournament/control.py",
    "tournament/selectors.py",
    "tournament/simulate.py",
    "tournament/api.py",
    "tournament/rounds_api.py",
    "tournament/round_control.py",
    "tournament/ranking.py",
    "tournament/standings.py",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tournament" / "services").glob("*.py")),
    "config/urls.py",
    "config/api_urls.py",
]
FORMAT_NAME = re.compile(r"swiss|team", re.IGNORECASE)


def format_names(source: str) -> list[str]:
    """Where code names a format: an import of a format's package, an identifier (a name, an attribute, a
    function, an argument, a keyword) or a string compared with something. Docstrings, comments and
    messages are prose; a preset's name as data (``PRESETS``) is a value, not a branch."""
    found = []
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.ImportFrom) and FORMAT_NAME.search(node.module or ""):
            found.append(f"line {node.lineno}: from {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if FORMAT_NAME.search(a.name)]
        elif isinstance(node, ast.Name | ast.Attribute | ast.FunctionDef | ast.arg | ast.keyword):
            name = {ast.Name: "id", ast.Attribute: "attr", ast.FunctionDef: "name", ast.arg: "arg", ast.keyword: "arg"}
            text = getattr(node, name[type(node)]) or ""
            if FORMAT_NAME.search(text):
                found.append(f"line {node.lineno}: {text}")
        elif isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant) and isinstance(side.value, str) and FORMAT_NAME.search(side.value):
                    found.append(f"line {node.lineno}: compared with {side.value!r}")
    return found


def _code(tag: str) -> str:
    """A template tag without its quoted text (prose in the user's language) and its template names."""
    return re.sub(r"\"[^\"]*\"|'[^']*'|{%\s*(block)?trans.*", "", tag)


def test_the_format_name_scanner_finds_what_it_looks_for() -> None:
    source = (
        "from tournament.swiss import views\nimport tournament.teams\n"
        "def f(team_stage):\n    if preset == 'swiss': x.swiss_pair(teams=1)\n"
        '    """A Swiss docstring."""\n    PRESETS = {"swiss": 1}\n'
    )
    assert len(format_names(source)) == 6


def test_the_shared_modules_and_templates_name_no_format() -> None:
    """Each format's pages, routes, tasks, panel actions, console part, notices and simulated field are its
    own package's, plugged in by what the format declares (``urls``, ``api_routes``, ``panel_actions``,
    ``control_pages``, ``console_part``, ``notices``, ``byes``, ``simulated_field``); the shared modules
    and templates only ask the formats. (A tie-break record's ``swiss``/``team`` computations are the
    competitor shapes a tie-break is computed for, in ``tournament/formats.py``, which is not listed.)"""
    offenders = {
        path: found for path in SHARED_MODULES if (found := format_names((ROOT / path).read_text(encoding="utf-8")))
    }
    assert offenders == {}
    own = re.compile(r"(^_?swiss|^_?teams?\b|^_?team_)")
    tags = re.compile(r"{%.*?%}|{{.*?}}", re.S)
    templates = {
        path.relative_to(ROOT).as_posix(): names
        for path in sorted(every_template())
        if not own.search(path.name)
        and (names := [t for t in tags.findall(path.read_text(encoding="utf-8")) if FORMAT_NAME.search(_code(t))])
    }
    assert templates == {}


ROUND_SERVICES = re.compile(r"^(swiss|teams?)_(pair|edit|publish|unpair)\w*$|^pair_(team_)?round$")


def test_every_round_by_round_format_lives_the_one_round_lifecycle() -> None:
    """No format opts out of the shared round service (tournament/services/rounds.py): nothing says it may
    (the old ``own_rounds``), and no module but that service defines a service that pairs, edits, publishes
    or unpairs a round (the Swiss system's and the team event's copies are gone)."""
    sources = [p for package in FIRST_PARTY for p in _sources(package) if "tests" not in p.parts]
    opt_out = re.compile(r"\bown_rounds\b")
    opt_outs = [p.relative_to(ROOT).as_posix() for p in sources if opt_out.search(p.read_text(encoding="utf-8"))]
    assert opt_outs == []
    copies = {
        p.relative_to(ROOT).as_posix(): names
        for p in sources
        if p.relative_to(ROOT).as_posix() != "tournament/services/rounds.py"
        and (
            names := [
                n.name
                for n in ast.walk(parse(p.read_text(encoding="utf-8")))
                if isinstance(n, ast.FunctionDef) and ROUND_SERVICES.match(n.name)
            ]
        )
    }
    assert copies == {}
    assert [n for n in ("swiss_pair", "swiss_publish", "team_unpair", "pair_team_round") if ROUND_SERVICES.match(n)]


def test_each_format_keeps_its_models_templates_and_admin_in_its_package() -> None:
    """The shared models (tournament/models/), templates (templates/) and admin define nothing of a format's
    own: a Swiss stage's byes, a team event's teams, matches and boards, their pages and parts live in
    tournament/swiss/ and tournament/teams/ (the app's model registry only loads them); no shared model has
    a column of a format's."""
    shared_models = {
        p.name: names
        for p in sorted((ROOT / "tournament" / "models").glob("*.py"))
        if (
            names := [
                n.name
                for n in parse(p.read_text(encoding="utf-8")).body
                if isinstance(n, ast.ClassDef) and FORMAT_NAME.search(n.name)
            ]
        )
    }
    assert shared_models == {}
    columns = {
        model.__name__: names
        for model in (Tournament, Stage, Group, Match)
        if (names := [f.name for f in model._meta.concrete_fields if FORMAT_NAME.search(f.name)])
    }
    assert columns == {}  # a team event's boards are its own rows (TeamBoard), not columns of the shared Match
    own = re.compile(r"(^_?swiss|^_?teams?\b|^_?team_|double_elimination)")
    shared_templates = [p.name for p in (ROOT / "templates").rglob("*.html") if own.search(p.name)]
    assert shared_templates == []
    admin = (ROOT / "tournament" / "admin.py").read_text(encoding="utf-8")
    assert format_names(admin) == []
