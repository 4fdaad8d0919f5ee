"""A private game's invitation link: only its creator reads or renews it; it seats whoever
opens it (a guest made on the way, an account) while a seat is free, or says why not; a
renewed link makes every older one invalid, and no token opens another game than its own."""

from __future__ import annotations

import contextlib
import html
import json
import re
import threading
from urllib.parse import quote

import pytest
from django.core import signing
from django.db import connection, connections
from django.test import Client
from rest_framework.test import APIClient

from games.models import Event, Game, Seat
from games.services import invitations
from games.services.admin import game_abort
from games.services.lifecycle import game_create, game_join, game_start
from lobby.models import Guest
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LINK = re.compile(r'id="invitation-link" readonly value="([^"]+)"')


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def browser(user=None, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    return client


def private_game(creator, seats: int = 3, **fields) -> Game:
    return game_create(user=creator, name="Stammtisch", max_players=seats, private=True, **fields)


def token_of(game: Game) -> str:
    game.refresh_from_db()
    return invitations.invitation_token(game)


def accept(user, token: str):
    return api(user).post(f"/api/invitations/{token}/accept/")


def seated(game: Game) -> set[int]:
    return set(game.seats.values_list("user_id", flat=True))


# ------------------------------------------------------------------------- the creator's link


def test_the_creator_reads_the_same_link_until_renewing_it(alice):
    game = private_game(alice)
    first = api(alice).get(f"/api/games/{game.pk}/invitation/")
    assert first.status_code == 200
    body = first.json()
    assert body["game"] == game.pk
    assert body["url"] == f"http://testserver/invite/{body['token']}/"
    assert api(alice).get(f"/api/games/{game.pk}/invitation/").json() == body

    renewed = api(alice).post(f"/api/games/{game.pk}/invitation/")
    assert renewed.status_code == 200
    assert renewed.json()["token"] != body["token"]
    assert api(alice).get(f"/api/games/{game.pk}/invitation/").json() == renewed.json()


def test_nobody_but_the_creator_reads_or_renews_the_link(alice, bob):
    game = private_game(alice)
    game_join(game_id=game.pk, user=bob)  # even a player seated at the table
    nonce = Game.objects.get(pk=game.pk).invitation_nonce
    for response in (
        api(bob).get(f"/api/games/{game.pk}/invitation/"),
        api(bob).post(f"/api/games/{game.pk}/invitation/"),
    ):
        assert response.status_code == 403
        assert response.json()["code"] == "forbidden"
        assert "token" not in response.json()
    for response in (
        APIClient().get(f"/api/games/{game.pk}/invitation/"),
        APIClient().post(f"/api/games/{game.pk}/invitation/"),
    ):
        assert response.status_code == 401
    assert Game.objects.get(pk=game.pk).invitation_nonce == nonce


def test_a_public_or_solo_game_has_no_invitation_link(alice):
    public = game_create(user=alice, name="Offen", max_players=3)
    solo = game_create(user=alice, name="Solo", kind="road300")
    for game in (public, solo):
        response = api(alice).get(f"/api/games/{game.pk}/invitation/")
        assert response.status_code == 409
        assert response.json()["code"] == "no_invitation"


@pytest.mark.parametrize("game_id", ["999999", "99999999999999999999"])
def test_the_link_of_a_game_that_does_not_exist_is_a_404(alice, game_id):
    for method in ("get", "post"):
        response = getattr(api(alice), method)(f"/api/games/{game_id}/invitation/")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


# ------------------------------------------------------------------------- taking a seat


def test_the_link_seats_a_guest_and_tells_the_table(alice):
    game = private_game(alice)
    guest = Guest.objects.create_guest(name="Gast").user
    response = accept(guest, token_of(game))
    assert response.status_code == 200
    assert response.json()["id"] == game.pk
    assert response.json()["players"] == 2
    assert seated(game) == {alice.pk, guest.pk}
    assert Event.objects.filter(game=game, kind="joined", data__player=guest.pk).exists()


def test_someone_already_seated_keeps_their_one_seat(alice, bob):
    game = private_game(alice, seats=2)
    token = token_of(game)
    assert accept(bob, token).status_code == 200
    events = Event.objects.filter(game=game).count()
    again = accept(bob, token)  # the table is full now, but bob sits at it
    assert again.status_code == 200
    assert again.json()["players"] == 2
    assert Seat.objects.filter(game=game, user=bob).count() == 1
    assert Event.objects.filter(game=game).count() == events
    assert accept(alice, token).status_code == 200  # the creator too


def test_a_full_table_refuses_the_link(alice, bob, charlie):
    game = private_game(alice, seats=2)
    token = token_of(game)
    accept(bob, token)
    response = accept(charlie, token)
    assert response.status_code == 409
    assert response.json()["code"] == "full"
    assert seated(game) == {alice.pk, bob.pk}


def test_a_started_game_refuses_the_link(alice, bob, charlie):
    game = private_game(alice)
    token = token_of(game)
    accept(bob, token)
    game_start(game_id=game.pk, user=alice)
    response = accept(charlie, token)
    assert response.status_code == 409
    assert response.json()["code"] == "started"
    assert charlie.pk not in seated(game)


def test_a_game_that_is_over_refuses_the_link(alice, bob):
    game = private_game(alice)
    token = token_of(game)
    game_abort(game_id=game.pk)
    response = accept(bob, token)
    assert response.status_code == 409
    assert response.json()["code"] == "game_over"


def test_the_link_of_a_deleted_game_is_a_404(alice, bob):
    game = private_game(alice)
    token = token_of(game)
    game.delete()
    response = accept(bob, token)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_accepting_needs_a_login():
    assert APIClient().post("/api/invitations/x/accept/").status_code == 401


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_two_people_at_once_for_the_last_seat_get_one_seat_and_one_full(
    alice, bob, charlie, monkeypatch
):
    game = private_game(alice, seats=2)
    token = token_of(game)
    check = invitations.check_invitation_accept
    read = threading.Barrier(2, timeout=1)

    def check_then_wait(**args):
        checked = check(**args)
        with contextlib.suppress(threading.BrokenBarrierError):
            read.wait()  # both read at once unless the game's lock keeps the other out
        return checked

    monkeypatch.setattr(invitations, "check_invitation_accept", check_then_wait)
    refusals: list[str] = []

    def press(user) -> None:
        try:
            invitations.invitation_accept(token=token, user=user)
        except invitations.ServiceError as refused:
            refusals.append(refused.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press, args=(user,)) for user in (bob, charlie)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert refusals == ["full"]
    assert len(seated(game)) == 2


# ------------------------------------------------------------------------- an attacker's tokens


def test_renewing_makes_every_older_link_invalid(alice, bob, charlie):
    game = private_game(alice)
    first = token_of(game)
    second = invitations.invitation_rotate(game_id=game.pk, user=alice)
    third = invitations.invitation_rotate(game_id=game.pk, user=alice)
    for old in (first, second):
        response = accept(bob, old)
        assert response.status_code == 410
        assert response.json()["code"] == "invitation_revoked"
    assert seated(game) == {alice.pk}
    assert accept(charlie, third).status_code == 200


def tampered(token: str) -> list[str]:
    payload, signature = token.rsplit(":", 1)
    flip = {"A": "B"}.get(signature[0], "A")
    return [
        f"{payload}:{flip}{signature[1:]}",  # the signature changed
        f"{payload[:-1]}{'A' if payload[-1] != 'A' else 'B'}:{signature}",  # the payload
        token[:-1],  # cut
        token + "x",
        signature,
        payload,
    ]


def test_a_tampered_link_is_refused_and_seats_nobody(alice, bob):
    game = private_game(alice)
    for token in tampered(token_of(game)):
        response = accept(bob, token)
        assert response.status_code == 404, token
        assert response.json()["code"] == "invitation_invalid"
    assert seated(game) == {alice.pk}


def test_no_token_opens_another_game_than_its_own(alice, bob, charlie):
    """A player's own link is readable (base64): writing another game's id into it breaks
    the signature; the same data signed for another purpose (another salt) is refused; and
    a valid link seats only in its own game."""
    mine = private_game(bob)
    target = private_game(alice)
    token = token_of(mine)
    data = signing.Signer(salt=invitations.SALT).unsign_object(token)
    assert data["g"] == mine.pk
    target_data = {"g": target.pk, "n": Game.objects.get(pk=target.pk).invitation_nonce}
    payload = signing.b64_encode(signing.JSONSerializer().dumps(target_data)).decode()
    forged = [
        f"{payload}:{token.rsplit(':', 1)[1]}",
        signing.Signer(salt="notifications.unsubscribe").sign_object(target_data),
        signing.Signer().sign_object(target_data),  # no salt
        signing.dumps(target_data, salt=invitations.SALT),  # with a timestamp
        signing.Signer(key="guessed", salt=invitations.SALT).sign_object(target_data),
    ]
    for token_text in forged:
        response = accept(charlie, token_text)
        assert response.status_code == 404, token_text
        assert response.json()["code"] == "invitation_invalid"
    # Only the server signs: its own token with bob's nonce and alice's game is stale.
    mixed = signing.Signer(salt=invitations.SALT).sign_object({"g": target.pk, "n": data["n"]})
    assert accept(charlie, mixed).status_code == 410
    assert accept(charlie, token).json()["id"] == mine.pk
    assert seated(target) == {alice.pk}
    assert seated(mine) == {bob.pk, charlie.pk}


@pytest.mark.parametrize(
    "data",
    [[], "text", {"g": "1", "n": "x"}, {"g": True, "n": "x"}, {"g": 10**30, "n": "x"}, {"g": 1}],
)
def test_a_signed_token_with_odd_contents_is_invalid_not_a_crash(alice, bob, data):
    private_game(alice)
    token = signing.Signer(salt=invitations.SALT).sign_object(data)
    response = accept(bob, token)
    assert response.status_code == 404
    assert response.json()["code"] == "invitation_invalid"


@pytest.mark.parametrize(
    "token",
    ["a" * 201, "a" * 100_000, "%00", "..", "%E2%80%AE", "ü:ü", "eyJnIjoxfQ:1:2:3", "%2e%2e"],
)
def test_a_huge_or_odd_token_is_a_clear_404(alice, bob, token):
    private_game(alice)
    response = accept(bob, token)
    assert response.status_code == 404
    assert response.json()["code"] in {"invitation_invalid", "not_found"}
    page = browser(bob).get(f"/invite/{token}/")
    assert page.status_code == 404
    assert Seat.objects.filter(user=bob).count() == 0


def test_a_flood_of_forged_tokens_seats_nobody(alice, bob):
    game = private_game(alice)
    real = token_of(game)
    client = api(bob)
    for n in range(200):
        forged = f"{real.rsplit(':', 1)[0]}:{n:043d}"
        assert client.post(f"/api/invitations/{forged}/accept/").status_code == 404
    assert seated(game) == {alice.pk}


# ------------------------------------------------------------------------- pages


def test_only_the_creator_sees_the_link_on_the_waiting_game_page(alice, bob):
    game = private_game(alice)
    game_join(game_id=game.pk, user=bob)
    page = browser(alice).get(f"/games/{game.pk}/").content.decode()
    link = html.unescape(LINK.search(page).group(1))
    assert link == f"http://testserver/invite/{token_of(game)}/"
    assert "invitation-copy-button" in page
    token = token_of(game)
    for other in (browser(bob), browser(Guest.objects.create_guest(name="Zaungast").user)):
        text = other.get(f"/games/{game.pk}/").content.decode()
        assert token not in text
        assert "invitation-link" not in text
    game_start(game_id=game.pk, user=alice)
    assert "invitation-link" not in browser(alice).get(f"/games/{game.pk}/").content.decode()


def test_the_renew_button_gives_the_page_a_new_link_and_refuses_anyone_else(alice, bob):
    game = private_game(alice)
    old = token_of(game)
    refused = browser(bob).post(f"/invite/new/{game.pk}/", follow=True)
    assert token_of(game) == old
    assert "only the player who created the game can invite to it" in refused.content.decode()
    response = browser(alice).post(f"/invite/new/{game.pk}/", follow=True)
    assert response.redirect_chain[-1][0] == f"/games/{game.pk}/#invitation"
    new = token_of(game)
    assert new != old
    assert new in response.content.decode()
    assert browser(alice).get(f"/invite/new/{game.pk}/").status_code == 405


def test_opening_the_link_takes_no_seat_until_the_person_says_so(alice, bob):
    game = private_game(alice)
    token = token_of(game)
    page = browser(bob).get(f"/invite/{token}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "alice invites you to play Rat um Rad at the table <strong>Stammtisch</strong>" in text
    assert 'id="invitation-accept"' in text
    assert 'name="name"' not in text  # logged in: no name to choose
    assert seated(game) == {alice.pk}
    response = browser(bob).post(f"/invite/{token}/")
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert seated(game) == {alice.pk, bob.pk}


def test_a_newcomer_chooses_a_name_and_sits_at_the_table_as_a_guest(alice):
    game = private_game(alice)
    token = token_of(game)
    client = browser()
    page = client.get(f"/invite/{token}/").content.decode()
    assert 'name="name"' in page
    assert f"/login/?next={quote(f'/invite/{token}/')}" in html.unescape(page)
    response = client.post(f"/invite/{token}/", {"name": "Neuling"})
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    guest = Guest.objects.get(user__username="Neuling").user
    assert seated(game) == {alice.pk, guest.pk}
    table = client.get(f"/games/{game.pk}/").content.decode()
    assert "Neuling" in table


def test_an_account_logs_in_on_the_way_and_comes_back_to_the_invitation(alice, bob):
    game = private_game(alice)
    token = token_of(game)
    client = browser()
    page = html.unescape(client.get(f"/invite/{token}/").content.decode())
    login = re.search(r'href="(/login/\?next=[^"]+)"', page).group(1)
    answer = client.post(login, {"username": "bob", "password": PASSWORD}, follow=True)
    assert answer.redirect_chain[-1][0] == f"/invite/{token}/"
    assert 'id="invitation-accept"' in answer.content.decode()
    response = client.post(f"/invite/{token}/")
    assert response["Location"] == f"/games/{game.pk}/"
    assert seated(game) == {alice.pk, bob.pk}
    assert not Guest.objects.filter(user=bob).exists()


def test_a_newcomer_whose_name_is_taken_stays_on_the_invitation(alice):
    game = private_game(alice)
    token = token_of(game)
    response = browser().post(f"/invite/{token}/", {"name": "alice"})
    assert response.status_code == 200
    assert 'id="id_name_error"' in response.content.decode()
    assert seated(game) == {alice.pk}


def test_someone_seated_who_opens_the_link_is_taken_to_the_table(alice):
    game = private_game(alice, seats=2)
    response = browser(alice).get(f"/invite/{token_of(game)}/")
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"


@pytest.mark.parametrize(
    ("language", "revoked", "full"),
    [
        ("en", "the game's creator made a new one", "This game is full: every seat is taken."),
        (
            "de",
            "wer das Spiel eröffnet hat, hat einen neuen erstellt",
            "Dieses Spiel ist voll: Alle Plätze sind besetzt.",
        ),
    ],
)
def test_a_refused_link_says_why_in_the_page_language(alice, bob, charlie, language, revoked, full):
    game = private_game(alice, seats=2)
    old = token_of(game)
    new = invitations.invitation_rotate(game_id=game.pk, user=alice)
    page = browser(charlie, language).get(f"/invite/{old}/")
    assert page.status_code == 410
    assert revoked in html.unescape(page.content.decode())
    accept(bob, new)
    for client in (browser(charlie, language), browser(None, language)):
        page = client.get(f"/invite/{new}/")
        assert page.status_code == 409
        assert full in html.unescape(page.content.decode())
        assert 'name="name"' not in page.content.decode()  # no guest made for a full table
    tampered_page = browser(charlie, language).get(f"/invite/{old[:-2]}/")
    assert tampered_page.status_code == 404
    assert 'data-code="invitation_invalid"' in tampered_page.content.decode()


def test_the_schema_documents_the_invitation_endpoints():
    schema = APIClient().get("/api/schema/?format=json").json()
    assert set(schema["paths"]["/api/games/{game_id}/invitation/"]) >= {"get", "post"}
    accept_path = schema["paths"]["/api/invitations/{token}/accept/"]["post"]
    assert {"200", "404", "409", "410"} <= set(accept_path["responses"])


def test_the_lobby_entry_of_my_private_waiting_game_leads_to_its_invitation(alice, bob):
    game = private_game(alice)
    game_join(game_id=game.pk, user=bob)
    public = game_create(user=alice, name="Offen", max_players=3)
    mine = browser(alice).get("/").content.decode()
    assert f'href="/games/{game.pk}/#invitation">Invite</a>' in mine
    assert f'href="/games/{public.pk}/">Open</a>' in mine
    assert json_block(mine, "lobby-data")["inviting"] == [game.pk]
    theirs = browser(bob).get("/").content.decode()
    assert "#invitation" not in theirs
    assert json_block(theirs, "lobby-data")["inviting"] == []
    game_start(game_id=game.pk, user=alice)
    assert json_block(browser(alice).get("/").content.decode(), "lobby-data")["inviting"] == []


def json_block(page: str, block_id: str):
    match = re.search(rf'<script id="{block_id}" type="application/json">(.*?)</script>', page)
    assert match, block_id
    return json.loads(match.group(1))
