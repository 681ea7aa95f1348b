"""The three roles as Django groups, and the permissions each one holds.

Permissions are granted by app label and action, so models added later are
covered the next time ``migrate`` runs (we hook ``post_migrate``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, Permission

ORGANIZER = "organizer"  # a site organizer: runs every tournament (a club's own server)
HOST = "host"  # a tournament organizer: creates tournaments and runs those it is listed on (a shared server)
REFEREE = "referee"
PLAYER = "player"

APP_LABELS = ("games", "tournament")

# role -> (actions on every model of APP_LABELS, extra "app.codename" perms)
ROLE_ACTIONS: dict[str, tuple[set[str], set[str]]] = {
    ORGANIZER: (
        {"view", "add", "change", "delete", "override"},
        {"auth.view_user", "auth.add_user", "auth.change_user"},
    ),
    HOST: (set(), {"tournament.add_tournament"}),
    REFEREE: ({"view"}, set()),
    PLAYER: ({"view"}, set()),
}
# Referees additionally change the game-level objects they rule on.
REFEREE_CHANGE_MODELS = {"game", "forbiddenclaim", "resultreport"}


def _permissions_for(role: str) -> list[Permission]:
    actions, extra = ROLE_ACTIONS[role]
    perms = []
    for perm in Permission.objects.filter(content_type__app_label__in=APP_LABELS).select_related("content_type"):
        action = perm.codename.split("_", 1)[0]
        if action in actions or (
            role == REFEREE and action == "change" and perm.content_type.model in REFEREE_CHANGE_MODELS
        ):
            perms.append(perm)
    for dotted in extra:
        app_label, codename = dotted.split(".")
        perms.extend(Permission.objects.filter(content_type__app_label=app_label, codename=codename))
    return perms


def sync_roles() -> dict[str, Group]:
    """Create the groups if missing and set their permissions; idempotent."""
    groups = {}
    for role in ROLE_ACTIONS:
        group, _created = Group.objects.get_or_create(name=role)
        group.permissions.set(_permissions_for(role))
        groups[role] = group
    return groups


def sync_roles_after_migrate(sender: Any, **kwargs: Any) -> None:
    if getattr(sender, "name", None) == "tournament":
        sync_roles()
