"""Run a whole tournament through the real services with random results.

Deterministic for a given seed: the draws take their seeds from one RNG and
the results come from it too. Used by ``manage.py simulate_tournament``,
``bench/tournament.py`` and the end-to-end tests.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.enums import GameStatus
from games.models import Game, Player
from games.services import game_confirm_result, game_override, game_report_result
from tournament import services
from tournament.models import Stage, Tournament
from tournament.services.setup import FIRST_STAGE
from tournament.stage_formats import FORMATS, format_of

UNITS = ["一中", "二中", "实验中学", "外国语学校", "师大附中", "棋院", "少年宫", "科技大学"]


@dataclass
class StageReport:
    stage: Stage
    tables: list[dict[str, Any]]
    seconds: float = 0.0


@dataclass
class Simulation:
    tournament: Tournament
    stages: list[StageReport] = field(default_factory=list)


def simulate(
    *,
    players: int = 22,
    preset: str = "seed",
    first_stage: str = "",
    seed: int = 7,
    draw_share: float = 0.15,
    boards: int | None = None,
    corrections: int = 0,
    on_stage: Callable[[StageReport], None] | None = None,
    rounds: int = 7,
    on_round: Callable[[int, float], None] | None = None,
    stage_options: dict[str, object] | None = None,
) -> Simulation:
    """``corrections``: after each stage is played out, the organizer overrides that many finished games
    (chosen by the same generator) and whatever they reopen is played out before the stage advances.
    The first stage's format sets its options (``rounds``, then ``stage_options``) and the field: with a
    team event, ``players`` is the number of teams (each a squad of its boards and one reserve, the lineups
    the standing orders)."""
    if not 0 <= draw_share < 1:
        raise ValueError("the share of drawn games must be at least 0 and below 1, or playoffs could never end")

    rng = random.Random(seed)
    first = FORMATS.get(first_stage or FIRST_STAGE.get(preset, ""))  # unknown: tournament_create refuses it
    options = first.simulated_options(rounds, stage_options or {}) if first else stage_options
    squad = first.squad_size(options or {}) if first else 1
    people = players * squad
    tournament = services.tournament_create(
        name=f"模拟赛 Simulated ({players} {first.competitors if first else 'players'}, seed {seed})",
        preset=preset,
        first_stage=first_stage,
        boards=boards or (people // 2 + 1 if first and first.round_by_round else max(6, players // 8)),
        stage_options=options,
    )
    entrants = Player.objects.bulk_create(
        [
            Player(name=f"棋手{n:04d}", unit=rng.choice(UNITS), rating=rng.randint(1200, 2400))
            for n in range(1, people + 1)
        ]
    )
    if first is not None:
        first.simulated_field(tournament, [entrants[n * squad : (n + 1) * squad] for n in range(players)])
    for player in entrants:
        services.register(tournament=tournament, player=player)
    services.publish(tournament=tournament)
    result = Simulation(tournament)
    stage: Stage | None = tournament.stages.get(order=1)
    while stage is not None:
        started = time.perf_counter()
        stage = services.draw_stage(stage=stage, seed=rng.randrange(2**31))  # with what the draw recorded
        stage = services.start_stage(stage=stage)
        stage_format = format_of(stage)
        number = 0
        while _rounds_left(stage_format, stage, number):  # a round-by-round format's rounds
            number += 1
            began = time.perf_counter()
            services.pair_next_round(stage=stage)
            if on_round:
                on_round(number, time.perf_counter() - began)
            _play_out(tournament, rng, draw_share)
        _play_out(tournament, rng, draw_share)
        for _n in range(corrections):
            _correct_one(stage, rng)
            _play_out(tournament, rng, draw_share)
        report = StageReport(stage, stage_format.printed_tables(stage))
        stage = services.advance(stage=stage)
        report.seconds = time.perf_counter() - started
        result.stages.append(report)
        if on_stage:
            on_stage(report)
    tournament.refresh_from_db()
    return result


def _rounds_left(stage_format: Any, stage: Stage, paired: int) -> bool:
    """Whether a round-by-round stage has another round to pair (a bracket knows only when it is complete)."""
    if not stage_format.round_by_round:
        return False
    planned = stage_format.planned_rounds(stage)
    return paired < planned if planned else paired < 200  # unknown in advance: until the stage says it is complete


def _play_out(tournament: Tournament, rng: random.Random, draw_share: float) -> None:
    """Report and confirm a result for every game on a board until none is left."""
    while True:
        games = list(
            Game.objects.filter(match_game__match__tournament=tournament, status__in=GameStatus.active())
            .select_related("black", "white")
            .order_by("pk")
        )
        if not games:
            return
        for game in games:
            if rng.random() < draw_share:
                result, reason = "draw", "agreement"
            else:
                result, reason = rng.choice(["black", "white"]), "five"
            assert game.black is not None and game.white is not None  # colours are known once a game is called
            game_report_result(game_id=game.pk, reporter=game.black, result=result, reason=reason)
            game_confirm_result(game_id=game.pk, player=game.white)


def _correct_one(stage: Stage, rng: random.Random) -> None:
    """The organizer overrides one finished game of the stage with another result."""
    games = list(
        Game.objects.filter(match_game__match__group__stage=stage, status=GameStatus.FINISHED)
        .exclude(match_game__match__status="cancelled")
        .order_by("pk")
    )
    if not games:
        return
    game = rng.choice(games)
    result = rng.choice([r for r in ("black", "white", "draw") if r != game.result])
    reason = "agreement" if result == "draw" else "referee"
    game_override(game_id=game.pk, result=result, reason=reason, note="simulated correction")


def format_tables(report: StageReport) -> str:
    lines = [f"== {report.stage.name} =="]
    stage_format = format_of(report.stage)
    for table in report.tables:
        lines += stage_format.report_lines(table)
    return "\n".join(lines)
