"""The rankings in the HTTP API: best game scores, ratings and one player's record."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import BAD_FIELD, BAD_TOKEN, error, parse
from games.errors import NotFound
from games.serializers import kind_field
from rankings import selectors

RATING_HELP = (
    "the player's rating (openskill ordinal mu - 3 sigma, one decimal); 0 for a new player,"
    " null until the player's first rated game"
)


class RankingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the best; equal scores share a rank")
    player = serializers.IntegerField(help_text="player (user) id")
    name = serializers.CharField(help_text="the player's name")
    score = serializers.IntegerField(help_text="the seat's final total (R3)")
    game_id = serializers.IntegerField()
    rating = serializers.FloatField(allow_null=True, help_text=RATING_HELP)
    is_bot = serializers.BooleanField(help_text="a computer player had this seat")


class RatingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the best; equal ratings share a rank")
    player = serializers.IntegerField(help_text="player (user) id")
    name = serializers.CharField(help_text="the player's name")
    rating = serializers.FloatField(
        help_text="the player's rating (openskill ordinal mu - 3 sigma, one decimal)"
    )
    games = serializers.IntegerField(help_text="rated games played")
    is_bot = serializers.BooleanField(help_text="a computer player")


class RankingsQuerySerializer(serializers.Serializer):
    kind = kind_field(required=False, default="ratumrad")
    day = serializers.DateField(
        required=False,
        help_text="a kind ranked by scores (Road to 300): that day's daily games, each"
        " account's first one (T5.2)",
    )


class RatingsQuerySerializer(serializers.Serializer):
    kind = kind_field(required=False, default="ratumrad")


class PlayerKindSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    rating = serializers.FloatField(allow_null=True, help_text=RATING_HELP)
    rated_games = serializers.IntegerField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="finished games won (see history's won)")
    best_score = serializers.IntegerField(allow_null=True)


class PlayerRecordGameSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    game_name = serializers.CharField()
    kind = serializers.CharField()
    finished = serializers.DateTimeField()
    place = serializers.IntegerField(help_text="1 for the best; tied players share a place")
    won = serializers.BooleanField(
        help_text="the player won: first place against others, or a solo game's goal reached"
        " (Road to 300: 300 points, T4.3); a solo game's first place alone is no win"
    )
    players = serializers.IntegerField(help_text="how many played")
    total = serializers.IntegerField(help_text="the player's final total (R3)")
    rating = serializers.FloatField(
        allow_null=True, help_text="the rating after this game; null if it was not rated"
    )
    rating_change = serializers.FloatField(
        allow_null=True, help_text="what this game did to the rating; null if it was not rated"
    )


class AchievementSerializer(serializers.Serializer):
    kind = serializers.CharField()
    key = serializers.CharField()
    title = serializers.CharField(help_text="in the client's language")
    description = serializers.CharField()
    earned = serializers.DateTimeField(allow_null=True)
    game_id = serializers.IntegerField(allow_null=True, help_text="the game that earned it")


class PlayerRecordSerializer(serializers.Serializer):
    player = serializers.IntegerField(help_text="player (user) id")
    name = serializers.CharField(help_text="the player's name")
    is_bot = serializers.BooleanField(help_text="a computer player")
    rating = serializers.FloatField(allow_null=True, help_text=RATING_HELP)
    rated_games = serializers.IntegerField()
    games = serializers.IntegerField(help_text="finished games played")
    wins = serializers.IntegerField(help_text="finished games won (see history's won)")
    best_score = serializers.IntegerField(allow_null=True, help_text="the best final total")
    kinds = PlayerKindSerializer(many=True, help_text="the same per kind of game played")
    history = PlayerRecordGameSerializer(
        many=True, help_text=f"the latest {selectors.HISTORY} finished games, newest first"
    )
    achievements = AchievementSerializer(
        many=True, help_text="the achievements earned, every kind, newest first"
    )


class RankingsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="rankings",
        tags=["rankings"],
        summary="The best game scores",
        description=(
            f"The best final totals of finished games, one row per seat, at most"
            f" {selectors.TOP}, best first; equal scores share a rank (1, 2, 2, 4)."
            " Each row carries the player's current `rating` (null until rated) and whether"
            " a computer player had the seat (`is_bot`). `kind` picks the kind of game"
            " (Rat um Rad by default); `day` the daily games of that day."
        ),
        parameters=[RankingsQuerySerializer],
        responses={200: RankingRowSerializer(many=True), 400: BAD_FIELD, 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        query = parse(RankingsQuerySerializer, request.query_params)
        day = query["day"].isoformat() if query.get("day") else None
        return Response(selectors.best_game_scores(kind=query["kind"], day=day))


class RatingsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="rankings_ratings",
        tags=["rankings"],
        summary="The players by rating",
        description=(
            f"Every rated player, at most {selectors.TOP}, best rating first; equal ratings"
            " share a rank. Every finished game rates all its seats by place (openskill's"
            " Plackett-Luce model), computer players included; aborted games are not rated."
            " Ratings are per kind of game (`kind`, Rat um Rad by default)."
        ),
        parameters=[RatingsQuerySerializer],
        responses={200: RatingRowSerializer(many=True), 400: BAD_FIELD, 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        query = parse(RatingsQuerySerializer, request.query_params)
        return Response(selectors.ratings(kind=query["kind"]))


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="player",
        tags=["rankings"],
        summary="A player's rating and games",
        description="The player's rating, wins, best score and latest finished games.",
        responses={
            200: PlayerRecordSerializer,
            401: BAD_TOKEN,
            404: error(
                "not_found: there is no such player", ("not_found", "there is no player 42")
            ),
        },
    )
    def get(self, request: Request, user_id: int) -> Response:
        user = get_user_model().objects.filter(pk=user_id).first()
        if user is None:
            raise NotFound("there is no player {user_id}", user_id=user_id)
        record = selectors.player_record(user)
        for game in record["history"]:
            game["finished"] = game["finished"].isoformat()  # as in the games API
        return Response(record)
