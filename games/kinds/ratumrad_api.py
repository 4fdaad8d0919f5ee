"""Rat um Rad's own API views, routed under ``api/`` through its glue's ``api_urls``."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import BAD_TOKEN
from games.kinds import ratumrad
from games.serializers import MapSerializer


class BaselMapView(APIView):
    """The Basel board: locations, roads and destination cards."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="map_basel",
        tags=["maps"],
        summary="The Basel board: locations, roads, destination cards, the Rhine",
        responses={200: MapSerializer, 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        return Response(ratumrad.public_map())


urlpatterns = [path("maps/basel/", BaselMapView.as_view(), name="map-basel")]
