"""The rankings in the HTTP API: best game scores, ratings and one player's record."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import BAD_TOKEN, error
from games.services import NotFound
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


class PlayerRecordGameSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    game_name = serializers.CharField()
    finished = serializers.DateTimeField()
    place = serializers.IntegerField(help_text="1 for the winner; tied players share a place")
    players = serializers.IntegerField(help_text="how many played")
    total = serializers.IntegerField(help_text="the player's final total (R3)")
    rating = serializers.FloatField(
        allow_null=True, help_text="the rating after this game; null if it was not rated"
    )
    rating_change = serializers.FloatField(
        allow_null=True, help_text="what this game did to the rating; null if it was not rated"
    )


class PlayerRecordSerializer(serializers.Serializer):
    player = serializers.IntegerField(help_text="player (user) id")
    name = serializers.CharField(help_text="the player's name")
    is_bot = serializers.BooleanField(help_text="a computer player")
    rating = serializers.FloatField(allow_null=True, help_text=RATING_HELP)
    rated_games = serializers.IntegerField()
    games = serializers.IntegerField(help_text="finished games played")
    wins = serializers.IntegerField(help_text="finished games in first place (ties included)")
    best_score = serializers.IntegerField(allow_null=True, help_text="the best final total")
    history = PlayerRecordGameSerializer(
        many=True, help_text=f"the latest {selectors.HISTORY} finished games, newest first"
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
            " a computer player had the seat (`is_bot`)."
        ),
        responses={200: RankingRowSerializer(many=True), 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.best_game_scores())


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
        ),
        responses={200: RatingRowSerializer(many=True), 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.ratings())


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
            raise NotFound(f"there is no player {user_id}")
        record = selectors.player_record(user)
        for game in record["history"]:
            game["finished"] = game["finished"].isoformat()  # as in the games API
        return Response(record)
