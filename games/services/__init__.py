"""Every change to a game goes through here; consumers, API views and the admin only call these.

One module a responsibility: ``lifecycle`` (create, join, deal), ``rematch`` (play again),
``invitations`` (a private game's link, a seat by it), ``seats`` (leave, take a seat back, the
computer standing in when a turn runs out), ``admin`` (end now, call off), ``chat``; a move is
``games.moves``, which also writes every change (``games.moves.record``) and holds what the
services share (``games.moves.base``): the services stand on the move path, never under it. The
game's kind (``games.registry``) supplies the engine and the projections; nothing here knows the
rules of any game. Messages to clients leave only after the commit (``transaction.on_commit``),
each seat its own view, spectators the public view (``games.broadcast``).

Each entry point (the services without ``check_``/``do_``) owns its transaction, a durable
one: called inside another transaction it fails at once (RuntimeError), rather than sending
its messages after a commit that has not happened yet. A ``check_`` service reads and
refuses (a ``games.errors.ServiceError``), its ``do_`` twin changes.
"""
