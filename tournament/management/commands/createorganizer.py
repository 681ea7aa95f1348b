"""``manage.py createorganizer [--username NAME]``: the organizer's own account for the event day (a site
organizer, with the admin), its password asked twice at the prompt (or read from the environment variable
named by ``--password-from``), checked by the password validators and never the demo password.
``--if-none`` does nothing when an organizer account with a password exists already (``make venue``)."""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from tournament.demo import DEMO_PASSWORD
from tournament.roles import ORGANIZER, sync_roles
from tournament.venue import organizer_accounts


class Command(BaseCommand):
    help = "Create (or reset) the organizer's own account."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="", help="the account's name (asked when not given)")
        parser.add_argument("--password-from", default="", help="read the password from this environment variable")
        parser.add_argument("--if-none", action="store_true", help="only when no organizer account exists yet")

    def handle(self, *args: Any, **options: Any) -> None:
        existing = organizer_accounts()
        if options["if_none"] and existing:
            self.stdout.write(f"organizer accounts: {', '.join(existing)}")
            return
        interactive = sys.stdin.isatty() and not options["password_from"]
        username = options["username"] or (input("Organizer username: ").strip() if interactive else "")
        if not username:
            raise CommandError("give --username (and --password-from VAR when there is no terminal to ask at)")
        if options["password_from"]:
            password = os.environ.get(options["password_from"], "")
        elif interactive:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("the two passwords differ")
        else:
            raise CommandError(f"no terminal to ask for {username}'s password at: use --password-from VAR")
        if password == DEMO_PASSWORD:
            raise CommandError("that is the demo password printed in the README: choose your own")
        user = User.objects.filter(username=username).first() or User(username=username)
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        with transaction.atomic():
            groups = sync_roles()
            user.set_password(password)
            user.is_staff = True
            user.is_active = True
            user.save()
            user.groups.add(groups[ORGANIZER])
        self.stdout.write(f"organizer account {username!r} ready: sign in at /accounts/login/")
