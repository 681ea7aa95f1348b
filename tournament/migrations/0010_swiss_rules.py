"""Swiss stages already under way keep the Dutch rules they began with (until January 2026); new stages
are paired by the 2026 rules unless their organizer chooses otherwise."""

from django.db import migrations


def keep_running_stages_on_their_rules(apps, schema_editor):
    Stage = apps.get_model("tournament", "Stage")
    SwissRound = apps.get_model("tournament", "SwissRound")
    started = set(SwissRound.objects.values_list("stage_id", flat=True))
    for stage in Stage.objects.filter(pk__in=started):
        options = dict(stage.options or {})
        if "rules" not in options:
            options["rules"] = "2017"
            stage.options = options
            stage.save(update_fields=["options"])


class Migration(migrations.Migration):
    dependencies = [("tournament", "0009_registration_check_in")]

    operations = [migrations.RunPython(keep_running_stages_on_their_rules, migrations.RunPython.noop)]
