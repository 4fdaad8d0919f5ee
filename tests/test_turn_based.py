"""Turn-based games: hours or days a move, played with nobody connected.

When a turn of a turn-based game runs out, the computer plays that one turn for the person
and gives the seat back; after three turns in a row played for them it keeps the seat until
they take it back. A live game keeps today's rule: the computer plays on until they are back.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.translation import override

from games import feed, selectors, sweeper, turns
from games.models import Event, Game, Seat
from games.moves import play
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import seat_take_back
from lobby.forms import NewGameForm
from tests.test_turn_timer import game_of, prepare, seat_of, whose_turn

pytestmark = pytest.mark.django_db(transaction=True)

DAY = 24 * 3600


@pytest.fixture(autouse=True)
def bots_at_once(settings):
    settings.BOT_DELAY = 0


def turn_based(people: list, seconds: int = DAY) -> int:
    alice, bob = people[:2]
    game = game_create(
        user=alice, name="Brieflich", max_players=2, pace="turn_based", turn_seconds=seconds
    )
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    return game.pk


def run_out(game_id: int) -> int:
    """The clock moved past the running turn's deadline: one sweep, as on the site."""
    deadline = game_of(game_id).turn_deadline
    assert deadline is not None
    return sweeper.sweep(now=deadline + timedelta(seconds=1))


def draw_twice(game_id: int, user) -> None:
    for _ in range(2):
        play.move_apply(game_id=game_id, user=user, move={"type": "TAKE_WHEEL", "source": "deck"})


# ---------------------------------------------------------------------------- creating


def test_a_turn_based_game_takes_a_day_a_move_by_default_and_keeps_its_pace(people):
    game = game_create(user=people[0], name="Brieflich", max_players=2, pace="turn_based")
    assert (game.pace, game.turn_seconds, game.turn_based) == ("turn_based", DAY, True)
    live = game_create(user=people[1], name="Jetzt", max_players=2)
    assert (live.pace, live.turn_based) == ("live", False)


@pytest.mark.parametrize("seconds", [60, 3600, 0, None, DAY + 1, True, "86400"])
def test_a_turn_based_game_refuses_a_time_that_is_not_12_hours_a_day_or_3_days(people, seconds):
    with pytest.raises(Exception) as refused:
        game_create(
            user=people[0], name="Brieflich", max_players=2, pace="turn_based", turn_seconds=seconds
        )
    assert getattr(refused.value, "code", None) == "bad_field"
    assert refused.value.message.startswith("turn_seconds:")


def test_an_unknown_pace_is_refused_naming_the_field(people):
    with pytest.raises(Exception) as refused:
        game_create(user=people[0], name="Brieflich", max_players=2, pace="slow")
    assert refused.value.code == "bad_field"
    assert refused.value.message.startswith("pace:")


def test_the_api_creates_a_turn_based_game_and_lists_its_pace(people, client):
    client.force_login(people[0])
    made = client.post(
        "/api/games/",
        {"name": "Brieflich", "max_players": 2, "pace": "turn_based", "turn_seconds": 3 * DAY},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    listed = {game["id"]: game for game in client.get("/api/games/").json()}
    assert listed[made.json()["id"]]["pace"] == "turn_based"
    assert listed[made.json()["id"]]["turn_seconds"] == 3 * DAY
    refused = client.post(
        "/api/games/",
        {"name": "Brieflich", "max_players": 2, "pace": "turn_based", "turn_seconds": 60},
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert refused.json()["code"] == "bad_field"


def test_the_lobby_form_makes_a_game_turn_based_by_its_time_a_move(people):
    form = NewGameForm(
        {"kind": "ratumrad", "name": "Brieflich", "max_players": 2, "bots": 0,
         "turn_seconds": 12 * 3600}
    )  # fmt: skip
    assert form.is_valid(), form.errors
    game = form.save(people[0])
    assert (game.pace, game.turn_seconds) == ("turn_based", 12 * 3600)


def test_the_game_page_and_the_lobby_name_the_pace(people, client):
    game_id = turn_based(people)
    client.force_login(people[0])
    with override("en"):
        page = client.get(f"/games/{game_id}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "turn-based, 24 hours a move" in page.content.decode()
    with override("de"):
        words = turns.pace_words()[DAY]
    assert words == "rundenbasiert, 24 Stunden pro Zug"


# ---------------------------------------------------------------------------- the turn rules


def test_a_missed_turn_is_played_by_the_computer_once_and_the_seat_given_back(people):
    alice, bob = people[:2]
    game_id = turn_based(people)
    prepare(game_id, alice, bob)
    late = alice if whose_turn(game_id) == alice.pk else bob
    other = bob if late == alice else alice
    assert run_out(game_id) == 1
    seat = seat_of(game_id, late)
    assert whose_turn(game_id) == other.pk  # the computer played the late person's turn
    assert (seat.autopilot, seat.timeouts_in_row) == (False, 1)  # and gave the seat back
    kinds = list(Event.objects.filter(game_id=game_id).values_list("data", flat=True))
    on = next(event for event in kinds if event["kind"] == "autopilot_on")
    back = next(event for event in kinds if event["kind"] == "autopilot_off")
    assert on["one_turn"] is True and back["reason"] == "turn_played"
    # The person's next turn has its own full day again.
    draw_twice(game_id, other)
    assert whose_turn(game_id) == late.pk
    deadline = game_of(game_id).turn_deadline
    assert deadline is not None and deadline > timezone.now() + timedelta(hours=23)


def test_after_three_missed_turns_in_a_row_the_computer_keeps_the_seat(people):
    alice, bob = people[:2]
    game_id = turn_based(people)
    prepare(game_id, alice, bob)
    late = alice if whose_turn(game_id) == alice.pk else bob
    other = bob if late == alice else alice
    for missed in range(1, turns.KEEPS_SEAT_AFTER + 1):
        assert whose_turn(game_id) == late.pk
        assert run_out(game_id) == 1
        assert seat_of(game_id, late).timeouts_in_row == missed
        if missed < turns.KEEPS_SEAT_AFTER:
            assert not seat_of(game_id, late).autopilot
            draw_twice(game_id, other)
    assert seat_of(game_id, late).autopilot  # kept, and played for at once from now on
    seq = game_of(game_id).seq
    draw_twice(game_id, other)
    assert whose_turn(game_id) == other.pk
    assert game_of(game_id).seq > seq + 2
    # Until the person takes it back: then it is theirs, and the count starts again.
    seat_take_back(game_id=game_id, user=late)
    seat = seat_of(game_id, late)
    assert (seat.autopilot, seat.timeouts_in_row) == (False, 0)


def test_a_persons_own_move_ends_the_run_of_missed_turns(people):
    alice, bob = people[:2]
    game_id = turn_based(people)
    prepare(game_id, alice, bob)
    late = alice if whose_turn(game_id) == alice.pk else bob
    other = bob if late == alice else alice
    run_out(game_id)
    draw_twice(game_id, other)
    assert seat_of(game_id, late).timeouts_in_row == 1
    draw_twice(game_id, late)
    assert seat_of(game_id, late).timeouts_in_row == 0


def test_a_live_game_still_lets_the_computer_play_on_after_one_missed_turn(people):
    alice, bob = people[:2]
    game = game_create(user=alice, name="Jetzt", max_players=2, turn_seconds=30)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    prepare(game.pk, alice, bob)
    late = alice if whose_turn(game.pk) == alice.pk else bob
    run_out(game.pk)
    assert seat_of(game.pk, late).autopilot  # until they are back


def test_a_turn_based_game_goes_on_with_nobody_connected_through_days(people):
    # Nobody opens a socket: only the clock and the sweeper move the game on.
    alice, bob = people[:2]
    game_id = turn_based(people, seconds=12 * 3600)
    prepare(game_id, alice, bob)
    seq = game_of(game_id).seq
    for _ in range(4):
        assert run_out(game_id) == 1
    assert game_of(game_id).seq >= seq + 4
    assert game_of(game_id).is_playing


def test_the_feed_tells_a_played_turn_from_a_seat_kept(people):
    names = {7: "Lea"}
    with override("en"):
        once = feed.describe({"kind": "autopilot_on", "player": 7, "one_turn": True}, names)
        kept = feed.describe({"kind": "autopilot_on", "player": 7, "reason": "timeout"}, names)
        back = feed.describe({"kind": "autopilot_off", "player": 7, "reason": "turn_played"}, names)
    assert once == "Lea ran out of time: the computer plays this turn for them."
    assert "until they are back" in kept
    assert back == "The computer played Lea's turn; the next one is theirs again."


# ---------------------------------------------------------------------------- the sweeper


def test_the_sweeper_kicks_only_games_whose_computer_player_is_to_move(people, monkeypatch):
    # A turn-based game waits for its person for hours with a computer player seated: the
    # sweeper must not restart its bots at every look (Game.computer_to_move).
    alice = people[0]
    game = game_create(
        user=alice, name="Brieflich", max_players=2, bots=1, pace="turn_based", turn_seconds=DAY
    )
    game_start(game_id=game.pk, user=alice)
    state = load_state(game_of(game.pk))
    keep = engine.legal_moves(state, alice.pk)[0]
    play.move_apply(game_id=game.pk, user=alice, move=keep)
    assert whose_turn(game.pk) == alice.pk  # the computer player moved at once if it began
    assert not game_of(game.pk).computer_to_move
    kicked = []
    monkeypatch.setattr(sweeper.bots, "kick", kicked.append)
    sweeper.sweep(now=timezone.now() + timedelta(hours=1))
    assert kicked == []
    Game.objects.filter(pk=game.pk).update(computer_to_move=True)
    sweeper.sweep(now=timezone.now() + timedelta(hours=1))
    assert kicked == [game.pk]


def test_the_view_and_the_seats_show_a_stand_in_for_one_turn_as_gone_again(people):
    alice, bob = people[:2]
    game_id = turn_based(people)
    prepare(game_id, alice, bob)
    late = alice if whose_turn(game_id) == alice.pk else bob
    run_out(game_id)
    view = selectors.game_view(game_of(game_id), late.pk)
    assert view["pace"] == "turn_based"
    assert next(row for row in view["players"] if row["id"] == late.pk)["autopilot"] is False
    assert Seat.objects.get(game_id=game_id, user=late).timeouts_in_row == 1


# ---------------------------------------------------------------------------- your-turn mails


def test_each_turn_of_a_turn_based_game_mails_the_person_whose_turn_it_became(people, smtp):
    from tests.mail_helpers import links, path_of, with_address

    alice, bob = people[:2]
    with_address(alice, "alice@example.org")
    with_address(bob, "bob@example.org", "de")
    game_id = turn_based(people)
    # The deal: both choose their short cards now.
    assert len(smtp.to("alice@example.org")) == len(smtp.to("bob@example.org")) == 1
    prepare(game_id, alice, bob)
    current = alice if whose_turn(game_id) == alice.pk else bob
    other = bob if current == alice else alice
    address = {alice.pk: "alice@example.org", bob.pk: "bob@example.org"}
    assert len(smtp.to(address[current.pk])) == 2  # they moved, and it is their turn again
    assert len(smtp.to(address[other.pk])) == 1
    draw_twice(game_id, current)
    assert len(smtp.to(address[other.pk])) == 2
    mail = smtp.to(address[other.pk])[-1]
    assert f"/games/{game_id}/" in {path_of(link) for link in links(mail.body)}


def test_a_live_game_sends_no_your_turn_mail(people, smtp):
    from tests.mail_helpers import with_address

    alice, bob = people[:2]
    with_address(alice, "alice@example.org")
    game = game_create(user=alice, name="Jetzt", max_players=2, turn_seconds=30)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    prepare(game.pk, alice, bob)
    assert smtp.to("alice@example.org") == []
