"""Rat um Rad's glue: seats, built roads and destination cards mirror the engine state; the
activity feed's sentences for its events."""

from __future__ import annotations

from django.urls import include, path
from django.utils.translation import gettext, gettext_lazy, ngettext

from games.colors import color_letters, color_names
from games.kinds import describe_with, never_sealed, random_seed
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


def describe(event: dict, names: dict[int, str]) -> str:
    return describe_with(_WRITERS, event, names)


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


def table_strings() -> dict:
    """The sentences static/js/ratumrad/ shows, beside the shell's (``games.views``)."""
    return {
        "end_reasons": {
            "final_round": gettext("The final round is over."),
            "vote": gettext("All players voted to end the game."),
            "all_passed": gettext("Nobody could move any more."),
        },
        "your_turn_choices": gettext(
            "Your turn: draw wheel cards, build a road or draw destination cards."
        ),
        "your_second_card": gettext("Your turn: take your second wheel card."),
        "your_choose_destinations": gettext("Your turn: choose the destination cards to keep."),
        "their_second_card": gettext("{name} is taking a second wheel card."),
        "their_choose_destinations": gettext("{name} is choosing destination cards."),
        "preparation_you": gettext("Choose your short destination cards: keep all three or two."),
        "preparation_done": gettext("You have chosen. Waiting for the others to choose."),
        "preparation_others": gettext("Everyone is choosing their short destination cards."),
        "final_round": gettext("Final round: everyone has one more turn."),
        "final_turns_left": gettext("Turns left: {count}"),
        "autopilot": gettext("computer stands in"),
        "autopilot_title": gettext(
            "The computer plays this seat because its player ran out of time."
        ),
        "left": gettext("has left"),
        "left_title": gettext("This player has left the game for good."),
        "online": gettext("online"),
        "offline": gettext("offline"),
        "voted_end": gettext("votes to end"),
        "current_player": gettext("at turn"),
        "prepared": gettext("has chosen"),
        "score": gettext("Score"),
        "wheels": gettext("Wheels"),
        "wheel_cards": gettext("Wheel cards"),
        "destination_cards": gettext("Destination cards"),
        "pending_cards": gettext("choosing {count}"),
        "deck": gettext("Deck: {count}"),
        "take_from_deck": gettext("Take the top card of the deck"),
        "discard": gettext("Discard pile: {count}"),
        "short_deck": gettext("Destination cards left: {count}"),
        "take_face_up": gettext("Take the face-up card: {color}"),
        "empty_slot": gettext("empty"),
        "joker_not_second": gettext("A face-up joker cannot be your second card (R5.4)."),
        "no_destinations": gettext("No destination cards yet."),
        "road": gettext("{a}–{b}: {color}, length {length}, worth {points}"),
        "road_built": gettext("{a}–{b}: built by {name}"),
        "road_buildable": gettext("Build {a}–{b}: {color}, length {length}, worth {points}"),
        "road_tip_point": gettext("1 point"),
        "road_tip_built": gettext("Built by {name}."),
        "road_tip_build": gettext("Click or press Enter to build it."),
        "road_closed": gettext("Closed: {name} built the other road of this double (R6.4)."),
        "road_double_open": gettext("Still open: {name} built the other road of this double."),
        "road_tip_kind": gettext("{color}, {length} wheels"),
        "road_tip_kind_one": gettext("{color}, 1 wheel"),
        "road_tip_any_colour": gettext("(pay with any one colour)"),
        "why_over": gettext("The game is over."),
        "why_not_started": gettext("Roads are built once the game has begun."),
        "why_own_double": gettext("You built the other road of this double (R6.3)."),
        "why_their_turn": gettext("Not your turn: {name} is playing."),
        "why_second_card": gettext("Not now: take your second wheel card first."),
        "why_choose_destinations": gettext("Not now: choose your destination cards first."),
        "why_wheels": gettext("Too long: it needs {length} wheels and you have {wheels} left."),
        "why_cards": gettext(
            "Not enough cards: it takes {length} {color} cards (jokers count too); you have"
            " {have} and {jokers} jokers."
        ),
        "why_cards_any": gettext(
            "Not enough cards: it takes {length} cards of one colour (jokers count too); you"
            " have at most {have} of one colour and {jokers} jokers."
        ),
        "drew_two": gettext("{name} drew {first} and {second}."),
        "drew_face_up": gettext("a face-up {color} card"),
        "drew_deck": gettext("a card from the deck"),
        "drew_two_deck": gettext("{name} drew two cards from the deck."),
        "rhine": gettext("Rhine"),
        "pay_title": gettext("Build {a}–{b}"),
        "pay_summary": gettext("Length {length}, worth {points}. Choose how to pay:"),
        "pay_card": gettext("{count} {color} card"),
        "pay_cards": gettext("{count} {color} cards"),
        "pay_joker": gettext("{count} joker"),
        "pay_jokers": gettext("{count} jokers"),
        "card": gettext("{a} – {b}"),
        "card_points": gettext("{points} points"),
        "card_long": gettext("long"),
        "complete": gettext("complete"),
        "not_complete": gettext("not complete yet"),
        "prep_title": gettext("Choose your short destination cards"),
        "prep_hint": gettext(
            "Keep all three cards or any two of them. Your long card stays with you."
        ),
        "keep_title": gettext("Keep destination cards"),
        "keep_hint": gettext("Keep at least one card; the others go back under the deck."),
        "keep_invalid": gettext("This choice is not allowed: {hint}"),
        "choose_again": gettext("Choose destination cards"),
        "results_road_points": gettext("Road points"),
        "results_reached": gettext("Destinations reached"),
        "results_missed": gettext("Destinations missed"),
        "results_longest_path": gettext("Longest path"),
        "results_bonus": gettext("bonus +10"),
        "results_tie": gettext("tie"),
        "results_show_path": gettext("Show on the map"),
        "results_cards_of": gettext("Destination cards of {name}"),
        "results_hand_of": gettext("Cards left: {cards}"),
        "reached": gettext("reached"),
        "missed": gettext("missed"),
    }


# ---------------------------------------------------------------------------- feed

# Card colours as words (R1.4); the joker is a colour of its own in a hand.
COLOR_NAMES = {
    "red": gettext_lazy("red"),
    "blue": gettext_lazy("blue"),
    "orange": gettext_lazy("orange"),
    "green": gettext_lazy("green"),
    "yellow": gettext_lazy("yellow"),
    "pink": gettext_lazy("pink"),
    "black": gettext_lazy("black"),
    "white": gettext_lazy("white"),
    "joker": gettext_lazy("joker"),
}


def color_name(color: str | None) -> str:
    return str(COLOR_NAMES.get(color or "", color or "?"))


def _dealt(event: dict, name) -> str:
    return gettext("The cards are dealt: everyone chooses their short destination cards.")


def _prepared(event: dict, name) -> str:
    count = event["kept"]
    return ngettext(
        "%(name)s kept %(count)d short destination card.",
        "%(name)s kept %(count)d short destination cards.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _game_started(event: dict, name) -> str:
    return gettext("The game begins: %(name)s starts.") % {"name": name(event["player"])}


def _took_wheel(event: dict, name) -> str:
    if event.get("source") == "face_up":
        return gettext("%(name)s took a face-up card: %(color)s.") % {
            "name": name(event["player"]),
            "color": color_name(event.get("color")),
        }
    return gettext("%(name)s took a card from the deck.") % {"name": name(event["player"])}


def _display_wiped(event: dict, name) -> str:
    if event.get("locked"):
        return gettext(
            "Three or more jokers were face up: the display was replaced. It stays as it is "
            "until someone takes a card from it."
        )
    return gettext("Three or more jokers were face up: the display was replaced.")


def _deck_reshuffled(event: dict, name) -> str:
    count = event["cards"]
    return ngettext(
        "The discard pile was shuffled into a new deck of %(count)d card.",
        "The discard pile was shuffled into a new deck of %(count)d cards.",
        count,
    ) % {"count": count}


def _built_road(event: dict, name) -> str:
    board = basel()
    road = board.roads[event["road"]]
    place = board.location_index
    return gettext("%(name)s built %(a)s–%(b)s (+%(points)d)") % {
        "name": name(event["player"]),
        "a": board.locations[place[road.a]].name,
        "b": board.locations[place[road.b]].name,
        "points": event["points"],
    }


def _few_wheels(event: dict, name) -> str:
    count = event["wheels"]
    if count == 0:
        return gettext("%(name)s has no wheels left") % {"name": name(event["player"])}
    return ngettext(
        "%(name)s has %(count)d wheel left",
        "%(name)s has %(count)d wheels left",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _no_wheel_cards(event: dict, name) -> str:
    return gettext("%(name)s has no wheel cards left") % {"name": name(event["player"])}


def _drew_destinations(event: dict, name) -> str:
    count = event["count"]
    return ngettext(
        "%(name)s drew %(count)d destination card.",
        "%(name)s drew %(count)d destination cards.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _kept_destinations(event: dict, name) -> str:
    count = event["kept"]
    return ngettext(
        "%(name)s kept %(count)d destination card.",
        "%(name)s kept %(count)d destination cards.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _final_round(event: dict, name) -> str:
    count = event["wheels"]
    return ngettext(
        "%(name)s has %(count)d wheel left: the final round begins, everyone has one more turn.",
        "%(name)s has %(count)d wheels left: the final round begins, everyone has one more turn.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _passed(event: dict, name) -> str:
    return gettext("%(name)s cannot do anything and passes.") % {"name": name(event["player"])}


def _voted_end(event: dict, name) -> str:
    if event.get("end"):
        return gettext("%(name)s votes to end the game.") % {"name": name(event["player"])}
    return gettext("%(name)s takes back the vote to end the game.") % {
        "name": name(event["player"])
    }


_ENDINGS = {
    "final_round": gettext_lazy("The game is over."),
    "vote": gettext_lazy("The game is over: everyone voted to end it."),
    "all_passed": gettext_lazy("The game is over: nobody could move any more."),
    "admin": gettext_lazy("The game is over: an administrator ended it."),
}


def _game_over(event: dict, name) -> str:
    ending = _ENDINGS.get(event.get("reason"), gettext_lazy("The game is over."))
    winners = event.get("winners") or []
    if not winners:
        return str(ending)
    won = ngettext("Winner: %(names)s.", "Winners: %(names)s.", len(winners)) % {
        "names": ", ".join(name(player) for player in winners)
    }
    return f"{ending} {won}"


_WRITERS = {
    "dealt": _dealt,
    "prepared": _prepared,
    "game_started": _game_started,
    "took_wheel": _took_wheel,
    "display_wiped": _display_wiped,
    "deck_reshuffled": _deck_reshuffled,
    "built_road": _built_road,
    "few_wheels": _few_wheels,
    "no_wheel_cards": _no_wheel_cards,
    "drew_destinations": _drew_destinations,
    "kept_destinations": _kept_destinations,
    "final_round": _final_round,
    "passed": _passed,
    "voted_end": _voted_end,
    "game_over": _game_over,
}
FEED_KINDS: tuple[str, ...] = tuple(_WRITERS)  # the events this glue writes sentences for


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
