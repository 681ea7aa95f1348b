"""``manage.py restore FILE [--force]``: the database replaced by a backup (refused over a database that
holds anything, unless forced)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournament.backup import BackupError, restore


class Command(BaseCommand):
    help = "Replace the database with a backup made by `manage.py backup`."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--force", action="store_true", help="replace a database that is not empty")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            held = restore(options["file"], force=options["force"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        replaced = ", ".join(f"{n} {label}" for label, n in held.items() if n) or "an empty database"
        self.stdout.write(f"restored {options['file']} (it replaced {replaced})")
