from django.db import migrations, models
from django.db.models import BooleanField, ExpressionWrapper, Q


def fill_won(apps, schema_editor):
    """Finished seats as their results rows said: first place won, except in Road to 300,
    a solo game won by 300 points or more (T4.3)."""
    Seat = apps.get_model("games", "Seat")
    finished = Seat.objects.exclude(place=None)
    finished.exclude(game__kind="road300").update(won=_true(Q(place=1)))
    finished.filter(game__kind="road300").update(won=_true(Q(total__gte=300)))


def _true(condition: Q) -> ExpressionWrapper:
    return ExpressionWrapper(condition, output_field=BooleanField())


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_rematch"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="won",
            field=models.BooleanField(blank=True, null=True),
        ),
        migrations.RunPython(fill_won, migrations.RunPython.noop),
    ]
