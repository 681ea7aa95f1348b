"""Is this system fit to face the hall? In venue mode the server listens on the Wi-Fi, where every phone can
try the demo password printed in the README: it refuses to start while any account still has it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q

from tournament.demo import DEMO_PASSWORD, demo_accounts
from tournament.roles import ORGANIZER


def _candidates() -> list[User]:
    """Accounts that may hold the demo password: the demo's names, and every staff or superuser account."""
    names = [name for name, _role, _display in demo_accounts()]
    found = User.objects.filter(Q(username__in=names) | Q(is_staff=True) | Q(is_superuser=True)).order_by("pk")
    return [user for user in found if user.has_usable_password()]


def demo_password_accounts(first_only: bool = False) -> list[str]:
    """Usernames whose password is the demo password (the first one found, with ``first_only``)."""
    hits = []
    for user in _candidates():
        if user.check_password(DEMO_PASSWORD):
            hits.append(user.username)
            if first_only:
                break
    return hits


def lock_demo_accounts() -> list[str]:
    """Every account with the demo password gets none (no password login; the organizer can set a new one)."""
    locked = []
    for user in _candidates():
        if user.check_password(DEMO_PASSWORD):
            user.set_unusable_password()
            user.save(update_fields=["password"])
            locked.append(user.username)
    return locked


def organizer_accounts() -> list[str]:
    """Accounts that can run the event and sign in with a password: superusers and site organizers."""
    found = User.objects.filter(Q(is_superuser=True) | Q(groups__name=ORGANIZER), is_active=True).distinct()
    return [user.username for user in found if user.has_usable_password()]
