"""RAGE's glue: the state lives in ``Game.state``; the seats mirror the scores (G4)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from games.kinds import describe_with, never_sealed, random_seed
from games.models import Game, Seat
from games.moves import sql
from games.rage import engine
from games.rage.cards import COLORS
from rankings.achievements import Achievement, Finished, first_win

TABLE_TEMPLATE = "games/rage/table.html"
TABLE_SCRIPT = "js/rage/table.js"
TABLE_CSS = "css/rage.css"
SEAT_FIELDS = ["turn_order", "score", "total", "place", "won"]

COLOR_NAMES = {
    "blue": pgettext_lazy("RAGE colour", "blue"),
    "green": pgettext_lazy("RAGE colour", "green"),
    "red": pgettext_lazy("RAGE colour", "red"),
    "yellow": pgettext_lazy("RAGE colour", "yellow"),
    "violet": pgettext_lazy("RAGE colour", "violet"),
    "cyan": pgettext_lazy("RAGE colour", "cyan"),
}
ACTION_NAMES = {
    "joker": gettext_lazy("Joker"),
    "no_trump": gettext_lazy("No Trump"),
    "change_trump": gettext_lazy("Change Trump"),
    "plus5": gettext_lazy("+5"),
    "minus5": gettext_lazy("-5"),
}
assert set(COLOR_NAMES) == set(COLORS)


def card_name(card: str, color: str | None = None) -> str:
    """``red-7`` as "red 7"; a Joker with its named colour as "Joker (red)"."""
    if card in ACTION_NAMES:
        name = str(ACTION_NAMES[card])
        return (
            f"{name} ({COLOR_NAMES[color]})" if card == "joker" and color in COLOR_NAMES else name
        )
    colour, _, value = card.partition("-")
    return f"{COLOR_NAMES.get(colour, colour)} {value}"


def project(game: Game, state: engine.GameState, seats: list[Seat], events, before) -> None:
    by_user = {seat.user_id: seat for seat in seats}
    totals = {
        row["player"]: (row["total"], row["place"], row["won"]) for row in engine.results(state)
    }
    for order, player in enumerate(state.players):
        seat = by_user[player]
        values = (order, state.scores[order], *totals.get(player, (None, None, None)))
        if tuple(getattr(seat, name) for name in SEAT_FIELDS) != values:
            for name, value in zip(SEAT_FIELDS, values, strict=True):
                setattr(seat, name, value)
            sql.update(seat, SEAT_FIELDS)


def site_options(options: dict) -> dict:
    return options


def complete_results(game: Game, state: engine.GameState) -> None:
    """The engine's results are complete."""


def warm_up(game: Game, state: engine.GameState) -> None:
    """Nothing to prepare: the engine's results are complete."""


new_seed = random_seed
sealed = never_sealed


def start_events(state: engine.GameState) -> list[dict]:
    return [
        {
            "kind": "round_dealt",
            "player": None,
            "round": state.round,
            "dealer": state.players[state.dealer],
            "trump": state.trump,
        }
    ]


def waiting_table(game: Game) -> dict:
    return {
        "round": 0,
        "rounds": engine.ROUNDS,
        "cards": 0,
        "dealer": None,
        "phase": None,
        "trump": None,
        "no_trump": False,
        "trump_pile": [],
        "stack_size": 0,
        "lead_color": None,
        "leader": None,
        "trick": [],
        "tricks": [],
        "to_move": [],
        "sheet": [],
    }


def waiting_player() -> dict:
    return {"bid": None, "has_bid": False, "tricks_won": 0, "hand_size": 0, "score": 0}


def turn_key(state: engine.GameState) -> tuple:
    """Bids under hidden or secret bids are made at once (one deadline for all); otherwise
    each bid and each card is a turn of its own."""
    return _turn_key(
        state.status, state.round, state.phase, state.options, state.bids, state.tricks, state.trick
    )


def stored_turn_key(stored: dict) -> tuple:
    fields = ("status", "round", "phase", "options", "bids", "tricks", "trick")
    return _turn_key(*(stored[name] for name in fields))


def _turn_key(status, round_, phase, options, bids, tricks, trick) -> tuple:
    bids_in = sum(bid is not None for bid in bids)
    if phase == engine.BIDDING and options["bids"] != "open":
        bids_in = None
    return (status, round_, phase, bids_in, len(tricks), len(trick))


def forced_bot_move(state, people, computer):
    return None


def rules_context() -> dict:
    return {}


def rematch_leaderboard(game: Game) -> str | None:
    return None  # a finished game may be played again


def hint_extra(view: dict, move: dict) -> dict:
    return {}  # RAGE offers no hints: the others at the table play without


def table_strings() -> dict:
    # The table's own sentences are its template's (#rage-strings); the shell says why it ended.
    return {"end_reasons": {engine.ROUNDS_PLAYED: gettext("All 10 rounds have been played.")}}


def page_context(game: Game) -> dict:
    return {"kind_css": TABLE_CSS}


def describe(event: dict, names: dict[int, str]) -> str:
    return describe_with(_WRITERS, event, names)


def _bid(event: dict, name) -> str:
    if "tricks" in event:
        return gettext("%(name)s bids %(tricks)d.") % {
            "name": name(event["player"]),
            "tricks": event["tricks"],
        }
    return gettext("%(name)s has made a bid.") % {"name": name(event["player"])}


def _bids_revealed(event: dict, name) -> str:
    listed = ", ".join(f"{name(row['player'])} {row['tricks']}" for row in event["bids"])
    return gettext("The bids are revealed: %(bids)s.") % {"bids": listed}


def _card_played(event: dict, name) -> str:
    return gettext("%(name)s plays %(card)s.") % {
        "name": name(event["player"]),
        "card": card_name(event["card"], event.get("color")),
    }


def _trump_suspended(event: dict, name) -> str:
    return gettext("No Trump: there is no trump for the rest of this trick.")


def _trump_turned(event: dict, name) -> str:
    return gettext("Turned up: %(cards)s. Trump is %(trump)s.") % {
        "cards": ", ".join(card_name(card) for card in event["cards"]),
        "trump": COLOR_NAMES.get(event["trump"], event["trump"]),
    }


def _trick_won(event: dict, name) -> str:
    return gettext("%(name)s wins the trick.") % {"name": name(event["winner"])}


def _round_scored(event: dict, name) -> str:
    scores = ", ".join(f"{name(row['player'])} {row['points']:+d}" for row in event["rows"])
    return gettext("Round %(round)d is scored: %(scores)s.") % {
        "round": event["round"],
        "scores": scores,
    }


def _round_dealt(event: dict, name) -> str:
    return gettext("Round %(round)d: %(name)s deals, trump is %(trump)s.") % {
        "round": event["round"],
        "name": name(event["dealer"]),
        "trump": COLOR_NAMES.get(event["trump"], event["trump"]),
    }


def _game_over(event: dict, name) -> str:
    winners = [row for row in event.get("results") or [] if row["place"] == 1]
    if not winners:
        return gettext("The game is over.")
    return gettext("The game is over. First place: %(names)s with %(total)d points.") % {
        "names": ", ".join(name(row["player"]) for row in winners),
        "total": winners[0]["total"],
    }


_WRITERS = {
    "bid": _bid,
    "bids_revealed": _bids_revealed,
    "card_played": _card_played,
    "trump_suspended": _trump_suspended,
    "trump_turned": _trump_turned,
    "trick_won": _trick_won,
    "round_scored": _round_scored,
    "round_dealt": _round_dealt,
    "game_over": _game_over,
}


def _sheet_rows(game: Finished) -> list[dict]:
    return [
        row for rows in game.state["sheet"] for row in rows if row["player"] == game.row["player"]
    ]


def _every_bid(game: Finished) -> bool:
    rows = _sheet_rows(game)
    return len(rows) == 10 and all(row["bid"] == row["tricks"] for row in rows)


def _all_tricks(game: Finished) -> bool:
    return any(row["cards"] >= 2 and row["tricks"] == row["cards"] for row in _sheet_rows(game))


ACHIEVEMENTS = (
    first_win("rage", gettext_lazy("Win a game of RAGE (a shared first place counts).")),
    Achievement(
        "rage",
        "all_tricks",
        gettext_lazy("Clean sweep"),
        gettext_lazy("Win every trick of a round of two cards or more."),
        _all_tricks,
    ),
    Achievement(
        "rage",
        "every_bid",
        gettext_lazy("Fortune teller"),
        gettext_lazy("Make your bid in all ten rounds of a game."),
        _every_bid,
    ),
)


def achievements() -> tuple[Achievement, ...]:
    return ACHIEVEMENTS
