"""Refit the fair-play null model (fairplay/calibration.json) on honest synthetic games, when the engine or the
screening's settings change: ``manage.py fairplay_calibrate [--games 60] [--held-out 30] [--jobs 2]`` (about ten
minutes on two cores)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from fairplay.calibrate import calibrate
from fairplay.stats import CALIBRATION


class Command(BaseCommand):
    help = "Refit the fair-play null model on honest synthetic games and write fairplay/calibration.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=60, help="honest games a band to fit on")
        parser.add_argument("--held-out", type=int, default=30, help="honest games a band to test the fit on")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--jobs", type=int, default=2, help="processes (a game's screening is single-threaded)")

    def handle(self, *args: Any, **options: Any) -> None:
        fitted = calibrate(options["games"], seed=options["seed"], held_out=options["held_out"], jobs=options["jobs"])
        fitted.save(CALIBRATION)
        self.stdout.write(f"calibration: {fitted.summary} rho={fitted.rho} -> {CALIBRATION}")
