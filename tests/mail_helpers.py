"""Helpers of the mail tests: people with a confirmed address, a started game, links in mails."""

from __future__ import annotations

import re

from django.utils import timezone

from games.models import Game
from games.services.lifecycle import game_create, game_join, game_start
from lobby import language
from notifications.models import MailSettings

LINK = re.compile(r"https://ratumrad\.example/\S+")


def with_address(user, email: str, lang: str = "en", *, confirmed: bool = True, **choices):
    language.save(user, lang)
    return MailSettings.objects.create(
        user=user, email=email, confirmed=timezone.now() if confirmed else None, **choices
    )


def started(players, name: str = "Rheinufer") -> Game:
    game = game_create(user=players[0], name=name, max_players=len(players))
    for user in players[1:]:
        game_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def links(text: str) -> list[str]:
    return LINK.findall(text)


def path_of(url: str) -> str:
    return url.removeprefix("https://ratumrad.example")
