"""A team event's boards move out of the shared ``Match`` into the team package's own ``TeamBoard`` (a match,
its team match, the board's number): each match that had a team match gets its row; the two columns go."""

import django.db.models.deletion
from django.db import migrations, models


def boards_to_rows(apps, schema_editor):
    Match = apps.get_model("tournament", "Match")
    TeamBoard = apps.get_model("tournament", "TeamBoard")
    rows = [
        TeamBoard(match_id=pk, team_match_id=team_match, number=number or 0)
        for pk, team_match, number in Match.objects.filter(team_match__isnull=False).values_list(
            "pk", "team_match_id", "team_board"
        )
    ]
    TeamBoard.objects.bulk_create(rows, batch_size=500)


def rows_to_boards(apps, schema_editor):
    Match = apps.get_model("tournament", "Match")
    TeamBoard = apps.get_model("tournament", "TeamBoard")
    for match, team_match, number in TeamBoard.objects.values_list("match_id", "team_match_id", "number"):
        Match.objects.filter(pk=match).update(team_match_id=team_match, team_board=number)


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0021_stage_kind_double_elimination"),
    ]

    operations = [
        migrations.CreateModel(
            name="TeamBoard",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "number",
                    models.PositiveSmallIntegerField(help_text="the board within the team match", verbose_name="table"),
                ),
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tournament.match",
                        verbose_name="match",
                    ),
                ),
                (
                    "team_match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="tournament.teammatch",
                        verbose_name="team match",
                    ),
                ),
            ],
            options={
                "verbose_name": "team board",
                "verbose_name_plural": "team boards",
                "ordering": ["team_match", "number"],
            },
        ),
        migrations.RunPython(boards_to_rows, rows_to_boards),
        migrations.RemoveField(model_name="match", name="team_board"),
        migrations.RemoveField(model_name="match", name="team_match"),
        migrations.AlterField(
            model_name="teamboard",
            name="match",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="team_board",
                to="tournament.match",
                verbose_name="match",
            ),
        ),
        migrations.AlterField(
            model_name="teamboard",
            name="team_match",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="boards",
                to="tournament.teammatch",
                verbose_name="team match",
            ),
        ),
    ]
