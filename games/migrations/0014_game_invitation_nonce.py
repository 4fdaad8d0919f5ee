from django.db import migrations, models

import games.models


class Migration(migrations.Migration):
    # The games made before share one nonce: a link is signed with its game's id as well, so
    # it opens no other game all the same.
    dependencies = [
        ("games", "0013_seat_to_move"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="invitation_nonce",
            field=models.CharField(
                default=games.models.new_invitation_nonce, editable=False, max_length=24
            ),
        ),
    ]
