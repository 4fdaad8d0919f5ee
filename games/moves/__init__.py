"""The move path: how one move goes from a socket (or the API, or a bot) to the database.

A move is checked and applied the same way on every path (``play.check_move``,
``play.do_move``); what differs is how its rows are read and written::

    socket frame ─> paths.apply_move
      │
      ├─ PostgreSQL, PARALLEL_MOVES and MOVES_ON_EVENT_LOOP (the default there)
      │     event loop ─> on_loop.move_apply ─> (3)
      │       gave up ─> worker thread ─> play.move_apply(guarded=False) ─> (1)
      │
      ├─ PostgreSQL, PARALLEL_MOVES only
      │     worker thread ─> play.move_apply ─> (2), gave up ─> (1)
      │
      └─ SQLite, or PARALLEL_MOVES off
            shared sync thread ─> play.move_apply ─> (2) on PostgreSQL, else (1)

    API views and bots ─> play.move_apply from a thread ─> (2) on PostgreSQL, else (1)

    (1) LOCKED: BEGIN; lock the game row (FOR UPDATE); read; apply; write; COMMIT.
    (2) GUARDED, IN A THREAD: read without a lock; apply; one guarded statement (autocommit).
    (3) GUARDED, ON THE EVENT LOOP: the same read and statement on an async connection.

(2) and (3) share ``play.prepare_guarded`` (the move checked and applied on an unlocked read,
its writes caught as one guarded statement, its callbacks kept) and ``play.Tries`` (one retry
policy: at most ``UNLOCKED_TRIES`` tries, each on a fresh read if another change came first;
a move that ends the game, or that lost every try, is made under the lock), and both run the
callbacks with ``play.run_after_write``. A move that ends the game is not applied twice: (1)
takes the try's check and the engine's answer (``play.Ahead``) if the locked game row is still
the version that try read, and reads and applies the move again only if it is not. The
statements are written by ``sql`` (the move's SQL layer, from the models' metadata); a
guarded statement writes only if the game row is still the version read (``xmin``), so a
change of the game or of its seats between a move's read and its write makes the move try
again.

The kinds' glue writes through ``sql`` too, never the ORM (``games.kinds`` states the two
write rules): only then can a move's writes be caught for one statement.

Modules: ``paths`` (which way), ``play`` (the move, the thread's ways), ``on_loop`` (the event
loop's way: its pool and the reads ahead of a move), ``record`` (writing a change of a game, a
move's or any service's: state, log, projections, timer), ``base`` (what a move and the
services share: the locked game row, a user's seat, what waits for the commit) and ``sql`` (the
statements; the reads of rows are ``games.rows``, which the selectors share).
``games.services`` build on these; nothing here imports them.
"""
