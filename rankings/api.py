"""The rankings in the HTTP API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from rankings import selectors


class RankingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the best; equal scores share a rank")
    player = serializers.IntegerField(help_text="player (user) id")
    name = serializers.CharField(help_text="the player's name")
    score = serializers.IntegerField(help_text="the seat's final total (R3)")
    game_id = serializers.IntegerField()
    rating = serializers.FloatField(
        allow_null=True, help_text="the player's rating; null until ratings are computed"
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
            " Each row carries the player's `rating` (null until ratings are computed)."
        ),
        responses={200: RankingRowSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.best_game_scores())
