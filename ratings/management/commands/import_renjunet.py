"""``manage.py import_renjunet renjunet_v10_20261101.rif [--recompute]``: RenjuNet's database as a rating
base and player registry. A newer file converges the database to it and says what changed; the same file
again changes nothing (run it again to go on after an interruption). ``--recompute`` after a newer file."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ratings.models import RatingList
from ratings.renjunet import RifImportError, import_database
from ratings.services import recompute


class Command(BaseCommand):
    help = "Import a RenjuNet .rif database: players, tournaments and rated games."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--batch", type=int, default=5000, help="games written per transaction")
        parser.add_argument("--recompute", action="store_true", help="recompute every rating list afterwards")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()

        def progress(done: int, total: int) -> None:
            width = 30
            filled = width * done // max(total, 1)
            self.stdout.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games", ending="")
            self.stdout.flush()

        try:
            with open(options["path"], "rb") as source:
                report = import_database(source, batch=options["batch"], progress=progress)
        except OSError as exc:
            raise CommandError(f"{options['path']}: {exc.strerror}") from None
        except RifImportError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write("")
        self.stdout.write(
            f"players={report.players} tournaments={report.tournaments} games_new={report.games_new} "
            f"games_known={report.games_known} games_unrated={report.games_unrated} "
            f"seconds={time.perf_counter() - started:.1f}"
        )
        self.stdout.write(f"changed: {report.changes()}")
        if options["recompute"]:
            for rating_list in RatingList.objects.all():
                rated = recompute(rating_list=rating_list)
                self.stdout.write(f"{rating_list.name}: {rated} players rated")
