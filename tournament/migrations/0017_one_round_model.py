# The Swiss system's rounds become every round-by-round format's rounds (one draft, review, publish cycle).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0016_check_in_closes"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="swissround", name="swiss_round_once"),
        migrations.RenameModel(old_name="SwissRound", new_name="Round"),
        migrations.AlterModelOptions(
            name="round",
            options={"ordering": ["stage", "number"], "verbose_name": "round", "verbose_name_plural": "rounds"},
        ),
        migrations.AlterField(
            model_name="round",
            name="stage",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="rounds",
                to="tournament.stage",
                verbose_name="stage",
            ),
        ),
        migrations.AddConstraint(
            model_name="round",
            constraint=models.UniqueConstraint(fields=("stage", "number"), name="round_once"),
        ),
    ]
