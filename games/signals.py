"""Signals other apps listen to, so that ``games`` needs to know nothing of them."""

from django.dispatch import Signal

# Sent inside the transaction that records a game's end (status FINISHED), once per game.
# Keyword arguments: ``game`` (the Game, already saved), ``results`` (engine results rows) and
# ``seats`` (the game's Seat rows, as the move that ended it read them).
game_finished = Signal()

# Sent after the commit of a change of a game being played that has computer-played seats.
# Keyword argument: ``game_id``. The bot driver (``games.bots``) moves for them.
bots_may_move = Signal()

# Sent after the commit of a change that gave a game a new turn deadline. Keyword arguments:
# ``game_id`` and ``deadline``. The sweeper (``games.sweeper``) expires the turn at that moment.
turn_deadline_set = Signal()

# Sent after the commit of a change of a turn-based game that began a turn (a new deadline).
# Keyword arguments: ``game_id``, ``user_ids`` (the people who must act now) and ``seq``.
# The mail app tells them (``notifications``).
turn_began = Signal()

# Sent after the commit of a person's own move in a turn-based game. Keyword arguments:
# ``game_id`` and ``user_id``.
person_moved = Signal()
