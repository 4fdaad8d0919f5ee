"""Rat um Rad's table strings: the sentences its table script reads (its glue's
``table_strings``)."""

from __future__ import annotations

from django.utils.translation import gettext


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
