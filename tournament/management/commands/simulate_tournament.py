"""``manage.py simulate_tournament --players 22 --preset seed --seed 7``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournament.services import PRESETS
from tournament.simulate import format_tables, simulate
from tournament.stage_formats import FORMATS


class Command(BaseCommand):
    help = "Run a whole tournament with random results through the real services and print every table."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=22)
        parser.add_argument("--preset", default="seed")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--first-stage", default="", help="the first stage's format (default: the preset's)")
        parser.add_argument("--team-boards", type=int, default=4, help="boards per team (--preset teams)")
        parser.add_argument(
            "--team-system",
            default="swiss",
            choices=["swiss", "round_robin", "double_round_robin"],
            help="how teams are paired (--preset teams; --players is then the number of teams)",
        )
        parser.add_argument("--rounds", type=int, default=7, help="rounds of a Swiss stage (--preset swiss)")
        parser.add_argument("--draws", type=float, default=0.15, help="share of drawn games (below 1)")
        parser.add_argument(
            "--corrections", type=int, default=0, help="organizer overrides applied to each stage after it is played"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] < 2:
            raise CommandError("--players: a tournament needs at least two players")
        if not 0 <= options["draws"] < 1:
            raise CommandError("--draws: a share from 0 up to, not including, 1 (all draws: playoffs could never end)")
        if not 1 <= options["rounds"] <= 30:
            raise CommandError("--rounds: from 1 to 30")
        if options["corrections"] < 0:
            raise CommandError("--corrections: a count of 0 or more")
        if options["first_stage"] and options["first_stage"] not in FORMATS:
            raise CommandError(f"--first-stage: one of {', '.join(FORMATS)}")
        if options["preset"] not in PRESETS:
            raise CommandError(f"--preset: one of {', '.join(PRESETS)}")
        sim = simulate(
            players=options["players"],
            preset=options["preset"],
            first_stage=options["first_stage"],
            stage_options=(
                {"boards": options["team_boards"], "system": options["team_system"]}
                if options["preset"] == "teams"
                else None
            ),
            seed=options["seed"],
            draw_share=options["draws"],
            corrections=options["corrections"],
            rounds=options["rounds"],
            on_stage=lambda report: self.stdout.write(format_tables(report)),
        )
        final = sim.stages[-1].tables[0]["rows"]
        self.stdout.write("== Final ranking ==")
        for row in final:
            self.stdout.write(f"{row['rank']:>3}  {row['player']} ({row['unit']})  {row['points']} pts")
