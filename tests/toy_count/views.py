"""Count to three's own page and API view (its glue's ``urls`` and ``api_urls``)."""

from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from tests.toy_count.engine import GOAL


def goal_page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(f"Whoever says {GOAL} wins.", content_type="text/plain")


class GoalView(APIView):
    permission_classes = [AllowAny]

    def get(self, request) -> Response:
        return Response({"goal": GOAL})
