"""Request parsers and response shapes of the HTTP API.

Request serializers check the types and ranges a client sends; the rules themselves stay in
``games.services``. Response serializers only document what the selectors return (the views
send the selectors' dicts as they are); tests/test_api_schema.py checks real responses
against them.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers

from games import registry, turns
from games.models import Game
from games.ratumrad import engine as ratumrad_engine
from games.ratumrad.board import CARD_COLORS, GREY

COLOR_CHOICES = [*CARD_COLORS, GREY]
TURN_CHOICES = ["second_card", "choose_destinations"]
LIST_LIMIT = 50
LIST_MAX_LIMIT = 100
LIST_MAX_OFFSET = 2**31 - 1  # far beyond any list; a larger OFFSET overflows SQLite's integers


class TextField(serializers.CharField):
    """A CharField that takes only JSON strings: ``{"name": 0}`` is refused, not read as "0"."""

    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A BooleanField that takes only JSON ``true`` and ``false``: ``"yes"`` is refused."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


# ---------------------------------------------------------------------------- errors


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="for programs, e.g. `bad_field`, `full`")
    message = serializers.CharField(
        help_text="for people; the framework's own messages follow the request's language"
    )


# ---------------------------------------------------------------------------- requests


class KindField(serializers.ChoiceField):
    """A kind of the registry as it is when the request comes (not when this module loaded)."""

    def to_internal_value(self, data):
        if list(self.choices) != list(registry.KINDS):
            self.choices = list(registry.KINDS)
        return super().to_internal_value(data)


def kind_field(**kwargs) -> serializers.ChoiceField:
    return KindField(
        choices=list(registry.KINDS), help_text="the kind of game (`GET /api/kinds/`)", **kwargs
    )


class GameListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=Game.Status.choices, required=False, help_text="only games in this status"
    )
    kind = kind_field(required=False)
    limit = serializers.IntegerField(
        min_value=1, max_value=LIST_MAX_LIMIT, default=LIST_LIMIT, help_text="page size"
    )
    offset = serializers.IntegerField(
        min_value=0, max_value=LIST_MAX_OFFSET, default=0, help_text="games to skip"
    )


class GameCreateSerializer(serializers.Serializer):
    name = TextField(max_length=64)
    kind = kind_field(default=registry.DEFAULT_KIND)
    options = serializers.DictField(
        default=dict,
        help_text="the kind's options (`GET /api/kinds/` lists them with their defaults)",
    )
    max_players = serializers.IntegerField(
        min_value=1,
        max_value=8,
        required=False,
        help_text="seats, within the kind's range (Rat um Rad: 2 to 5, R1.1); by default the"
        " kind's least; a solo kind takes none",
    )
    bots = serializers.IntegerField(
        min_value=0,
        max_value=7,
        default=0,
        help_text="seats for computer players; must leave a seat for the caller",
    )
    private = StrictBooleanField(
        default=False,
        help_text="`true` or `false`: not listed in the lobby; people join it by its link",
    )

    def validate(self, data: dict) -> dict:
        solo = registry.get(data["kind"]).solo
        if "max_players" not in data and not solo:
            raise serializers.ValidationError(
                {"max_players": [self.fields["max_players"].error_messages["required"]]}
            )
        if solo:
            # A solo kind seats the caller alone: seats or computer players asked for are
            # refused rather than silently dropped.
            for name in ("max_players", "bots"):
                if name in self.initial_data:
                    raise serializers.ValidationError(
                        {name: [_("a solo game takes no {field}").format(field=name)]}
                    )
        return data

    turn_seconds = serializers.IntegerField(
        min_value=0,
        max_value=max(turns.TURN_BASED_SECONDS),
        allow_null=True,
        required=False,
        help_text="a person's seconds per turn before the computer plays for them. Live: 10 to"
        " 3600, 0 or null for no limit; by default the site's limit for a public game"
        " (TURN_SECONDS_PUBLIC) and none for a private one. Turn-based: 43200, 86400 (the"
        " default) or 259200",
    )
    pace = serializers.ChoiceField(
        choices=Game.Pace.choices,
        default=Game.Pace.LIVE,
        help_text="`live` (a turn lasts seconds) or `turn_based` (hours or days; the game goes"
        " on with nobody connected, and when a turn runs out the computer plays that one turn;"
        " after 3 in a row it keeps the seat until its person takes it back)",
    )


# ---------------------------------------------------------------------------- lobby


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField(help_text="the kind of game")
    options = serializers.DictField(help_text="the kind's options, defaults filled in")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    players = serializers.IntegerField(help_text="seats taken")
    max_players = serializers.IntegerField()
    pace = serializers.ChoiceField(
        choices=Game.Pace.choices, help_text="`live` or `turn_based` (hours or days a turn)"
    )
    turn_seconds = serializers.IntegerField(
        allow_null=True, help_text="a person's seconds per turn; null: no limit"
    )
    created = serializers.DateTimeField()
    finished = serializers.DateTimeField(
        allow_null=True, help_text="when it ended (finished or called off); null before"
    )


class MyGameSerializer(GameSummarySerializer):
    your_move = serializers.BooleanField(
        help_text="the game is being played and waits for the caller's move"
    )
    turn_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="until when the players who must act now have; null: no limit, or not played",
    )


# ---------------------------------------------------------------------------- a game's view


class DestinationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    a = serializers.CharField(help_text="a location id")
    b = serializers.CharField(help_text="a location id")
    points = serializers.IntegerField()
    long = serializers.BooleanField()


class HeldDestinationSerializer(DestinationSerializer):
    complete = serializers.BooleanField(help_text="a and b are connected by the holder's roads")


def hand_field(**kwargs) -> serializers.DictField:
    return serializers.DictField(
        child=serializers.IntegerField(),
        help_text=f"wheel cards by colour: {', '.join(ratumrad_engine.COLORS)}",
        **kwargs,
    )


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the player's user id")
    name = serializers.CharField()
    is_bot = serializers.BooleanField()
    autopilot = serializers.BooleanField(
        help_text="the computer plays this person's seat: their time ran out, or they left"
    )
    left = serializers.BooleanField(help_text="the person left the game for good")
    connected = serializers.BooleanField()
    color = serializers.CharField(
        allow_null=True, required=False, help_text="Rat um Rad: null until the cards are dealt"
    )
    score = serializers.IntegerField(required=False)
    wheels = serializers.IntegerField(required=False)
    wheel_cards = serializers.IntegerField(required=False)
    destination_cards = serializers.IntegerField(required=False)
    pending_destination_cards = serializers.IntegerField(required=False)
    prepared = serializers.BooleanField(required=False)
    voted_end = serializers.BooleanField(required=False)


class YouSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    color = serializers.CharField(required=False)
    hand = hand_field(required=False)
    destinations = HeldDestinationSerializer(many=True, required=False)
    pending_destinations = DestinationSerializer(many=True, required=False)
    new_achievements = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="FINISHED only: the keys of the achievements this game earned you first",
    )


class BuiltRoadSerializer(serializers.Serializer):
    road = serializers.IntegerField()
    owner = serializers.IntegerField(help_text="player id")


class LogResultSerializer(serializers.Serializer):
    player = serializers.IntegerField(help_text="player id")
    color = serializers.CharField()
    road_points = serializers.IntegerField()
    destinations_reached = serializers.IntegerField()
    destinations_reached_points = serializers.IntegerField()
    destinations_missed = serializers.IntegerField()
    destinations_missed_points = serializers.IntegerField()
    longest_path = serializers.IntegerField(help_text="wheels")
    longest_path_roads = serializers.ListField(
        child=serializers.IntegerField(), help_text="road ids of one longest path, in order"
    )
    longest_path_bonus = serializers.BooleanField()
    longest_path_tie = serializers.BooleanField()
    total = serializers.IntegerField()
    place = serializers.IntegerField()
    tied = serializers.BooleanField()
    destinations = HeldDestinationSerializer(many=True)
    hand = hand_field()


class ResultSerializer(LogResultSerializer):
    name = serializers.CharField()
    rating_change = serializers.FloatField(
        allow_null=True,
        help_text="what this game did to the player's rating (one decimal); null if unrated",
    )


class RematchSerializer(serializers.Serializer):
    offered = serializers.BooleanField(
        help_text="the game may be played again (false: it counts one attempt, see `leaderboard`)"
    )
    leaderboard = serializers.CharField(
        allow_null=True,
        help_text="the page to see instead of a new game (Road to 300's daily challenge: the"
        " day's table); null when `offered`",
    )
    asked = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="the people asked: every seated person but those who left",
    )
    accepted = serializers.ListField(child=serializers.IntegerField())
    declined = serializers.ListField(
        child=serializers.IntegerField(), help_text="one decline ends the offer"
    )
    game = serializers.IntegerField(
        allow_null=True, help_text="the new game, once every person asked accepted"
    )


class InvitationSerializer(serializers.Serializer):
    game = serializers.IntegerField(help_text="the game the link invites to")
    token = serializers.CharField(
        help_text="the signed token; `POST /api/invitations/{token}/accept/`"
    )
    url = serializers.CharField(help_text="the link to give out: the invitation's page")


class RematchAnswerSerializer(serializers.Serializer):
    accept = serializers.BooleanField(
        default=True, help_text="true: play again (the default); false: decline"
    )


class GameViewSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    kind = serializers.CharField(help_text="the kind of game; the fields below are Rat um Rad's")
    options = serializers.DictField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    seq = serializers.IntegerField(help_text="moves applied so far")
    players = PlayerSerializer(many=True)
    legal = serializers.ListField(
        child=serializers.DictField(),
        help_text="every move the viewer may send now, exactly as it would be sent",
    )
    you = YouSerializer(required=False, help_text="only for a seated player")
    private = serializers.BooleanField(help_text="not listed in the lobby")
    turn_seconds = serializers.IntegerField(
        allow_null=True, help_text="a person's seconds per turn; null: no limit"
    )
    pace = serializers.ChoiceField(
        choices=Game.Pace.choices, help_text="`live` or `turn_based` (hours or days a turn)"
    )
    turn_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="when the computer takes over the seats that must act now; null: no limit"
        " or nobody's time is running",
    )
    # Before the cards are dealt (WAITING):
    max_players = serializers.IntegerField(required=False)
    min_players = serializers.IntegerField(required=False, help_text="seats needed to start")
    creator = serializers.IntegerField(required=False, allow_null=True)
    # Once the cards are dealt:
    current_player = serializers.IntegerField(required=False, allow_null=True)
    turn = serializers.ChoiceField(choices=TURN_CHOICES, required=False, allow_null=True)
    final_round = serializers.BooleanField(required=False)
    final_turns_left = serializers.IntegerField(required=False, allow_null=True)
    face_up = serializers.ListField(
        child=serializers.CharField(allow_null=True), required=False, help_text="5 slots"
    )
    deck = serializers.IntegerField(required=False)
    discard = serializers.IntegerField(required=False)
    short_deck = serializers.IntegerField(required=False)
    roads = BuiltRoadSerializer(many=True, required=False)
    # Once finished:
    end_reason = serializers.CharField(required=False)
    results = ResultSerializer(many=True, required=False)
    rematch = RematchSerializer(required=False, help_text="the offer to play the game again")


class LoggedMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    player = serializers.IntegerField()
    move = serializers.DictField(help_text="the move as the player sent it")


class GameLogSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    kind = serializers.CharField()
    options = serializers.DictField()
    board = serializers.CharField(help_text="Rat um Rad's map")
    seed = serializers.IntegerField(
        allow_null=True,
        help_text="null for a daily challenge game (Road to 300) until its day is over",
    )
    players = serializers.ListField(
        child=serializers.IntegerField(), help_text="player ids in the order the game was dealt"
    )
    moves = LoggedMoveSerializer(many=True)
    results = LogResultSerializer(many=True)


class HintSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the state the hint is for")
    move = serializers.DictField(help_text="an entry of the seat's `legal`, as it would be sent")
    path = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        required=False,
        help_text="Road to 300: the move's path, `[x, y]` from the first step to `to`",
    )


# ---------------------------------------------------------------------------- the map


class LocationSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    x = serializers.FloatField()
    y = serializers.FloatField()
    bank = serializers.CharField(help_text='side of the Rhine: "gross", "klein" or ""')


class RoadSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    a = serializers.CharField()
    b = serializers.CharField()
    length = serializers.IntegerField()
    color = serializers.ChoiceField(choices=COLOR_CHOICES)
    double_of = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField()


class MapSerializer(serializers.Serializer):
    name = serializers.CharField()
    locations = LocationSerializer(many=True)
    roads = RoadSerializer(many=True)
    destinations = DestinationSerializer(many=True)
    rhine = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2),
        help_text="the river as a polyline of [x, y] points",
    )


# ---------------------------------------------------------------------------- kinds


class KindOptionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["bool", "choice"])
    label = serializers.CharField()
    default = serializers.JSONField()
    choices = serializers.ListField(child=serializers.JSONField())


class KindSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    summary = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    solo = serializers.BooleanField(help_text="one seat: created already started")
    bots = serializers.ListField(child=serializers.CharField(), help_text="computer players")
    options = serializers.DictField(child=KindOptionSerializer())
