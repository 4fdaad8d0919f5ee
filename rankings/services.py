"""Rating finished games: every seat by its place, with openskill's Plackett-Luce model, within
the game's kind (a rating per player and kind). Kinds ranked by their best scores (Road to 300,
``GameKind.rated == "best_score"``) have no ratings: their totals rank. And the achievements a
finished game earned its people (``rankings.achievements``)."""

from __future__ import annotations

from django.db import transaction
from openskill.models import PlackettLuce

from games import registry
from games.models import Game, Seat
from games.moves import sql
from rankings import achievements
from rankings.models import EarnedAchievement, Rating, RatingChange

RATED_FIELDS = ("mu", "sigma", "ordinal", "games", "is_bot", "updated")  # what a game changes
MODEL = PlackettLuce()  # a new player starts at mu 25, sigma 25/3: ordinal 0


def display(ordinal: float) -> float:
    """A rating as lists show it: one decimal, and never "-0.0"."""
    return round(ordinal, 1) + 0.0


def computer_players(game: Game, seats: list[Seat] | None = None) -> set[int]:
    """The users of the game's computer-played seats (``seats``: the rows, if already read)."""
    if seats is None:
        return set(Seat.objects.filter(game=game, is_bot=True).values_list("user_id", flat=True))
    return {seat.user_id for seat in seats if seat.is_bot}


def rate_game(
    *, game: Game, results: list[dict], seats: list[Seat] | None = None
) -> list[RatingChange]:
    """Rate a finished game from its results rows (``player``, ``total``, ``place``).

    Equal places are ties. A game is rated once: another call for it changes nothing and
    returns ``[]``; so does a game that is not finished (an aborted game is never rated), a
    game of one, and a game of a kind that ranks by scores alone.
    """
    kind = registry.KINDS.get(game.kind)
    if kind is None or kind.rated != "rating":
        return []
    if game.status != Game.Status.FINISHED or not 2 <= len(results) <= kind.max_players:
        return []
    # Inside the receiver's savepoint (``receivers``) no second one: a failure rolls back to
    # that one all the same.
    with transaction.atomic(savepoint=False):
        if RatingChange.objects.filter(game=game).exists():
            return []
        players = [row["player"] for row in results]
        bots = computer_players(game, seats)
        start = MODEL.rating()
        # Create missing rows first (a concurrent game may create them too), then lock
        # them in a fixed order, so that two games sharing players update one after the other.
        Rating.objects.bulk_create(
            [
                Rating(
                    user_id=p,
                    kind=game.kind,
                    mu=start.mu,
                    sigma=start.sigma,
                    ordinal=start.ordinal(),
                )
                for p in players
            ],
            ignore_conflicts=True,
        )
        locked = (
            Rating.objects.select_for_update()
            .filter(user_id__in=players, kind=game.kind)
            .order_by("user_id")
        )
        ratings = {rating.user_id: rating for rating in locked}
        before = [ratings[player] for player in players]
        after = MODEL.rate(
            [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before],
            ranks=[row["place"] for row in results],
        )
        changes = []
        for row, rating, (new,) in zip(results, before, after, strict=True):
            changes.append(
                RatingChange(
                    game=game,
                    user_id=rating.user_id,
                    place=row["place"],
                    players=len(results),
                    total=row["total"],
                    is_bot=rating.user_id in bots,
                    mu_before=rating.mu,
                    sigma_before=rating.sigma,
                    ordinal_before=rating.ordinal,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                    ordinal_after=new.ordinal(),
                )
            )
            rating.mu, rating.sigma, rating.ordinal = new.mu, new.sigma, new.ordinal()
            rating.games += 1
            rating.is_bot = rating.user_id in bots
        with sql.batch():  # one statement on PostgreSQL
            for rating in before:
                sql.update(rating, RATED_FIELDS)
            sql.insert(changes)
        return changes


def results_of(game: Game) -> list[dict]:
    """The results rows of a finished game, as far as its seats keep them."""
    seats = game.seats.exclude(place=None).order_by("place", "turn_order", "id")
    return [{"player": s.user_id, "total": s.total, "place": s.place} for s in seats]


def award_achievements(
    *, game: Game, results: list[dict], seats: list[Seat] | None = None
) -> list[EarnedAchievement]:
    """Store what a finished game earned the people at its table (computer players earn
    none); an achievement a person has already earned stays with its first game."""
    if game.status != Game.Status.FINISHED or not game.state:
        return []
    bots = computer_players(game, seats)
    rows = (game.state or {}).get("results") or results
    new = []
    for row in rows:
        if row["player"] in bots:
            continue
        finished = achievements.Finished(row=row, rows=rows, state=game.state, options=game.options)
        for achievement in achievements.earned_by(game.kind, finished):
            new.append(
                EarnedAchievement(
                    user_id=row["player"], kind=game.kind, key=achievement.key, game=game
                )
            )
    EarnedAchievement.objects.bulk_create(new, ignore_conflicts=True)
    return new
