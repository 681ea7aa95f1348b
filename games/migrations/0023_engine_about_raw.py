"""An engine's ABOUT line is kept as it came for organizers (``about_raw``); only its name and version, cleaned
and short, stay public (``about``): an engine once published the server's secret key as its ABOUT."""

from django.db import migrations, models

from engine.gomocup import public_about


def split_about(apps, schema_editor):
    Engine = apps.get_model("games", "Engine")
    for engine in Engine.objects.all():
        engine.about_raw = engine.about
        engine.about = public_about(engine.about)
        engine.save(update_fields=["about", "about_raw"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0022_player_owner"),
    ]

    operations = [
        migrations.AddField(
            model_name="engine",
            name="about_raw",
            field=models.CharField(
                blank=True,
                help_text="the engine's ABOUT line as it wrote it, for organizers only: never published",
                max_length=300,
                verbose_name="ABOUT as answered",
            ),
        ),
        migrations.AlterField(
            model_name="engine",
            name="about",
            field=models.CharField(
                blank=True,
                help_text="the name and version its ABOUT answer gives, cleaned and short (public)",
                max_length=300,
                verbose_name="about",
            ),
        ),
        migrations.RunPython(split_about, migrations.RunPython.noop),
    ]
