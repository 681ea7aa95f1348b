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
        self.stdout.write(
            "Sessions and API tokens are not in backups: everyone signs in again (private links still work).\n"
            "If this file was ever out of your hands, rotate what it holds (docs/security.md, Backups):\n"
            "  every password (manage.py changepassword NAME), the players' private links (control room,\n"
            "  Players: a new link each), and SECRET_KEY (delete var/secret_key or set a new one)."
        )
