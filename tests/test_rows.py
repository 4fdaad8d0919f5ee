"""``games.rows`` on the event loop: Django keeps a connection object per asyncio task, so
code there asks one never-opened connection object (``rows.facts``) for the database's vendor,
operations and converters instead of building one per socket's task."""

from __future__ import annotations

import asyncio

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from games import rows
from games.models import Game
from games.moves.base import valid_game_id
from games.moves.paths import parallel_moves
from games.services.lifecycle import game_create


def test_django_builds_a_connection_object_for_each_task_that_asks():
    # What the facts are for: if Django shared one object between tasks, they would not be
    # needed (and this test would say so).
    async def asked() -> int:
        return id(connections["default"])

    async def tasks() -> set[int]:
        return set(await asyncio.gather(*(asyncio.create_task(asked()) for _ in range(3))))

    assert len(asyncio.run(tasks())) == 3


@pytest.mark.django_db
def test_tasks_on_the_event_loop_build_no_connection_object_to_ask_or_convert(monkeypatch):
    creator = get_user_model().objects.create_user("fay")
    game = game_create(user=creator, name="facts", max_players=2)
    columns = rows.columns(Game, "row")
    [row] = rows.fetch_rows(f"SELECT {columns} FROM games_game row WHERE row.id = %s", [game.pk])
    rows.facts()  # made once, before the tasks
    built = []
    create = connections.create_connection
    monkeypatch.setattr(
        connections, "create_connection", lambda alias: built.append(alias) or create(alias)
    )

    async def socket_task() -> tuple:
        return parallel_moves(), valid_game_id(game.pk), rows.build(Game, row).name

    async def sockets() -> list[tuple]:
        return await asyncio.gather(*(asyncio.create_task(socket_task()) for _ in range(5)))

    answers = asyncio.run(sockets())
    assert answers == [(parallel_moves(), game.pk, "facts")] * 5
    assert built == []
    assert rows.facts() is rows.facts()
    assert rows.facts().vendor == connections["default"].vendor
