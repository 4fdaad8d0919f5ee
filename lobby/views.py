"""Pages of the lobby: the front page (choose a name, or the lobby itself) and accounts."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_http_methods, require_POST

from games import errors, registry, selectors, turns
from games.models import Game, Seat
from games.services import invitations
from games.services.lifecycle import game_join
from lobby.api import GuestThrottle, RegisterThrottle, login_allowed
from lobby.forms import GuestForm, KeepNameForm, LoginForm, NewGameForm, RegisterForm
from lobby.lists import chat_history, games_list
from lobby.models import Guest

FINISHED_LISTED = 20  # finished games on the lobby page; the rankings keep the rest
BACKEND = "django.contrib.auth.backends.ModelBackend"


def game_path(game_id: int) -> str:
    return f"/games/{game_id}/"


def next_path(request: HttpRequest) -> str:
    """Where to go after logging in: a ``next`` on this site, else the lobby."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


def is_guest(user) -> bool:
    return Guest.objects.filter(user=user).exists()


def service_messages() -> dict[str, str]:
    """The lobby's error codes in the page's language (for the join form and the script)."""
    return {
        "full": gettext("This game is full."),
        "started": gettext("This game has already started."),
        "already_seated": gettext("You already have a seat in this game."),
        "not_found": gettext("This game does not exist."),
        "rate_limited": gettext("Not so fast: wait a few seconds, then try again."),
        "too_large": gettext("This message is too long (at most 500 characters)."),
        "bad_field": gettext("This was not understood. Please try again."),
        "server_error": gettext("Something went wrong on the server. Please try again."),
    }


# ---------------------------------------------------------------------------- front page


@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        if request.method == "POST":
            return redirect("home")
        return lobby(request)
    form = GuestForm(request.POST if request.method == "POST" else None)
    chosen = registry.KINDS.get(request.POST.get("kind", ""))  # a game's own "Play" button
    if request.method == "POST" and new_guest(request, form):
        if chosen:
            return redirect(f"{reverse('home')}?kind={chosen.key}#new-game")
        return redirect(next_path(request))
    context = {
        "form": form,
        "next": next_path(request),
        "kinds": registry.KINDS.values(),
        "chosen_kind": chosen,
    }
    return render(request, "home.html", context)


def new_guest(request: HttpRequest, form: GuestForm) -> bool:
    """Log in as a new guest with the name of the (bound) ``form``; False, with the reason on
    the form, when the name is refused or too many guests came from this address lately."""
    if not GuestThrottle().allow_request(request, None):
        form.add_error(
            None, gettext("Too many new players from your address. Please wait a minute.")
        )
        return False
    if form.is_valid() and (guest := form.save()) is not None:
        login(request, guest.user, backend=BACKEND)
        return True
    return False


def kind_label(key: str) -> str:
    kind = registry.KINDS.get(key)
    return str(kind.name) if kind else key


def lobby(request: HttpRequest) -> HttpResponse:
    games = games_list(None, None, request.user.pk)
    seated = set(
        Seat.objects.filter(user=request.user, game_id__in=[g["id"] for g in games]).values_list(
            "game_id", flat=True
        )
    )
    inviting = set(
        Game.objects.filter(
            pk__in=seated, creator=request.user, private=True, status=Game.Status.WAITING
        )
        .exclude(kind__in=[key for key, kind in registry.KINDS.items() if kind.solo])
        .values_list("pk", flat=True)
    )
    for game in games:
        game["seated"] = game["id"] in seated
        game["inviting"] = game["id"] in inviting
        game["status_label"] = Game.Status(game["status"]).label
        game["kind_label"] = kind_label(game["kind"])
        kind = registry.KINDS.get(game["kind"])
        game["variant"] = kind.variant(game["options"]) if kind else []
        game["day_name"] = selectors.day_name(game["kind"], game["options"])
        # An ended game shows when it ended (static/js/lobby.js does the same).
        game["shown_at"] = parse_datetime(game["finished"] or game["created"])
    chat = [{**line, "at_time": parse_datetime(line["at"])} for line in chat_history()]
    waiting = [g for g in games if g["status"] == Game.Status.WAITING]
    running = [g for g in games if g["status"] in Game.PLAYING]
    finished = [g for g in games if g["status"] in Game.OVER][:FINISHED_LISTED]
    name = request.user.get_username()
    initial = {"name": gettext("Game of %(name)s") % {"name": name}}
    if request.GET.get("kind") in registry.KINDS:  # the front page's "Play" of one kind
        initial["kind"] = request.GET["kind"]
    new_game = NewGameForm(initial=initial)
    return render(
        request,
        "lobby/lobby.html",
        {
            "waiting": waiting,
            "running": running,
            "finished": finished,
            "chat": chat,
            "new_game": new_game,
            "is_guest": is_guest(request.user),
            "page_data": {
                "user": request.user.pk,
                "seated": sorted(seated),
                "inviting": sorted(inviting),
            },
            "strings": lobby_strings(),
        },
    )


def lobby_strings() -> dict:
    """What the lobby script shows, in the page's language."""
    return {
        "status": {status.value: str(status.label) for status in Game.Status},
        "kinds": {key: str(kind.name) for key, kind in registry.KINDS.items()},
        "variants": {key: kind.badges() for key, kind in registry.KINDS.items()},
        "day_names": {
            key: str(kind.day_name) for key, kind in registry.KINDS.items() if kind.day_name
        },
        "errors": service_messages(),
        "error": gettext("The server refused: %(message)s"),
        "join": gettext("Join"),
        "open": gettext("Open"),
        "invite": gettext("Invite"),
        "you": gettext("you"),
        "seats": gettext("%(players)s of %(max)s seats"),
        "turn_based": {str(seconds): words for seconds, words in turns.pace_words().items()},
        "no_games": gettext("No games here right now."),
        "no_players": gettext("Nobody is connected."),
        "no_chat": gettext("No messages yet. Say hello!"),
        "not_connected": gettext("Not connected. Please wait a moment."),
    }


@login_required
@require_POST
def join(request: HttpRequest, game_id: int) -> HttpResponse:
    """Take a seat (the lobby script does the same over the socket)."""
    try:
        game_join(game_id=game_id, user=request.user)
    except errors.ServiceError as error:
        if error.code != "already_seated":
            messages.error(request, service_messages().get(error.code, error.message))
            return redirect("home")
    return redirect(game_path(game_id))


# ---------------------------------------------------------------------------- invitations


def invitation_refusals() -> dict[str, str]:
    """Why an invitation link gives no seat, in the page's language."""
    return {
        "invitation_invalid": gettext(
            "This invitation link is not valid. Check that it was copied whole, or ask for"
            " the link again."
        ),
        "invitation_revoked": gettext(
            "This invitation link no longer works: the game's creator made a new one. Ask"
            " them for it."
        ),
        "not_found": gettext("This game does not exist."),
        "full": gettext("This game is full: every seat is taken."),
        "started": gettext("This game has already started: it takes no more players."),
        "game_over": gettext("This game is over."),
    }


def invitation_refused(request: HttpRequest, refused: errors.ServiceError) -> HttpResponse:
    text = invitation_refusals().get(refused.code, refused.message)
    context = {"refused": text, "code": refused.code}
    return render(request, "lobby/invitation.html", context, status=refused.status)


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: a free seat for whoever opens it and says so (a newcomer chooses
    a name on the way and plays as a guest), the table for someone seated there, or why not.

    Opening the link takes no seat by itself: link previews and prefetches open links too.
    """
    user = request.user if request.user.is_authenticated else None
    try:
        found = invitations.invitation_preview(token=token, user=user)
    except errors.ServiceError as refused:
        return invitation_refused(request, refused)
    if found.seat is not None:
        return redirect(game_path(found.game.pk))
    form = GuestForm(request.POST if request.method == "POST" and user is None else None)
    if request.method == "POST" and (user is not None or new_guest(request, form)):
        try:
            invitations.invitation_accept(token=token, user=request.user)
        except errors.ServiceError as refused:
            return invitation_refused(request, refused)
        return redirect(game_path(found.game.pk))
    game = found.game
    context = {
        "game": game,
        "kind": registry.KINDS.get(game.kind),
        "creator": game.creator.get_username() if game.creator else "",
        "players": game.seats.count(),
        "form": form if user is None else None,
        "next": request.path,
    }
    return render(request, "lobby/invitation.html", context)


@login_required
@require_POST
def invitation_renew(request: HttpRequest, game_id: int) -> HttpResponse:
    """The creator's new link (the game page's button); every older link stops working."""
    try:
        invitations.invitation_rotate(game_id=game_id, user=request.user)
    except errors.ServiceError as refused:
        messages.error(request, refused.message)
    else:
        messages.success(
            request, gettext("A new invitation link is ready; the old one no longer works.")
        )
    return redirect(game_path(game_id) + "#invitation")


@login_required
@require_http_methods(["GET", "POST"])
def new_game(request: HttpRequest) -> HttpResponse:
    form = NewGameForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        game = form.save(request.user)
        if game is not None:
            return redirect(game_path(game.pk))
    return render(request, "lobby/new_game.html", {"form": form})


# ---------------------------------------------------------------------------- accounts


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("keep-name" if is_guest(request.user) else "home")
    form = RegisterForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and not RegisterThrottle().allow_request(request, None):
        # Refused before the form is checked: each new account costs a password hash.
        form = RegisterForm(initial={"username": request.POST.get("username", "")})
        refused = gettext("Too many new accounts from your address. Please wait a minute.")
        context = {"form": form, "next": next_path(request), "refused": refused}
        return render(request, "registration/register.html", context, status=429)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        if user is not None:
            login(request, user, backend=BACKEND)
            messages.success(
                request,
                gettext("Welcome, %(name)s! Your account is ready.") % {"name": user.username},
            )
            return redirect(next_path(request))
    return render(request, "registration/register.html", {"form": form, "next": next_path(request)})


@login_required
@require_http_methods(["GET", "POST"])
def keep_name(request: HttpRequest) -> HttpResponse:
    """A guest chooses a password and keeps their name, games and rating."""
    if not is_guest(request.user):
        messages.info(request, gettext("Your name is already yours: you have an account."))
        return redirect("home")
    form = KeepNameForm(request.user, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)
        messages.success(
            request,
            gettext("The name %(name)s is yours now. Log in with it and your password next time.")
            % {"name": user.username},
        )
        return redirect("home")
    return render(request, "registration/keep_name.html", {"form": form})


class LoginView(auth_views.LoginView):
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        # Password guessing: a few attempts per minute per address and per name.
        if not login_allowed(request):
            # An unbound form: checking the password would be the very attempt refused here.
            form = self.get_form_class()(
                request, initial={"username": request.POST.get("username", "")}
            )
            context = self.get_context_data(
                form=form, refused=gettext("Too many attempts to log in. Please wait a minute.")
            )
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)


class LogoutView(auth_views.LogoutView):
    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        messages.info(request, gettext("You are logged out."))
        return response


TOO_MANY_LOGINS = _lazy("Too many attempts to log in. Please wait a minute.")


@require_http_methods(["GET", "POST"])
def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's login, with the site's limits on password attempts (``LOGIN_RATE``)."""
    if request.method == "POST" and not login_allowed(request):
        # Refused before the password is checked: checking it would be the attempt refused.
        messages.error(request, TOO_MANY_LOGINS)
        response = admin.site.login(_as_get(request))
        response.status_code = 429
        return response
    return admin.site.login(request)


def _as_get(request: HttpRequest) -> HttpRequest:
    """The same request as a GET: the admin then shows its login form without checking."""
    request.method = "GET"
    return request
