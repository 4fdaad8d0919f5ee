"""Pages of a game: the table where people play (or watch) in the browser."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from games import errors, kinds, queries, registry, selectors, turns
from games.colors import color_letters, color_names
from games.models import Game
from games.services.invitations import invitation_token
from rankings import selectors as rankings


def ui_strings() -> dict:
    """The shell's sentences (static/js/shell.js and static/js/game/), the same for every kind
    of game, in the request's language.

    Placeholders in braces (``{name}``) are filled in by the script.
    """
    return {
        "colors": color_names(),
        "letters": color_letters(),
        "statuses": {value: str(label) for value, label in Game.Status.choices},
        "end_reasons": {
            "admin": _("The game was ended by an administrator."),
        },
        "your_turn": _("Your turn."),  # a table without a turn line of its own
        "their_turn": _("{name}'s turn."),
        "chat_unread": _("{count} new"),
        "time_left": _("Time left for this turn: {time}"),
        "you": _("you"),
        "bot": _("computer"),
        "bot_title": _("A computer player"),
        "vote_end": _("Vote to end the game"),
        "vote_back": _("Take back my vote to end"),
        "vote_end_question": _(
            "Vote to end the game now? It ends as soon as every player has voted (R8.2)."
        ),
        "vote_back_question": _("Take back your vote to end the game?"),
        "leave_waiting_question": _("Give your seat in this game back?"),
        "leave_question": _(
            "Leave this game for good? The computer plays your seat to the end; you cannot"
            " come back."
        ),
        "waiting_for_creator": _("Waiting for {name} to start the game."),
        "need_players": _("At least two players are needed to start."),
        "free_seat": _("free seat"),
        "creator": _("created the game"),
        "request_failed": _("That did not work: {message}"),
        "errors": {
            "illegal_move": _("The rules do not allow that move ({rule})."),
            "not_your_turn": _("It is not your turn."),
            "not_seated": _("You have no seat in this game: you are watching."),
            "not_started": _("The game has not started yet."),
            "game_over": _("The game is over."),
            "left_game": _("You have left this game."),
            "rate_limited": _("Not so fast: wait a moment, then try again."),
            "too_large": _("That message is too long."),
            "bad_field": _("The server did not understand that request."),
            "bad_json": _("The server did not understand that request."),
            "server_error": _("Something went wrong on the server. Please try again."),
            "unavailable": _("The server could not save that; nothing changed. Please try again."),
            "forbidden": _("Only the player who created the game can start it."),
            "too_few_players": _("At least two players are needed to start."),
            "started": _("The game has already started."),
            "full": _("The game is full."),
            "already_seated": _("You already have a seat in this game."),
        },
        "results_place": _("Place"),
        "results_player": _("Player"),
        "results_total": _("Total"),
        "results_rating": _("Rating"),
        "results_rating_title": _("How this game changed the player's rating"),
        "results_shared_place": _("shared"),
        "results_winner": _("Winner: {names}"),
        "results_winners": _("Winners: {names}"),
        "results_no_winner": _("Nobody won this game."),
        "results_you": _("You have {total} points."),
        "results_you_one": _("You have {total} point."),
        "turn_title": _("▶ Your turn · {title}"),
        "notify_body": _("Your move in {kind}"),
        "achievement_earned": _("earned"),
        "achievement_new": pgettext("an achievement earned in this game", "new"),
        "rematch": rematch_strings(),
    }


def page_strings(kind: registry.GameKind) -> dict:
    """The page's strings (json_script "ui-strings"): the shell's and the kind's table's own
    (its glue's ``table_strings``) in one object. A table adds keys of its own and entries to
    the shell's lists (``end_reasons``); it never replaces a shell string."""
    strings = ui_strings()
    own = kind.hook("table_strings", kinds.no_table_strings)
    for key, value in own().items():
        if isinstance(value, dict) and isinstance(strings.get(key), dict):
            strings[key] = {**strings[key], **value}
        else:
            strings[key] = value
    return strings


def rematch_strings() -> dict:
    """The end screen's offer to play again (static/js/game/rematch.js)."""
    return {
        "question": _("Play again with the same players?"),
        "question_solo": _("Another game with the same options?"),
        "play_again": _("Play again"),
        "decline": _("No, thanks"),
        "wants": _("Wants to play again: {names}"),
        "you_accepted": _("You are in: the new game starts once everyone has accepted."),
        "waiting": _("Waiting for: {names}"),
        "declined": _(
            "Declined: {names}. No new game this time; you can start one from the lobby."
        ),
        "lobby": _("To the lobby"),
        "started": _("The new game has begun."),
        "go": _("Go to the new game"),
        "one_attempt": _("The daily challenge counts one attempt: see how you did today."),
        "leaderboard": _("See the day's leaderboard"),
        "errors": {
            "not_finished": _("The game is not over yet."),
            "no_rematch": _("This game counts one attempt: it is not played again."),
            "left_game": _("You have left this game."),
            "not_seated": _("You have no seat in this game: you are watching."),
            "rematch_declined": _("Someone declined: start a new game from the lobby."),
            "rematch_started": _("The new game has begun already."),
            "offline": _("The server could not be reached. Please try again."),
        },
    }


def my_games_page(request: HttpRequest) -> HttpResponse:
    """Every game the person sits in, those waiting for their move first."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("home"))
    games = queries.my_games(request.user.pk)
    labels = {status.value: status.label for status in Game.Status}
    pace = turns.pace_words()
    for game in games:
        game["kind_label"] = registry.get(game["kind"]).name
        game["status_label"] = labels[game["status"]]
        game["day_name"] = selectors.day_name(game["kind"], game["options"])
        game["deadline"] = parse_datetime(game["turn_deadline"]) if game["turn_deadline"] else None
        game["pace_words"] = pace.get(game["turn_seconds"]) if game["pace"] != "live" else None
    groups = [
        ("your-move", _("Your move"), [game for game in games if game["your_move"]]),
        (
            "playing",
            _("Being played"),
            [g for g in games if g["status"] in Game.PLAYING and not g["your_move"]],
        ),
        ("waiting", _("Waiting for players"), [g for g in games if g["status"] == "WAITING"]),
        ("ended", _("Ended"), [g for g in games if g["status"] in Game.OVER]),
    ]
    return render(request, "games/mine.html", {"groups": groups})


def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table: seated players play, anyone else logged in watches (R9.1)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("home"))
    game = get_object_or_404(Game, pk=game_id)
    try:
        queries.check_visible(game, request.user.pk)
    except errors.ServiceError as refused:
        raise PermissionDenied(refused.message) from None
    state = selectors.game_view(game, request.user.pk)
    kind = registry.get(game.kind)
    context = {
        "game": game,
        "kind": kind,
        "user_id": request.user.pk,
        "state": state,
        "seated": "you" in state,
        "strings": page_strings(kind),
        "table_template": kind.glue.TABLE_TEMPLATE,
        "table_script": kind.glue.TABLE_SCRIPT,
        "achievements": rankings.achievements_of(request.user.pk, game.kind),
        "day_name": selectors.day_name(game.kind, game.options),
        "pace_words": turns.pace_words().get(game.turn_seconds) if game.turn_based else None,
        "invitation_url": invitation_url(request, game, kind),
        **kind.glue.page_context(game),
    }
    return render(request, "games/game.html", context)


def invitation_url(request: HttpRequest, game: Game, kind: registry.GameKind) -> str | None:
    """The invitation link, for the creator of a private game waiting for players."""
    if (
        kind.solo
        or not game.private
        or game.status != Game.Status.WAITING
        or game.creator_id != request.user.pk
    ):
        return None
    path = reverse("invitation", kwargs={"token": invitation_token(game)})
    return request.build_absolute_uri(path)


RULES_LANGUAGES = ("de", "en")  # the first is the default


def rules_index(request: HttpRequest) -> HttpResponse:
    """Every kind of game the site offers, each with a line on it and a link to its rules."""
    return render(request, "rules/index.html", {"kinds": registry.KINDS.values()})


def rules_page(request: HttpRequest, kind: str) -> HttpResponse:
    """The rules of a kind of game, in the page's language."""
    if kind not in registry.KINDS:
        raise Http404(f"there is no game kind {kind!r}")
    language = (get_language() or "").split("-")[0]
    if language not in RULES_LANGUAGES:
        language = RULES_LANGUAGES[0]
    game_kind = registry.get(kind)
    context = {
        "kind": game_kind,
        "kinds": registry.KINDS.values(),
        **game_kind.glue.rules_context(),
    }
    return render(request, f"rules/{kind}_{language}.html", context)
