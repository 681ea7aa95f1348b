"""Refit the fair-play null model (fairplay/calibration.json) when the engine or the screening's settings change:
``manage.py fairplay_calibrate [--games 60] [--held-out 30] [--jobs 2] [--records | --records-from T ...]
[--output PATH]``
(about fifteen minutes on two cores). ``--records`` adds every finished over-the-board game of two rated players
entered as a record as an honest reference (``--records-from``: those of these tournaments only;
fairplay/references.py); the summary then says how they scored against the synthetic-only fit. ``--output``
writes the file elsewhere (to look at before replacing the shipped one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from fairplay.calibrate import calibrate
from fairplay.references import reference_sides
from fairplay.screening import SETTINGS
from fairplay.stats import CALIBRATION


class Command(BaseCommand):
    help = "Refit the fair-play null model on honest games and write fairplay/calibration.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=60, help="synthetic honest games a band to fit on")
        parser.add_argument("--held-out", type=int, default=30, help="synthetic honest games a band to test the fit on")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--jobs", type=int, default=2, help="processes (a game's screening is single-threaded)")
        parser.add_argument(
            "--records", action="store_true", help="add over-the-board games of rated players as honest references"
        )
        parser.add_argument(
            "--records-from", type=int, nargs="+", metavar="TOURNAMENT", help="only those of these tournaments"
        )
        parser.add_argument("--output", type=Path, default=CALIBRATION, help="where to write it (the shipped file)")

    def handle(self, *args: Any, **options: Any) -> None:
        references = None
        if options["records"] or options["records_from"]:
            references = reference_sides(SETTINGS, options["records_from"])
            found = {"/".join(filter(None, key)): len(sides) for key, sides in references.items()}
            self.stdout.write(f"honest references from records (player-games a band): {found or 'none'}")
        fitted = calibrate(
            options["games"],
            seed=options["seed"],
            held_out=options["held_out"],
            jobs=options["jobs"],
            references=references,
            settings=SETTINGS,
        )
        fitted.save(options["output"])
        self.stdout.write(f"calibration: {fitted.summary} rho={fitted.rho} -> {options['output']}")
