"""Rating finished games: every seat by its place, with openskill's Plackett-Luce model, within
the game's kind (a rating per player and kind). Kinds ranked by their best scores (Road to 300,
``GameKind.rated == "best_score"``) have no ratings: their totals rank. And the achievements a
finished game earned its people (``rankings.achievements``)."""

from __future__ import annotations

import functools

from django.db import connection, transaction
from openskill.models import PlackettLuce

from games import registry, rows
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
    # The statements without the query compiler (``games.rows``, ``games.moves.sql``): a
    # game's end makes them, and compiling them cost more than running them.
    with transaction.atomic(savepoint=False):
        players = [row["player"] for row in results]
        bots = computer_players(game, seats)
        start = MODEL.rating()
        # Create missing rows first (a concurrent game may create them too), then lock
        # them in a fixed order, so that two games sharing players update one after the other.
        # Sent at once, also inside the receiver's batch: the read below needs the rows.
        sql.insert(
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
            now=True,
        )
        # Locked with whether the game was rated before (then nothing changes): one statement.
        params = [game.pk, game.kind, *players]
        locked = rows.fetch(Rating, _locked_ratings_sql(len(players)), params, extra=["rated"])
        if any(rating.rated for rating in locked):
            return []
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
        with sql.batch():  # one statement on PostgreSQL (the receiver's, if inside it)
            for rating in before:
                sql.update(rating, RATED_FIELDS)
            sql.insert(changes)
        return changes


@functools.cache
def _locked_ratings_sql(count: int) -> str:
    """``count`` players' ratings in one kind, locked in the order of their user ids, each
    with whether a game has been rated (one of its rating changes)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    rated = f"SELECT 1 FROM {RatingChange._meta.db_table} WHERE game_id = %s"
    return (
        f"SELECT {rows.columns(Rating, 'row')}, EXISTS ({rated}) FROM {Rating._meta.db_table} row"
        f" WHERE row.kind = %s AND row.user_id IN ({', '.join(['%s'] * count)})"
        f" ORDER BY row.user_id{lock}"
    )


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

    def made(found: list[tuple]) -> None:  # those earned first now get their ids
        ids = {(user_id, key): pk for pk, user_id, key in found}
        for earned in new:
            earned.pk = ids.get((earned.user_id, earned.key))

    # An achievement earned before keeps its game, and its row here no id.
    sql.insert(new, ignore_conflicts=True, returning=("id", "user", "key"), then=made)
    return new
