"""The invitation links of private games in the HTTP API: the creator reads or renews a game's
link, whoever holds one takes a seat by it (``games.services.invitations``)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors
from games.api import CSRF_FAILED, NOT_AUTHENTICATED, NOT_FOUND, error
from games.serializers import GameSummarySerializer, InvitationSerializer
from games.services.invitations import invitation_accept, invitation_of, invitation_rotate


def invitation(request: Request, game_id: int, token: str) -> dict:
    path = reverse("invitation", kwargs={"token": token})
    return {"game": game_id, "token": token, "url": request.build_absolute_uri(path)}


NO_INVITATION = error(
    "no_invitation: only a private game for several players has an invitation link",
    ("no_invitation", "only a private game for several players has an invitation link"),
)
NOT_CREATOR = error(
    "forbidden: only the creator of the game has its link; csrf_failed: a browser session"
    " must send the X-CSRFToken header",
    ("forbidden", "only the player who created the game can invite to it"),
    ("csrf_failed", "CSRF Failed: CSRF token missing."),
)


LINK_RESPONSES = {
    200: InvitationSerializer,
    401: NOT_AUTHENTICATED,
    403: NOT_CREATOR,
    404: NOT_FOUND,
    409: NO_INVITATION,
}


class GameInvitationView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="game_invitation",
        tags=["games"],
        summary="The invitation link of a private game (creator only)",
        description=(
            "The link stays the same until the creator asks for a new one (`POST`). Whoever"
            " opens it gets a free seat: `POST /api/invitations/{token}/accept/`."
        ),
        responses=LINK_RESPONSES,
    )
    def get(self, request: Request, game_id: int) -> Response:
        token = invitation_of(game_id=game_id, user=request.user)
        return Response(invitation(request, game_id, token))

    @extend_schema(
        operation_id="game_invitation_renew",
        tags=["games"],
        summary="A new invitation link (creator only); every older link stops working",
        request=None,
        responses=LINK_RESPONSES,
    )
    def post(self, request: Request, game_id: int) -> Response:
        token = invitation_rotate(game_id=game_id, user=request.user)
        return Response(invitation(request, game_id, token))


class InvitationAcceptView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="invitation_accept",
        tags=["games"],
        summary="Take a seat by an invitation link's token",
        description=(
            "A free seat in the game the token names, or the seat you already have there"
            " (nothing changes). Everyone on the game socket gets a `joined` event."
        ),
        request=None,
        responses={
            200: GameSummarySerializer,
            401: NOT_AUTHENTICATED,
            403: CSRF_FAILED,
            404: error(
                "invitation_invalid: not a link the site made (cut, changed or made up);"
                " not_found: its game is gone",
                ("invitation_invalid", "this invitation link is not valid"),
                ("not_found", "there is no game 42"),
            ),
            409: error(
                "the seat is refused",
                ("full", "the game is full"),
                ("started", "the game has already started"),
                ("game_over", "the game is over"),
            ),
            410: error(
                "invitation_revoked: the creator made a new link since",
                ("invitation_revoked", "this invitation link was replaced by a new one"),
            ),
        },
    )
    def post(self, request: Request, token: str) -> Response:
        seat = invitation_accept(token=token, user=request.user)
        return Response(selectors.game_summary(seat.game))
