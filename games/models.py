"""Games, seats, roads, destination cards, the move log, the activity feed and chat.

``Game.state`` holds the engine's full state (the kind's ``to_dict``: decks, hands, the random
generator) and is the truth a restarted server resumes from. Seats (and, for Rat um Rad, built
roads and destination cards) are kept in step with it in the same transaction by the kind's
glue (``games.kinds``), so that the admin, rankings and queries can read them without the
engine. Nothing here is sent to a client
directly: views come from ``games.selectors``.
"""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.fields import JSONField


def new_invitation_nonce() -> str:
    """A fresh per-game secret part of the invitation link (``games.services.invitations``)."""
    return secrets.token_urlsafe(12)


class Game(models.Model):
    class Status(models.TextChoices):
        WAITING = "WAITING", _("waiting for players")
        PREPARATION = "PREPARATION", _("choosing destination cards")
        RUNNING = "RUNNING", _("running")
        FINAL_ROUND = "FINAL_ROUND", _("final round")
        FINISHED = "FINISHED", _("finished")
        ABORTED = "ABORTED", _("aborted")

    PLAYING = (Status.PREPARATION, Status.RUNNING, Status.FINAL_ROUND)
    OVER = (Status.FINISHED, Status.ABORTED)

    class Pace(models.TextChoices):
        LIVE = "live", _("live")
        TURN_BASED = "turn_based", _("turn-based")

    name = models.CharField(_("name"), max_length=64)
    # What is played: a key of ``games.registry.KINDS`` and that kind's options (checked by
    # its engine's ``check_options`` when the game is created).
    kind = models.CharField(_("kind"), max_length=16, default="ratumrad")
    options = JSONField(_("options"), default=dict, blank=True)
    board = models.CharField(max_length=32, default="basel")
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.WAITING
    )
    max_players = models.PositiveSmallIntegerField(_("seats"))
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    seed = models.BigIntegerField()
    seq = models.PositiveIntegerField(default=0)
    state = JSONField(null=True, blank=True, editable=False)
    end_reason = models.CharField(
        max_length=32, blank=True
    )  # the engine's reason, e.g. three_failed_rolls
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)  # the last change of state or seats
    # A private game is not listed in the lobby; people join it by its link.
    private = models.BooleanField(_("private"), default=False)
    # Seconds a person has for a turn (and for the preparation) before the computer
    # plays their seat (``games.turns``); null: no limit.
    turn_seconds = models.PositiveIntegerField(_("seconds per turn"), null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # Live: a turn lasts seconds. Turn-based: hours or days, and when one runs out the
    # computer plays that one turn for the person (``games.turns``).
    pace = models.CharField(_("pace"), max_length=16, choices=Pace.choices, default=Pace.LIVE)
    # Whether a computer-played seat must act now: the sweeper restarts the bots of such a
    # game only (``games.sweeper``), not of the many waiting for a person.
    computer_to_move = models.BooleanField(default=False)
    # Signed into the game's invitation link; a new one (the creator's "new link") makes
    # every link given out before it invalid.
    invitation_nonce = models.CharField(max_length=24, default=new_invitation_nonce, editable=False)

    class Meta:
        ordering = ["-created", "-id"]
        # Plain indexes: db_index=True would add a second one for LIKE on PostgreSQL, which
        # no query uses and every update that changes a row's status would write.
        indexes = [
            models.Index(fields=["status"], name="game_status"),
            models.Index(fields=["kind"], name="game_kind"),
            models.Index(
                fields=["updated"],
                name="game_computer_to_move",
                condition=models.Q(computer_to_move=True),
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name}"

    @property
    def is_playing(self) -> bool:
        return self.status in self.PLAYING

    @property
    def turn_based(self) -> bool:
        return self.pace == self.Pace.TURN_BASED


# The rows of a game are found through their game: each table's unique constraint or index
# starts with ``game``, so the foreign key needs no index of its own (one less to write on
# every move).
#
# A change of a seat of a game being played also writes the game's row (services: _record,
# _record_seats, do_game_abort): a move read without a lock checks only the version of the
# game's row before it writes (games.moves.play.prepare_guarded).


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seats"
    )
    joined = models.DateTimeField(auto_now_add=True)
    is_bot = models.BooleanField(default=False)
    bot = models.CharField(max_length=16, blank=True)  # the kind of computer player
    # The computer plays this person's seat: they ran out of time (until they take the
    # seat back) or left the game for good (``left``).
    autopilot = models.BooleanField(default=False)
    # Turns in a row whose time ran out (a turn-based game: after ``turns.KEEPS_SEAT_AFTER``
    # the computer keeps the seat until its person takes it back); 0 once they move.
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    left = models.BooleanField(default=False)
    # The engine's ``to_move`` names this seat now (a projection of Game.state, written with
    # every move that changes it): a person's games waiting for them are found by it.
    to_move = models.BooleanField(default=False)
    # Filled when the game starts and after every move (a projection of Game.state).
    turn_order = models.PositiveSmallIntegerField(null=True, blank=True)
    color = models.CharField(max_length=16, blank=True)
    score = models.IntegerField(default=0)
    wheels = models.PositiveSmallIntegerField(default=30)
    hand = JSONField(default=dict, blank=True)
    # Filled when the game finishes.
    total = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # The results row's ``won`` (games/contract.py): first place is no win in a solo game
    # whose goal was missed.
    won = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["game", "turn_order", "joined", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="one_seat_per_player"),
        ]
        indexes = [
            models.Index(fields=["user"], name="seat_to_move", condition=models.Q(to_move=True)),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.game}"

    @property
    def computer_plays(self) -> bool:
        """The bot driver moves for this seat (a computer player, or a person's stand-in)."""
        return self.is_bot or self.autopilot


class BuiltRoad(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="built_roads", db_index=False
    )
    road = models.PositiveSmallIntegerField()
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="roads")
    seq = models.PositiveIntegerField()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "road"], name="road_built_once")]

    def __str__(self) -> str:
        return f"road {self.road} in {self.game_id}"


class DestinationCard(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("to choose")
        KEPT = "kept", _("kept")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="destination_cards", db_index=False
    )
    card = models.PositiveSmallIntegerField()
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="destination_cards")
    status = models.CharField(max_length=8, choices=Status.choices)
    complete = models.BooleanField(null=True)  # known once the game is over

    class Meta:
        ordering = ["game", "seat", "card"]
        constraints = [models.UniqueConstraint(fields=["game", "card"], name="card_held_once")]

    def __str__(self) -> str:
        return f"card {self.card} ({self.status}) in {self.game_id}"


class Move(models.Model):
    """The ordered move log: ``(seed, players, moves)`` replays a game exactly (R2.5)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    payload = JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="one_move_per_seq")]

    def __str__(self) -> str:
        return f"move {self.seq} in {self.game_id}: {self.payload.get('type')}"


class Event(models.Model):
    """One activity-feed entry; ``data`` is public (the engine never puts secrets in events)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    data = JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq", "id"]
        indexes = [models.Index(fields=["game", "seq"], name="event_game_seq")]  # feed, catch-up

    def __str__(self) -> str:
        return f"{self.kind} at {self.seq} in {self.game_id}"


class Rematch(models.Model):
    """A finished game's offer of the same game again: the same seats, the same computer
    players, the same options (``games.services.rematch.rematch_answer``).

    Every person of the finished game answers; once all of them accepted, ``new_game`` is
    dealt. One decline ends the offer. Written under the finished game's lock.
    """

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="rematch"
    )
    # The user id (a string) of each person who answered: true accepted, false declined.
    answers = JSONField(default=dict, blank=True)
    new_game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"rematch of {self.game_id}"

    @property
    def declined(self) -> bool:
        return False in self.answers.values()


class ChatMessage(models.Model):
    """A chat line in a game, or in the lobby when ``game`` is empty."""

    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="chat"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=500)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.text[:40]}"


class ConnectionQuerySet(models.QuerySet):
    def live(self) -> "ConnectionQuerySet":
        """Connections whose socket reported in lately (a killed server leaves its rows behind)."""
        return self.filter(seen__gte=timezone.now() - settings.PRESENCE_TTL)

    def stale(self) -> "ConnectionQuerySet":
        return self.filter(seen__lt=timezone.now() - settings.PRESENCE_TTL)

    def open(self) -> "ConnectionQuerySet":
        """Live connections whose socket is still open: not one that closed and counts for
        presence only during its grace (``games.presence.linger``)."""
        return self.live().filter(closed__isnull=True)


class Connection(models.Model):
    """An open websocket: who is connected where (presence), across server processes.

    Every socket refreshes ``seen`` while it is open; only live rows count as connected.
    """

    channel_name = models.CharField(max_length=128, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="connections"
    )
    opened = models.DateTimeField(auto_now_add=True)
    seen = models.DateTimeField(default=timezone.now, db_index=True)
    # When the socket closed: its row counts for presence until its grace is over (``seen``
    # then expires), but nobody reads a page on it.
    closed = models.DateTimeField(null=True, blank=True)

    objects = ConnectionQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.user_id} on {self.channel_name}"
