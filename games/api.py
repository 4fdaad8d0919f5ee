"""The games part of the HTTP API: the lobby list, seats, starting, a game's view and log, the map.

Views parse input, call a service or selector and send its result; the rules are in
``games.services`` (changes) and ``games.selectors`` / ``games.queries`` (reads).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import queries, registry, selectors
from games.limits import HintAddressThrottle, HintThrottle
from games.serializers import (
    ErrorSerializer,
    GameCreateSerializer,
    GameListQuerySerializer,
    GameLogSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    HintSerializer,
    KindSerializer,
    MyGameSerializer,
    RematchAnswerSerializer,
    RematchSerializer,
)
from games.services.lifecycle import game_create, game_join, game_start
from games.services.rematch import rematch_answer
from games.services.seats import game_leave


def parse(serializer_class: type[serializers.Serializer], data: Any) -> dict:
    """The validated fields, or a 400 ``bad_field`` naming the first bad one."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def error(description: str, *examples: tuple[str, str]) -> OpenApiResponse:
    return OpenApiResponse(
        ErrorSerializer,
        description=description,
        examples=[
            OpenApiExample(code, value={"code": code, "message": message})
            for code, message in examples
        ],
    )


BAD_FIELD = error(
    "bad_field: a parameter has the wrong type or is out of range",
    ("bad_field", 'status: "PLAYING" is not a valid choice.'),
)
BAD_BODY = error(
    "bad_field: a field is missing, has the wrong type or is out of range;"
    " bad_json: the body is not JSON",
    ("bad_field", "max_players: Ensure this value is less than or equal to 5."),
    ("bad_json", "JSON parse error - Expecting value: line 1 column 1 (char 0)"),
)
NOT_AUTHENTICATED = error(
    "not_authenticated: send the session cookie or `Authorization: Token <key>`",
    ("not_authenticated", "Authentication credentials were not provided."),
)
CSRF_FAILED = error(
    "csrf_failed: a browser session must send the X-CSRFToken header",
    ("csrf_failed", "CSRF Failed: CSRF token missing."),
)
SEALED = error(
    "sealed: a daily challenge game of a day that still runs; only its player sees it",
    (
        "sealed",
        "today's daily challenge games are shown to their own player only until the day is over",
    ),
)
NOT_FOUND = error("not_found: there is no such game", ("not_found", "there is no game 42"))
# Public reads too: a token is checked whenever one is sent (docs/protocol.md, Identity).
BAD_TOKEN = error(
    "not_authenticated: the token sent is not valid", ("not_authenticated", "Invalid token.")
)


class GameListView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        operation_id="games_list",
        tags=["games"],
        summary="List games, newest first",
        description="Page with `limit` and `offset`: a short page is the last one.",
        parameters=[GameListQuerySerializer],
        responses={200: GameSummarySerializer(many=True), 400: BAD_FIELD, 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        query = parse(GameListQuerySerializer, request.query_params)
        return Response(queries.lobby_games(user_id=selectors.viewer_id(request.user), **query))

    @extend_schema(
        operation_id="game_create",
        tags=["games"],
        summary="Create a game and take its first seat",
        request=GameCreateSerializer,
        examples=[
            OpenApiExample(
                "Rat um Rad for three",
                value={"name": "Rheinufer", "kind": "ratumrad", "max_players": 3, "bots": 1},
                request_only=True,
            ),
            OpenApiExample(
                "Road to 300, the daily challenge",
                value={"name": "Solo", "kind": "road300", "options": {"daily": True}},
                request_only=True,
            ),
        ],
        responses={
            201: GameSummarySerializer,
            400: BAD_BODY,
            401: NOT_AUTHENTICATED,
            403: CSRF_FAILED,
            409: error(
                "too_many_waiting: you created as many games waiting for players as allowed"
                " (GAMES_WAITING_PER_USER)",
                (
                    "too_many_waiting",
                    "you already have 5 games waiting for players; start one or leave it first",
                ),
            ),
            429: error(
                "rate_limited: too many new games from you (GAME_RATE)",
                ("rate_limited", "too many new games; try again in 42 seconds"),
            ),
        },
    )
    def post(self, request: Request) -> Response:
        fields = parse(GameCreateSerializer, request.data)
        game = game_create(user=request.user, **fields)
        location = reverse("game-detail", kwargs={"game_id": game.pk})
        return Response(selectors.game_summary(game), status=201, headers={"Location": location})


class GameJoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="game_join",
        tags=["games"],
        summary="Take a seat in a waiting game",
        request=None,
        responses={
            200: GameSummarySerializer,
            401: NOT_AUTHENTICATED,
            403: CSRF_FAILED,
            404: NOT_FOUND,
            409: error(
                "the seat is refused",
                ("full", "the game is full"),
                ("started", "the game has already started"),
                ("already_seated", "you already have a seat in this game"),
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        seat = game_join(game_id=game_id, user=request.user)
        return Response(selectors.game_summary(seat.game))


class GameStartView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="game_start",
        tags=["games"],
        summary="Deal the cards (creator only, 2+ seats)",
        description="The game moves on to the preparation phase (R2).",
        request=None,
        responses={
            200: GameSummarySerializer,
            401: NOT_AUTHENTICATED,
            403: error(
                "forbidden: only the creator may start the game; csrf_failed: a browser"
                " session must send the X-CSRFToken header",
                ("forbidden", "only the player who created the game can start it"),
                ("csrf_failed", "CSRF Failed: CSRF token missing."),
            ),
            404: NOT_FOUND,
            409: error(
                "the game cannot start",
                ("started", "the game has already started"),
                ("too_few_players", "a game needs at least 2 players (R1.1)"),
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_start(game_id=game_id, user=request.user)
        return Response(selectors.game_summary(game))


class GameLeaveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="game_leave",
        tags=["games"],
        summary="Leave a game for good",
        description=(
            "Before the deal the seat is given back (a waiting game without people is called"
            " off). Once dealt, the computer plays the seat to the end."
        ),
        request=None,
        responses={
            200: GameSummarySerializer,
            401: NOT_AUTHENTICATED,
            403: error(
                "not_seated: you have no seat; csrf_failed: a browser session must send the"
                " X-CSRFToken header",
                ("not_seated", "you have no seat in this game"),
                ("csrf_failed", "CSRF Failed: CSRF token missing."),
            ),
            404: NOT_FOUND,
            409: error(
                "nothing to leave",
                ("game_over", "the game is over"),
                ("left_game", "you have already left this game"),
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_leave(game_id=game_id, user=request.user)
        return Response(selectors.game_summary(game))


class MyGamesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_mine",
        tags=["games"],
        summary="The caller's games, those waiting for their move first",
        description=(
            "Every game the caller sits in: first those being played whose move is the"
            " caller's now (`your_move`; the nearest `turn_deadline` first), then the others"
            " being played, then those waiting for players, then the 20 that ended last."
        ),
        responses={200: MyGameSerializer(many=True), 401: NOT_AUTHENTICATED},
    )
    def get(self, request: Request) -> Response:
        return Response(queries.my_games(request.user.pk))


class GameDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="game_view",
        tags=["games"],
        summary="What the caller may see of a game",
        description=(
            "A seated player gets their own view (the websocket's `STATE`, with `you`); "
            "everyone else the public view (R9.1). `results` once finished."
        ),
        responses={200: GameViewSerializer, 401: BAD_TOKEN, 403: SEALED, 404: NOT_FOUND},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = queries.visible_game(game_id, selectors.viewer_id(request.user))
        return Response(selectors.game_view(game, selectors.viewer_id(request.user)))


class GameLogView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="game_log",
        tags=["games"],
        summary="A finished game's seed, players and moves (replays it exactly, R2.5)",
        description=(
            "A daily challenge game (Road to 300) while its day runs: only its player gets the"
            " log, with `seed` null; the seed is published once the day is over (T5.2)."
        ),
        responses={
            200: GameLogSerializer,
            401: BAD_TOKEN,
            403: SEALED,
            404: NOT_FOUND,
            409: error(
                "not_finished: the log is published once the game is finished",
                ("not_finished", "the log is published once the game is finished"),
            ),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(queries.finished_game_log(game_id, selectors.viewer_id(request.user)))


class GameHintView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [HintThrottle, HintAddressThrottle]

    @extend_schema(
        operation_id="game_hint",
        tags=["games"],
        summary="What the kind's strong bot would play in your seat now (Road to 300, T5.1)",
        description=(
            "Kinds with a hint bot only. The daily challenge gives no hints. The move is one "
            "of the seat's `legal` entries; send it as any move."
        ),
        responses={
            200: HintSerializer,
            401: NOT_AUTHENTICATED,
            403: error("not_seated: only a player may ask", ("not_seated", "only a player ...")),
            404: NOT_FOUND,
            409: error(
                "no_hint: the kind or the daily challenge has none; not_your_turn: nothing to "
                "decide now",
                ("no_hint", "the daily challenge is played without hints"),
                ("not_your_turn", "there is nothing for you to decide now"),
            ),
            429: error(
                "rate_limited: too many hints from you (HINT_RATE) or your address"
                " (HINT_ADDRESS_RATE)",
                ("rate_limited", "too many requests; try again in 42 seconds"),
            ),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(queries.game_hint(game_id, request.user.pk))


class GameRematchView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="game_rematch",
        tags=["games"],
        summary="Answer the offer to play a finished game again",
        description=(
            "The same seats, computer players and options. Each person asked answers; once"
            " all accepted, the new game is dealt (a solo game's at once) and `game` names it."
            " One decline ends the offer. Answering again as before changes nothing. Every"
            " socket of the finished game gets its `STATE` with the offer (`rematch`)."
        ),
        request=RematchAnswerSerializer,
        responses={
            200: RematchSerializer,
            400: BAD_BODY,
            401: NOT_AUTHENTICATED,
            403: error(
                "not_seated: only a player of the game may answer; csrf_failed: a browser"
                " session must send the X-CSRFToken header",
                ("not_seated", "you have no seat in this game"),
                ("csrf_failed", "CSRF Failed: CSRF token missing."),
            ),
            404: NOT_FOUND,
            409: error(
                "the game is not played again",
                ("not_finished", "only a finished game can be played again"),
                ("no_rematch", "this game counts one attempt: it is not played again"),
                ("left_game", "you have left this game"),
                (
                    "rematch_declined",
                    "someone declined to play again: start a new game from the lobby",
                ),
                ("rematch_started", "the new game has begun already"),
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        fields = parse(RematchAnswerSerializer, request.data)
        rematch = rematch_answer(game_id=game_id, user=request.user, **fields)
        return Response(selectors.rematch_state(rematch.game))


class KindListView(APIView):
    """The kinds of game the site offers."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="kinds_list",
        tags=["games"],
        summary="The kinds of game, with their seats and options",
        description="Each option with its type, choices and default; `POST /api/games/` takes"
        " `kind` and `options`.",
        responses={200: KindSerializer(many=True), 401: BAD_TOKEN},
    )
    def get(self, request: Request) -> Response:
        return Response([kind.public_dict() for kind in registry.KINDS.values()])
