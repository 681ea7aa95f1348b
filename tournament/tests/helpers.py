"""Builders for tournament tests: a drawn and started tournament, games won or drawn, corrections, and
the state a tournament should have, recomputed from scratch from its games."""

from __future__ import annotations

import ast
import atexit
import functools
import os
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

from django.conf import settings

from games.enums import GameStatus
from games.models import Game, Player
from games.services import game_confirm_result, game_report_result
from tournament import formats, services
from tournament.models import Entry, Group, Match, Round, Stage, Tournament
from tournament.services import rounds as cycle
from tournament.stage_formats import group_order, stage_standings
from tournament.swiss import trf
from tournament.swiss.state import SwissState

ROOT = Path(__file__).resolve().parents[2]
OPEN = [GameStatus.PENDING, GameStatus.OPENING, GameStatus.PLAYING]


def started(players: int, seed: int = 5, **fields: Any) -> tuple[Tournament, Stage]:
    tournament = services.tournament_create(name="校际赛", **fields)
    for n in range(1, players + 1):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n:02d}"))
    stage = tournament.stages.get(order=1)
    services.draw_stage(stage=stage, seed=seed)
    services.start_stage(stage=stage)
    tournament.refresh_from_db()
    return tournament, stage


def online_swiss(players: int, name: str = "Online open", owner: Any = None) -> Tournament:
    """A Swiss tournament played online at the seed's quick play, ``players`` entered and published."""
    tournament = services.tournament_create(
        name=name,
        preset="swiss",
        stage_options={"rounds": 3},
        mode="online",
        time_control={"preset": "quick"},
        rules="freestyle",
        protocol="none",
        boards=players,
        actor=owner,
    )
    for n in range(players):
        player = Player.objects.create(name=f"{name[:3]}{n:02d}", rating=2000 - n)
        services.register(tournament=tournament, player=player)
    services.publish(tournament=tournament)
    return tournament


def colour_of(game: Game, player: Player) -> str:
    return "black" if game.black_id == player.pk else "white"


def win(game: Game, winner: Player | None) -> Game:
    """Report and confirm: ``winner`` wins (None: a draw)."""
    result = "draw" if winner is None else colour_of(game, winner)
    game_report_result(
        game_id=game.pk, reporter=game.black, result=result, reason="agreement" if winner is None else "five"
    )
    game_confirm_result(game_id=game.pk, player=game.white)
    return Game.objects.get(pk=game.pk)


def correct(game: Game, winner: Player | None, confirm: str = "") -> Game:
    """The organizer's correction: ``winner`` wins (None: a draw); ``confirm``: the reason, when the
    tournament asks for one."""
    result = "draw" if winner is None else colour_of(game, winner)
    return services.correct_result(
        game_id=game.pk,
        result=result,
        reason="agreement" if winner is None else "referee",
        note=confirm or "scoresheet misread",
        confirm=bool(confirm),
    )


def open_game(match: Match) -> Game | None:
    return Game.objects.filter(match_game__match=match, status__in=OPEN).first()


def match_games(match: Match) -> list[Game]:
    return list(Game.objects.filter(match_game__match=match).order_by("match_game__number"))


def play_all(tournament: Tournament, pick: Any) -> None:
    """Play every open game of the tournament until none is left: ``pick(game)`` names the winner or None."""
    for _round in range(500):
        games = list(
            Game.objects.filter(match_game__match__tournament=tournament, status__in=OPEN)
            .select_related("black", "white")
            .order_by("pk")
        )
        if not games:
            return
        for game in games:
            win(game, pick(game))
    raise AssertionError("games never ran out")


def best_of_group(stage: Stage) -> Group:
    return stage.groups.get(kind=Group.Kind.BEST_OF, parent__isnull=True)


def expected_match(match: Match) -> tuple[str, int | None]:
    """A match's status and winner computed from scratch from its games."""
    games = [g for g in match_games(match) if g.status != GameStatus.CANCELLED]
    finished = [g for g in games if g.status == GameStatus.FINISHED]
    if not match.best_of:
        return ("finished" if len(finished) >= match.games_planned else "open", None)
    results: list[int | None] = []
    for g in finished:
        if g.result == "draw":
            results.append(None)
        else:
            winner = g.black_id if g.result == "black" else g.white_id
            results.append(0 if winner == match.first.player_id else 1)
    limit = match.tournament.playoff_draw_limit if match.group.kind == Group.Kind.PLAYOFF else 0
    score = formats.best_of(results, match.games_planned, match.sudden_death, draw_limit=limit)
    done = formats.match_complete(score, match.games_planned, match.sudden_death)
    winner = None if score.winner is None else (match.first_id, match.second_id)[score.winner]
    return ("finished" if done else "open", winner)


def assert_consistent(tournament: Tournament) -> None:
    """Every stored conclusion agrees with the games: matches, and each finished stage's qualifiers are
    exactly the next stage's entrants."""
    for match in Match.objects.filter(tournament=tournament).exclude(status=Match.Status.CANCELLED):
        status, winner = expected_match(match)
        stored = "finished" if match.status == Match.Status.FINISHED else "open"
        assert (stored, match.winner_id) == (status, winner), f"match {match.pk}"
        if status == "finished":
            assert open_game(match) is None
    for root in Group.objects.filter(stage__tournament=tournament, parent__isnull=True, void=False):
        order = group_order(root)
        if order.unplayed:
            continue
        live = set(Group.objects.filter(root=root, void=False).values_list("pk", flat=True))
        assert live == order.used, f"group {root.name}: playoffs {live} but the order rests on {order.used}"
        assert not order.undecided, f"group {root.name}: a tie without a playoff"
    for stage in tournament.stages.filter(status=Stage.Status.FINISHED).order_by("order"):
        following = tournament.stages.filter(order=stage.order + 1).first()
        if following is None:
            continue
        shown = sorted(r["entry"] for t in stage_standings(stage) for r in t["rows"] if r["state"] == "qualified")
        drawn = sorted(following.options["entries"])
        assert shown == drawn
        if following.status != Stage.Status.PENDING:
            members = sorted(
                e for g in following.groups.filter(parent__isnull=True) for e in g.members.values_list("pk", flat=True)
            )
            assert members == drawn


def play_round(stage: Stage, rng: random.Random) -> None:
    """Every open game of the stage: the first-named (black) wins, white wins or a draw, by ``rng``."""
    for _ in range(50):
        games = list(
            Game.objects.filter(match_game__match__group__stage=stage, status__in=OPEN).select_related("black", "white")
        )
        if not games:
            return
        for game in games:
            win(game, rng.choice([game.black, game.white, None]))
    raise AssertionError("games never ran out")


def pair_and_publish(stage: Stage) -> Round:
    rnd = cycle.round_pair(stage=stage)
    cycle.round_publish(stage=stage, number=rnd.number)
    return Round.objects.get(pk=rnd.pk)


HEADER = "012 hand\nXXR {rounds}\nXXC white1\n"


def state_of(rounds: int, *lines: str) -> SwissState:
    """A state from TRF player lines written by hand: number, name, rating, then (opponent, role, result)
    per round, in the fixed columns of the format."""
    body = []
    for line in lines:
        number, name, rating, *games = line.split()
        cells = "".join(
            f"  {'0000' if opp == '-' else int(opp):>4} {role} {res}"
            for opp, role, res in zip(*[iter(games)] * 3, strict=True)
        )
        body.append(f"001 {int(number):4d}      {name:<33}{int(rating):4d}{'':29}{'0.0':>4}{int(number):5d}{cells}")
    return trf.read(HEADER.format(rounds=rounds) + "\n".join(body) + "\n")


def pdf_text_and_fonts(body: bytes) -> tuple[str, set[str]]:
    """The text of a PDF and the fonts embedded in it (read back with pypdf)."""
    import io

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(body))
    text = "".join(page.extract_text() for page in reader.pages)
    embedded = set()
    for page in reader.pages:
        resources: Any = page["/Resources"]
        for reference in (resources.get("/Font") or {}).values():
            font: Any = reference.get_object()
            for descendant in font.get("/DescendantFonts", [font]):
                descriptor = descendant.get_object().get("/FontDescriptor")
                if descriptor is not None and any(
                    k in descriptor.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3")
                ):
                    embedded.add(str(font.get("/BaseFont")))
    return text, embedded


FRESH_PARSE = "import ast, pickle, sys; sys.stdout.buffer.write(pickle.dumps(ast.parse(sys.stdin.read())))"


def parse(source: str) -> ast.Module:
    """``ast.parse``; on CPython 3.11's "AST constructor recursion depth mismatch" (a bug of its recursion
    bookkeeping, gh-106905, left behind in this process by an earlier deep recursion or a change of the
    recursion limit) the source is parsed in a fresh interpreter instead."""
    try:
        return ast.parse(source)
    except SystemError:
        done = subprocess.run(
            [sys.executable, "-c", FRESH_PARSE],
            input=source.encode(),
            capture_output=True,
            check=True,
        )
        tree = pickle.loads(done.stdout)
        assert isinstance(tree, ast.Module)
        return tree


def entered(tournament: Tournament, count: int) -> list[Entry]:
    return [
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n:02d}", rating=2000 - n))
        for n in range(1, count + 1)
    ]


@functools.cache
def migrated_database() -> Path:
    """A database file migrated once for this test process (a migration takes about 15 s), which each
    simulation's fresh interpreter copies into its own in-memory database instead of migrating again."""
    folder = Path(tempfile.mkdtemp(prefix="migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "migrated.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}"}
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return path


def simulations(hash_seed: str, loop: str, args: list[str], timeout: int) -> str:
    """The printed reports of ``simulate_tournament`` run in a fresh interpreter with ``PYTHONHASHSEED`` set
    (a new in-memory database, a copy of one just migrated): ``loop`` is the script's loop calling the command
    (``sys.argv`` = ``args``)."""
    script = (
        "import django, os, sys, io, sqlite3\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "from django.db import connection\n"
        "connection.ensure_connection()\n"
        "migrated = sqlite3.connect(os.environ['MIGRATED_DATABASE'])\n"
        "migrated.backup(connection.connection)\n"
        "migrated.close()\n" + loop
    )
    env = {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "DATABASE_URL": "sqlite://:memory:",
        "MIGRATED_DATABASE": str(migrated_database()),
    }
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def every_template() -> list[Path]:
    """Every template the site renders: its own folder and each format package's (the settings' DIRS), and
    each first-party app's own (``APP_DIRS``: the relay's)."""
    root = Path(__file__).resolve().parents[2]
    folders = [*cast(list[Path], settings.TEMPLATES[0]["DIRS"]), *root.glob("*/templates")]
    return sorted({path for folder in folders for path in Path(folder).rglob("*.html")})
