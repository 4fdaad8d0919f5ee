"""Rat um Rad's glue: seats, built roads and destination cards mirror the engine state.

Its feed sentences (``describe``) are in ``ratumrad_feed``, its table's strings
(``table_strings``) in ``ratumrad_strings``, its API views in ``ratumrad_api``; the hooks are
found here all the same (``registry.get("ratumrad").glue``)."""

from __future__ import annotations

from django.urls import include, path
from django.utils.translation import gettext_lazy

from games.colors import color_letters, color_names
from games.kinds import never_sealed, random_seed, ratumrad_feed, ratumrad_strings
from games.models import BuiltRoad, DestinationCard, Game, Seat
from games.moves import sql
from games.ratumrad import engine
from games.ratumrad.board import CARD_COLORS, GREY, basel
from rankings.achievements import Achievement, Finished, first_win

ROAD_COLORS = (*CARD_COLORS, GREY)
HAND_COLORS = engine.COLORS
TABLE_TEMPLATE = "games/ratumrad/table.html"  # included by the game page's shell
TABLE_SCRIPT = "js/ratumrad/table.js"  # the table's ES module (static)

# The seat columns that mirror the engine state.
SEAT_FIELDS = ["turn_order", "color", "score", "wheels", "hand", "total", "place", "won"]
# Events after which the players' destination cards may have changed hands or status.
DESTINATION_EVENTS = {"dealt", "prepared", "drew_destinations", "kept_destinations", "game_over"}
VOTE_YES = {"type": "VOTE_END", "end": True}


def project(
    game: Game, state: engine.GameState, seats: list[Seat], events: list[dict], before
) -> None:
    """Keep seats, roads and destination cards in step with ``state``.

    Only what the events say may have changed is written: a move touches one or two rows.
    """
    by_user = {seat.user_id: seat for seat in seats}
    totals = {
        row["player"]: (row["total"], row["place"], row["won"]) for row in state.results or []
    }
    for order, player in enumerate(state.players):
        seat = by_user[player.id]
        hand = dict(zip(engine.COLORS, player.hand, strict=True))
        total, place, won = totals.get(player.id, (None, None, None))
        values = (order, player.color, player.score, player.wheels, hand, total, place, won)
        if tuple(getattr(seat, name) for name in SEAT_FIELDS) != values:
            for name, value in zip(SEAT_FIELDS, values, strict=True):
                setattr(seat, name, value)
            sql.update(seat, SEAT_FIELDS)
    sql.insert(
        [
            BuiltRoad(game=game, road=road, seat=by_user[state.players[owner].id], seq=state.seq)
            for road, owner in (
                (event["road"], state.road_owner[event["road"]])
                for event in events
                if event["kind"] == "built_road"
            )
        ]
    )
    if any(event["kind"] in DESTINATION_EVENTS for event in events):
        _store_destinations(game, before, game.state, state.results, by_user)


Holding = tuple[int, str, bool | None]  # a destination card's seat, status and completion


def _holdings(state: dict | None, by_user: dict[int, Seat], results=None) -> dict[str, Holding]:
    """Who holds which destination card in a stored state, as the DestinationCard rows say."""
    complete = {}
    for row in results or []:
        complete.update({card["id"]: card["complete"] for card in row["destinations"]})
    held = {}
    for player in (state or {}).get("players", []):
        seat_id = by_user[player["id"]].pk
        for card in player["destinations"]:
            held[card] = (seat_id, DestinationCard.Status.KEPT, complete.get(card))
        for card in player["pending"]:
            held[card] = (seat_id, DestinationCard.Status.PENDING, None)
    return held


def _store_destinations(
    game: Game, before: dict | None, after: dict, results, by_user: dict[int, Seat]
) -> None:
    # The rows mirror the state before this change (``project`` writes both), so the
    # difference of the two states says what to write without reading the rows first.
    was, now = _holdings(before, by_user), _holdings(after, by_user, results)
    gone = [card for card in was if card not in now]
    if gone:
        sql.delete_where(DestinationCard, {"game_id": game.pk, "card__in": gone})
    sql.insert(
        [
            DestinationCard(game=game, card=card, seat_id=seat_id, status=status, complete=done)
            for card, (seat_id, status, done) in now.items()
            if card not in was
        ]
    )
    changed: dict[Holding, list[str]] = {}
    for card, holding in now.items():
        if card in was and was[card] != holding:
            changed.setdefault(holding, []).append(card)
    for (seat_id, status, done), cards in changed.items():
        sql.update_where(
            DestinationCard,
            {"seat_id": seat_id, "status": status, "complete": done},
            {"game_id": game.pk, "card__in": cards},
        )


def site_options(options: dict) -> dict:
    return options


def complete_results(game: Game, state: engine.GameState) -> None:
    """The engine's results are complete."""


def warm_up(game: Game, state: engine.GameState) -> None:
    """Nothing to prepare: the engine's results are complete."""


new_seed = random_seed
sealed = never_sealed
describe = ratumrad_feed.describe
FEED_KINDS = ratumrad_feed.FEED_KINDS  # the events this glue writes sentences for
table_strings = ratumrad_strings.table_strings


def start_events(state: engine.GameState) -> list[dict]:
    return [{"kind": "dealt", "player": None}]


def waiting_table(game: Game) -> dict:
    return {
        "turn": None,
        "final_round": False,
        "final_turns_left": None,
        "face_up": [None] * engine.DISPLAY_SIZE,
        "deck": 0,
        "discard": 0,
        "short_deck": 0,
        "roads": [],
    }


def waiting_player() -> dict:
    return {
        "color": None,
        "score": 0,
        "wheels": engine.WHEELS,
        "wheel_cards": 0,
        "destination_cards": 0,
        "pending_destination_cards": 0,
        "prepared": False,
        "voted_end": False,
    }


def turn_key(state: engine.GameState) -> tuple:
    """Everyone prepares at once (one deadline for all); later it is one player's turn, which
    goes on through the second card of a draw and the choice of drawn destination cards."""
    return _turn_key(state.status, state.current)


def stored_turn_key(stored: dict) -> tuple:
    """:func:`turn_key` of a stored state (``Game.state``), without loading it."""
    return _turn_key(stored["status"], stored["current"])


def _turn_key(status: str, current: int) -> tuple:
    return (status, None if status == engine.PREPARATION else current)


def forced_bot_move(state: engine.GameState, people: list[Seat], computer: list[Seat]):
    """R8.2 needs every vote: once all the people at the table want to end, the computer
    players agree (they never start a vote)."""
    if people and all(_voted(state, seat) for seat in people):
        for seat in computer:
            if not _voted(state, seat):
                return seat, VOTE_YES
    return None


def _voted(state: engine.GameState, seat: Seat) -> bool:
    return state.players[state.index_of(seat.user_id)].vote_end


def public_map() -> dict:
    return basel().to_public_dict()


def rules_context() -> dict:
    """The card legend: every colour with the letter the table and the map show on it."""
    letters, names = color_letters(), color_names()
    return {"card_legend": [(color, letters[color], names[color]) for color in CARD_COLORS]}


def rematch_leaderboard(game: Game) -> str | None:
    return None  # a finished game may be played again


def hint_extra(view: dict, move: dict) -> dict:
    return {}  # Rat um Rad offers no hints


def page_context(game: Game) -> dict:
    return {"map": public_map()}


def api_urls() -> list:
    # Named, not imported: the views' module imports the API's, which imports this one.
    return [path("", include("games.kinds.ratumrad_api"))]


def _all_destinations(game: Finished) -> bool:
    return game.row["destinations_reached"] > 0 and game.row["destinations_missed"] == 0


def _longest(game: Finished) -> bool:
    best = max(row["longest_path"] for row in game.rows)
    return best > 0 and game.row["longest_path"] == best and len(game.rows) > 1


ACHIEVEMENTS = (
    first_win(
        "ratumrad", gettext_lazy("Win a game of Rat um Rad against at least one other player.")
    ),
    Achievement(
        "ratumrad",
        "all_destinations",
        gettext_lazy("Every destination"),
        gettext_lazy("Complete every destination card you hold at the end of a game."),
        _all_destinations,
    ),
    Achievement(
        "ratumrad",
        "longest_path",
        gettext_lazy("Longest route"),
        gettext_lazy("Hold the longest path of a game (R3.3)."),
        _longest,
    ),
)


def achievements() -> tuple[Achievement, ...]:
    return ACHIEVEMENTS
