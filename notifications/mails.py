"""The mails themselves: each in its recipient's language, with absolute links to the game and
a one-click unsubscribe (``List-Unsubscribe`` and RFC 8058's ``List-Unsubscribe-Post``)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games import registry
from games.models import Game, Seat
from lobby import language
from notifications import tokens
from notifications.models import MailSettings


def absolute(path: str) -> str:
    return settings.SITE_URL + path


def game_url(game_id: int) -> str:
    return absolute(reverse("game-page", args=[game_id]))


def language_of(user) -> str:
    """The language kept on the account (lobby.language), else the site's default."""
    return language.saved(user) or settings.LANGUAGE_CODE


def _kind_name(game: Game) -> str:
    try:
        return str(registry.get(game.kind).name)
    except Exception:
        return game.kind


def _footer(row: MailSettings, kind: str, unsubscribe_url: str) -> str:
    why = {
        "your_turn": gettext(
            "You get this mail because you asked for a mail when it is your turn."
        ),
        "game_ended": gettext(
            "You get this mail because you asked for a mail with the results when a game ends."
        ),
    }[kind]
    return "\n".join(
        [
            "-- ",
            why,
            gettext("No more of these mails: %(url)s") % {"url": unsubscribe_url},
            gettext("Your mail settings: %(url)s") % {"url": absolute(reverse("account"))},
        ]
    )


def send(row: MailSettings, kind: str, subject: str, body: str) -> None:
    """Send one mail of ``kind`` to ``row``'s confirmed address (in the active language)."""
    token = tokens.unsubscribe_token(row.user_id, row.address, kind)
    unsubscribe_url = absolute(reverse("mail-unsubscribe", args=[token]))
    message = EmailMessage(
        subject=subject,
        body=f"{body}\n\n{_footer(row, kind, unsubscribe_url)}\n",
        to=[row.address],
        headers={
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
            "Content-Language": translation.get_language(),
        },
    )
    message.send()


def _values(row: MailSettings, game: Game) -> dict:
    """What a mail about ``game`` fills in (read in the recipient's language)."""
    return {
        "name": row.user.get_username(),
        "game": game.name,
        "kind": _kind_name(game),
        "url": game_url(game.pk),
    }


def your_turn(row: MailSettings, game: Game) -> None:
    with translation.override(language_of(row.user)):
        values = _values(row, game)
        subject = gettext("Your turn in %(game)s") % values
        body = "\n\n".join(
            [
                gettext("Hello %(name)s,") % values,
                gettext("it is your turn in %(game)s (%(kind)s).") % values,
                gettext("Open the game: %(url)s") % values,
            ]
        )
        send(row, "your_turn", subject, body)


def result_lines(game: Game) -> list[str]:
    seats = Seat.objects.filter(game=game).select_related("user").order_by("place", "turn_order")
    lines = []
    for seat in seats:
        values = {
            "place": seat.place or "–",
            "name": seat.user.get_username(),
            "score": seat.total if seat.total is not None else seat.score,
        }
        lines.append(gettext("%(place)s. %(name)s: %(score)s points") % values)
    return lines


def game_ended(row: MailSettings, game: Game) -> None:
    with translation.override(language_of(row.user)):
        values = _values(row, game)
        subject = gettext("%(game)s has ended") % values
        body = "\n\n".join(
            [
                gettext("Hello %(name)s,") % values,
                gettext("%(game)s (%(kind)s) has ended. The results:") % values,
                "\n".join(result_lines(game)),
                gettext("See the game: %(url)s") % values,
            ]
        )
        send(row, "game_ended", subject, body)


def confirm(user, email: str) -> None:
    """The mail with the link that confirms ``email`` for ``user`` (no unsubscribe: it is
    the one mail sent because they asked for it just now)."""
    with translation.override(language_of(user)):
        url = absolute(reverse("mail-confirm", args=[tokens.confirm_token(user.pk, email)]))
        hours = int(tokens.CONFIRM_MAX_AGE.total_seconds() // 3600)
        values = {"name": user.get_username(), "url": url, "hours": hours}
        body = "\n\n".join(
            [
                gettext("Hello %(name)s,") % values,
                gettext("please confirm that this address is yours: %(url)s") % values,
                gettext("The link is valid for %(hours)s hours.") % values,
                gettext("If you did not ask for this, ignore this mail: nothing will be sent."),
            ]
        )
        EmailMessage(
            subject=gettext("Confirm your address for Rat um Rad"),
            body=body + "\n",
            to=[email],
            headers={"Auto-Submitted": "auto-generated"},
        ).send()
