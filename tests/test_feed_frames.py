"""An update's ``EVENT`` frames are made once in a process for the sockets that read them
alike: the same language and the same names (``games.feed_frames``)."""

from collections import OrderedDict

import pytest
from django.utils import translation

from games import feed_frames, registry
from games.kinds import ratumrad as glue
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    started_game,
)

KIND = registry.get("ratumrad")


@pytest.fixture
def sentences(monkeypatch) -> list[tuple[str, str]]:
    """Every feed sentence made from now on: its language and its event's kind."""
    made: list[tuple[str, str]] = []
    describe = glue.describe

    def counted(event: dict, names: dict) -> str:
        made.append((translation.get_language(), event["kind"]))
        return describe(event, names)

    monkeypatch.setattr(glue, "describe", counted)
    monkeypatch.setattr(feed_frames, "_made", OrderedDict())
    return made


async def quiet(*sockets: Socket) -> None:
    """Read every socket until nothing more comes."""
    for socket in sockets:
        while not await socket.is_quiet(0.3):
            await socket.recv()


def feed(socket: Socket, seq: int) -> list[str]:
    return [m["event"]["text"] for m in socket.received if m["type"] == "EVENT" and m["seq"] == seq]


async def first_move(people, languages: list[str], sentences: list) -> tuple[list, list]:
    """A new game of two with a socket for each of ``languages`` (alice's, bob's, then
    onlookers'), and its first move (alice keeps her cards): the sentences made for it, and
    each socket's feed of it."""
    game_id = await started_game(people, 2)
    sockets = [
        await Socket.game(game_id, people[n % len(people)], language=language)
        for n, language in enumerate(languages)
    ]
    await quiet(*sockets)
    sentences.clear()
    feed_frames._made.clear()  # (another game's first move may have made the same already)
    await sockets[0].send(sockets[0].received[0]["state"]["legal"][0])
    for socket in sockets:
        await socket.until("EVENT", seq=1)
    await quiet(*sockets)
    made = list(sentences)
    feeds = [feed(socket, 1) for socket in sockets]
    await close_all(*sockets)
    return made, feeds


@pytest.mark.django_db(transaction=True)
async def test_an_updates_sentences_are_made_once_per_language_whatever_the_sockets(
    people, sentences
):
    alone, (feed_alone,) = await first_move(people, ["de"], sentences)
    assert feed_alone and len(alone) == len(feed_alone)

    languages = ["de", "en", "de", "en", "de", "en", "de"]
    made, feeds = await first_move(people, languages, sentences)
    # One sentence per event and language, not per socket.
    assert sorted(made) == sorted(
        [("de", kind) for _, kind in alone] + [("en", kind) for _, kind in alone]
    )
    german = [f for f, language in zip(feeds, languages, strict=True) if language == "de"]
    english = [f for f, language in zip(feeds, languages, strict=True) if language == "en"]
    assert all(f == german[0] for f in german) and all(f == english[0] for f in english)
    assert len(german[0]) == len(feed_alone) and german[0] != english[0]
    assert "alice" in german[0][0] and "alice" in english[0][0]


def test_frames_are_shared_only_by_what_they_are_made_of(sentences):
    names = {1: "alice", 2: "bob"}
    took = [{"kind": "took_wheel", "player": 1, "source": "deck"}]
    first = feed_frames.event_frames(KIND, "en", names, 5, took)
    assert feed_frames.event_frames(KIND, "en", dict(names), 5, took) is first
    assert len(sentences) == 1
    assert first[0].text.startswith('{"type":"EVENT","seq":5,')
    assert "alice took a card from the deck." in first[0].text

    # The same seq with other events (an answer to "Play again" keeps its game's seq).
    other = [{"kind": "took_wheel", "player": 2, "source": "deck"}]
    assert "bob took" in feed_frames.event_frames(KIND, "en", names, 5, other)[0].text
    # Other names, another language, another update: sentences of their own.
    renamed = feed_frames.event_frames(KIND, "en", {1: "ana", 2: "bob"}, 5, took)
    assert "ana took" in renamed[0].text
    assert "Karte" in feed_frames.event_frames(KIND, "de", names, 5, took)[0].text
    assert '"seq":6' in feed_frames.event_frames(KIND, "en", names, 6, took)[0].text
    assert len(sentences) == 5


def test_only_the_last_sets_of_frames_are_kept(sentences, monkeypatch):
    monkeypatch.setattr(feed_frames, "KEPT", 2)
    names = {1: "alice"}
    took = [{"kind": "took_wheel", "player": 1, "source": "deck"}]
    first = feed_frames.event_frames(KIND, "en", names, 1, took)
    for seq in (2, 3):
        feed_frames.event_frames(KIND, "en", names, seq, took)
    assert len(feed_frames._made) == 2
    again = feed_frames.event_frames(KIND, "en", names, 1, took)
    assert again is not first and again[0].text == first[0].text
    assert len(sentences) == 4
