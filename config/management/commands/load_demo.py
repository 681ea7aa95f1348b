"""Load the demo accounts, the demo tournament (its first boards relayed live), the team event and the
double elimination.

Idempotent: running it twice leaves one copy of everything. Passwords are
demo credentials for a local machine and are printed by ``make run``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from relay.demo import load_demo_relay
from tournament.demo import DEMO_PASSWORD, demo_accounts
from tournament.demo_tournament import load_demo_double_elimination, load_demo_team_event, load_demo_tournament
from tournament.roles import ORGANIZER, sync_roles


class Command(BaseCommand):
    help = "Create the demo organizer, referees and players (idempotent)."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        groups = sync_roles()
        user_model = get_user_model()
        created = 0
        for username, role, display in demo_accounts():
            user, was_created = user_model.objects.get_or_create(username=username, defaults={"first_name": display})
            if was_created:
                user.set_password(DEMO_PASSWORD)
                created += 1
            user.is_staff = role == ORGANIZER
            user.save()
            user.groups.add(groups[role])
        self.stdout.write(f"demo data: {created} accounts created, {len(demo_accounts())} in all")
        tournament = load_demo_tournament()
        self.stdout.write(f"demo tournament: {tournament.name} (#{tournament.pk})")
        relayed = load_demo_relay(tournament)
        self.stdout.write(f"demo relay: {relayed} boards at /t/{tournament.pk}/relay/")
        teams = load_demo_team_event()
        self.stdout.write(f"demo team event: {teams.name} (#{teams.pk})")
        double = load_demo_double_elimination()
        self.stdout.write(f"demo double elimination: {double.name} (#{double.pk})")
