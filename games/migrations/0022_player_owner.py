"""Players belong where they were entered (docs/security.md): each player entered by a tournament organizer
(group ``host``) is kept by that organizer. A player already entered is given to the first organizer listed on
the tournament of their first entry, unless that organizer is a site organizer (whose players are the
register's)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def keepers_from_entries(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    Entry = apps.get_model("tournament", "Entry")
    Organizers = apps.get_model("tournament", "Tournament").organizers.through
    site = set(
        apps.get_model(settings.AUTH_USER_MODEL.split(".")[0], settings.AUTH_USER_MODEL.split(".")[1])
        .objects.filter(models.Q(is_superuser=True) | models.Q(groups__name="organizer"))
        .values_list("pk", flat=True)
    )
    first_entry = {}
    for player_id, tournament_id in Entry.objects.order_by("pk").values_list("player_id", "tournament_id"):
        first_entry.setdefault(player_id, tournament_id)
    first_organizer = {}
    for tournament_id, user_id in Organizers.objects.order_by("pk").values_list("tournament_id", "user_id"):
        first_organizer.setdefault(tournament_id, user_id)
    for player_id, tournament_id in first_entry.items():
        keeper = first_organizer.get(tournament_id)
        if keeper is not None and keeper not in site:
            Player.objects.filter(pk=player_id).update(owner_id=keeper)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_absent_deadline_index"),
        ("tournament", "0018_correction_consent"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                help_text=(
                    "the organizer who entered this player and keeps their record; empty: the server's register, "
                    "kept by site organizers (docs/security.md)"
                ),
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="kept_players",
                to=settings.AUTH_USER_MODEL,
                verbose_name="kept by",
            ),
        ),
        migrations.RunPython(keepers_from_entries, migrations.RunPython.noop),
    ]
