"""The engine contract: what every game kind's pure engine provides (no Django here).

An engine is a package (``games.ratumrad``, ``games.rage``, ``games.road300``) whose module
named in its ``GameKind`` (``games.registry``) has this shape:

``KIND``, ``MIN_PLAYERS``, ``MAX_PLAYERS``
    The kind's key and its seat range.
``MOVE_TYPES``
    A frozenset of the protocol ``type`` names the engine accepts from a player.
``check_options(options) -> dict``
    The options of a new game with every default filled in; raises :class:`BadOption` naming
    the field (``options.<name>``) for an unknown name, a wrong type or a forbidden combination.
``new_game(seed, players, options) -> state``
    A new game for the player ids in seat order; ``options`` as ``check_options`` returns them.
    All randomness of the game comes from generators seeded by ``seed`` and kept in the state.
``legal_moves(state, player) -> list[dict]``
    Every protocol message ``player`` may send now, each exactly as it would be sent (without
    ``ref``/``expect_seq``); ``[]`` when they have nothing to do.
``to_move(state) -> list``
    The players who have something to do now (several at once in simultaneous phases).
``apply(state, player, move) -> (state, events)``
    The only function that changes a state (in place; the same object is returned). Events are
    public activity-feed entries, dicts with at least ``kind`` and ``player``. A refused move
    raises an :class:`EngineError` subclass and changes nothing. Each applied move adds 1 to
    ``state.seq``.
``end_game(state, reason) -> events``
    End a game being played now (an admin's decision), scored as far as the rules allow.
``view(state, player_or_None) -> dict``
    The only way state leaves the engine: what ``player`` may see (``None``: a spectator), as
    JSON-able data with at least ``status``, ``seq``, ``players`` (each with ``id``),
    ``legal`` (``legal_moves`` for a player, ``[]`` for a spectator) and, once over,
    ``results``.
``phase(state) -> str``
    The game's status as the protocol names it: ``PREPARATION``, ``RUNNING``, ``FINAL_ROUND``
    or ``FINISHED`` (a kind uses the ones it needs).
``is_over(state) -> bool``
``results(state) -> list[dict]``
    Once over: one row per player, best first, with at least ``player``, ``total``,
    ``place`` (equal places for a tie) and ``won``: whether the rules say the player won
    (first place in a game against others; a solo game's goal reached, which first place of
    one is not). Wins are counted by ``won``, never by place.
``replay(seed, players, options, moves) -> state``
    ``new_game`` then ``apply`` of each ``(player, move)``: the same game exactly.
``to_dict(state) -> dict`` / ``from_dict(data) -> state``
    The whole state, secrets and generators included, as JSON-able data (for storage only).
``scramble(state, player_or_None, rng) -> state``
    A copy of ``state`` in which everything ``player`` may not see (other hands, hidden bids,
    the order of every deck and stack, future dice, generator states) is shuffled or redrawn
    with ``rng`` while staying a consistent game. The secrecy tests check that
    ``view(state, p) == view(scramble(state, p, rng), p)``.
``simulate_report(games, players, bots, options, seed) -> (lines, problems)``
    Seeded games (``seed``, ``seed + 1``, ...) played by random players, or by ``bots`` (names
    of ``BOTS``), for ``manage.py simulate``: the lines to print and the rule violations found.
    Raises ``ValueError`` naming the option (``--players``, ``--bots``) it cannot play.
``BOTS`` / ``make_bot(name, seed) -> bot``
    The kind's computer players by name; ``bot.choose(view) -> move`` decides from the seat's
    own ``view`` alone (exactly what a person in that seat is sent) and returns one of
    ``view["legal"]``.

A package's rules (its ``engine`` and what that imports) never import its ``bots`` or
``simulation``, which use the rules: the package's ``__init__`` hands on ``BOTS``,
``make_bot`` and ``simulate_report`` from them.

``tests/test_engine_contract.py`` checks every registered kind against this.
"""

from __future__ import annotations

import base64
import random
import struct
from collections.abc import Hashable

PlayerId = Hashable

PHASES = ("PREPARATION", "RUNNING", "FINAL_ROUND", "FINISHED")


class EngineError(Exception):
    """A refused move. ``code`` is the protocol's error code; nothing was changed.

    ``message`` is English. The site shows it in the client's language: ``template`` (the
    English text with ``{name}`` placeholders, a literal string at the raise so that the
    translation catalog finds it) is translated, then filled with ``params``.
    """

    code = "illegal_move"

    def __init__(self, message: str, rule: str | None = None, **params: object):
        self.rule = rule
        self.template = message
        self.params = params
        text = message.format(**params) if params else message
        self.message = f"{rule}: {text}" if rule else text
        super().__init__(self.message)


class IllegalMove(EngineError):
    code = "illegal_move"


class BadField(EngineError):
    code = "bad_field"


class UnknownType(EngineError):
    code = "unknown_type"


class NotYourTurn(EngineError):
    code = "not_your_turn"


class NotSeated(EngineError):
    code = "not_seated"


class GameOver(EngineError):
    code = "game_over"


class BadOption(EngineError):
    """An option of a new game that the kind does not take; ``field`` names it."""

    code = "bad_field"

    def __init__(self, field: str, message: str, rule: str | None = None, **params: object):
        self.field = field
        super().__init__(message, rule, **params)


# ---------------------------------------------------------------------------- shared by engines


def plain_copy(value):
    """A copy of JSON-like data (dicts, lists, scalars) that shares no dict or list with it.

    What ``copy.deepcopy`` gives for such data, at a third of its cost: no memo, no dispatch
    by type. A finished game's results are copied for every view and every stored state.
    """
    if type(value) is dict:
        return {key: plain_copy(item) for key, item in value.items()}
    if type(value) is list:
        return [plain_copy(item) for item in value]
    return value


def dump_rng(rng: random.Random) -> list:
    """A generator's state as JSON-able data (``to_dict``); :func:`load_rng` restores it.

    The Mersenne Twister's 625 words go as one base64 string of their 32-bit values: 3.3 kB
    that the database stores as one string, instead of 625 numbers of 6.2 kB in all, which
    it parsed on every move of every stored state.
    """
    version, internal, gauss = rng.getstate()
    words = struct.pack(f"<{len(internal)}I", *internal)  # little-endian on every machine
    return [version, base64.b64encode(words).decode(), gauss]


def load_rng(data: list) -> random.Random:
    """The generator of :func:`dump_rng`'s data (also of its earlier form: a list of the
    words, which stored states may still hold)."""
    rng = random.Random()
    version, internal, gauss = data
    if isinstance(internal, str):
        words = base64.b64decode(internal)
        internal = struct.unpack(f"<{len(words) // 4}I", words)
    rng.setstate((version, tuple(internal), gauss))
    return rng


class RandomBot:
    """The floor of every kind: a move of ``view["legal"]`` at random (its own generator)."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> dict:
        legal = view["legal"]
        if not legal:
            raise ValueError("there is no legal move to choose")
        return legal[self.rng.randrange(len(legal))]
