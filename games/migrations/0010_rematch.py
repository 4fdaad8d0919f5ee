import django.db.models.deletion
from django.db import migrations, models

import games.fields


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_lean_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="Rematch",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="rematch",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("answers", games.fields.JSONField(blank=True, default=dict)),
                ("updated", models.DateTimeField(auto_now=True)),
                (
                    "new_game",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="rematch_of",
                        to="games.game",
                    ),
                ),
            ],
        ),
    ]
