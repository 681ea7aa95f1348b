"""``manage.py backup [FILE] [--keep N]``: a consistent copy of the database while the system runs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournament.backup import BackupError, backup, rotate


class Command(BaseCommand):
    help = "Copy the database consistently while the system runs (SQLite online backup, or pg_dump)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="where to write it (default: var/backups/backup-<time>)")
        parser.add_argument("--keep", type=int, default=0, help="then keep only the newest N in var/backups/")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            path = backup(options["file"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        removed = rotate(options["keep"]) if options["keep"] > 0 else []
        self.stdout.write(f"backup written: {path} ({path.stat().st_size} bytes)")
        if removed:
            self.stdout.write(f"older backups removed: {len(removed)}")
