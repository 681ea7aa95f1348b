"""``manage.py venue_check [--lock-demo]``: refuse (exit 1) while any account has the demo password, before
the server listens on the venue's network (scripts/run.py --venue runs it). ``--lock-demo`` takes the demo
password away from every account that has it."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournament.venue import demo_password_accounts, lock_demo_accounts, organizer_accounts


class Command(BaseCommand):
    help = "Refuse to face the hall while an account has the demo password."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--lock-demo", action="store_true", help="remove the demo password from every account")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["lock_demo"]:
            locked = lock_demo_accounts()
            self.stdout.write(f"demo password removed from {len(locked)} accounts: {', '.join(locked) or 'none'}")
        hits = demo_password_accounts(first_only=True)
        if hits:
            raise CommandError(
                f"the account {hits[0]!r} still has the demo password printed in the README, and in venue mode every "
                "phone on the Wi-Fi could sign in with it. Create your own organizer account "
                "(manage.py createorganizer), then remove the demo password (manage.py venue_check --lock-demo)."
            )
        if not organizer_accounts():
            self.stdout.write(
                "No organizer account with a password yet: create one with  .venv/bin/python manage.py createorganizer"
            )
        self.stdout.write("venue check: no account has the demo password")
