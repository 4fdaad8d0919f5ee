"""Rate the finished games that have no ratings yet, oldest first."""

from django.core.management.base import BaseCommand

from games.models import Game
from rankings import services


class Command(BaseCommand):
    help = (
        "Rate the finished games that have no ratings yet (e.g. from before ratings), oldest first."
    )

    def handle(self, *args, **options) -> None:
        games = Game.objects.filter(
            status=Game.Status.FINISHED, rating_changes__isnull=True
        ).order_by("finished", "id")
        rated = 0
        for game in games.distinct():
            rated += bool(services.rate_game(game=game, results=services.results_of(game)))
        self.stdout.write(f"rated {rated} game(s)")
