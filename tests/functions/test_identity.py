"""Identity in rooms (docs/architecture.md, "Identity"; docs/rules.md, "Ranked play"): signed
sessions, a seat that records its person, and a ranked room's one seat per person, on the
in-memory store (the store contract holds both stores to the person items)."""

from __future__ import annotations

import json

import pytest

from service.identity import persons, sessions
from service.room import rest_ops

pytestmark = pytest.mark.memstore

KEY = b"k" * 32
NAMES = ("Zenobia", "Quillon", "Mortimer", "Winifred")


@pytest.fixture
def signed(svc, fake_clock):
    """`signed(n)`: n persons stored, each with a session (the service's key is `KEY`)."""
    svc.sessions = sessions.SessionKey(secret_id="test", fetch=lambda _: KEY.decode())

    def make(n: int) -> list[tuple[dict, str]]:
        out = []
        for _ in range(n):
            person = persons.new_person(int(fake_clock()))
            svc.store.put_person(person)
            out.append((person, sessions.issue(person["id"], int(fake_clock()), KEY)[0]))
        return out

    return make


def auth(session: str) -> dict:
    return {"Authorization": f"Session {session}"}


def ranked_room(api, person: dict) -> str:
    """A ranked public room made as ranked quick play makes one, its creator seated as p1."""
    made = rest_ops.create_room(
        api.svc.store, "", NAMES[0], "classic", {"public": True, "autoStart": 12}, "en",
        device="D" * 20, person=person, ranked=True,
    )
    api.code = made["roomCode"]
    api.tokens["p1"] = made["token"]
    return made["roomCode"]


# ---- sessions ---------------------------------------------------------------------------
def test_a_session_names_its_person_until_it_lapses_and_a_forged_one_names_nobody():
    pid = sessions.new_person_id()
    token, _, expiry = sessions.issue(pid, 1000, KEY, ttl=60)
    assert sessions.person_of(token, 1000, KEY) == pid
    assert sessions.person_of(token, expiry - 1, KEY) == pid
    assert sessions.person_of(token, expiry, KEY) is None  # lapsed
    assert sessions.person_of(token, 1000, b"another key") is None
    body, _, mac = token.rpartition(".")
    other = sessions.new_person_id()
    assert sessions.person_of(f"{other}{body[len(pid):]}.{mac}", 1000, KEY) is None  # another person's id
    assert sessions.person_of(token.replace(str(expiry), str(expiry + 10**6)), 1000, KEY) is None
    assert sessions.person_of(None, 1000, KEY) is None and sessions.person_of("x" * 500, 1000, KEY) is None


def test_a_rest_request_presents_its_session_in_the_authorization_header():
    assert sessions.bearer({"authorization": "Session abc"}) == "abc"
    assert sessions.bearer({"Authorization": "Bearer abc"}) is None
    assert sessions.bearer({}) is None


def test_a_signed_out_deleted_or_banned_person_is_not_signed_in(svc, signed, fake_clock):
    (person, token), (other, other_token) = signed(2)
    now = int(fake_clock())
    assert persons.signed_in(svc.store, token, now, KEY)["id"] == person["id"]
    found = sessions.claims(token, now, KEY)
    svc.store.revoke_session(found.sid, found.expiry)
    assert persons.signed_in(svc.store, token, now, KEY) is None
    persons.ban(svc.store, other["id"])
    with pytest.raises(Exception) as exc:
        persons.signed_in(svc.store, other_token, now, KEY)
    assert exc.value.code == "banned"
    persons.delete(svc.store, other["id"])
    assert persons.signed_in(svc.store, other_token, now, KEY) is None


# ---- seats ------------------------------------------------------------------------------
def test_a_seat_taken_signed_in_records_its_person_and_an_anonymous_one_none(api, signed):
    ((person, token),) = signed(1)
    api.create("Ann")
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Bob"}, headers=auth(token))
    assert status == 201, body
    api.join("Cy")
    seats = {p["id"]: p.get("person") for p in api.snapshot().room["players"]}
    assert seats == {"p1": None, "p2": person["id"], "p3": None}


def test_ranked_room_refuses_a_seat_without_a_session(api, signed):
    ((person, _),) = signed(1)
    ranked_room(api, person)
    before = api.snapshot()
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Bob", "device": "E" * 20})
    assert (status, body["error"]["code"]) == (401, "sign_in_required")
    after = api.snapshot()
    assert after.version == before.version and after.room == before.room


def test_ranked_room_seats_each_person_once_whatever_device_key(api, signed):
    """A modified client: the same session with a fresh device key (and a second socket) takes
    no second seat."""
    (one, one_token), (two, two_token) = signed(2)
    ranked_room(api, one)
    status, body = api.rest(
        "POST", f"/rooms/{api.code}/players", {"name": "Bob", "device": "F" * 20}, headers=auth(two_token)
    )
    assert status == 201, body
    before = api.snapshot()
    for session, device in ((two_token, "G" * 20), (one_token, "H" * 20)):
        status, body = api.rest(
            "POST", f"/rooms/{api.code}/players", {"name": "Cy", "device": device}, headers=auth(session)
        )
        assert (status, body["error"]["code"]) == (409, "person_seated")
    after = api.snapshot()
    assert after.version == before.version and after.room == before.room
    assert [p.get("person") for p in after.room["players"]] == [one["id"], two["id"]]


def test_ranked_room_refuses_a_banned_person(api, signed):
    (one, _), (two, two_token) = signed(2)
    ranked_room(api, one)
    persons.ban(api.svc.store, two["id"])
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Bob"}, headers=auth(two_token))
    assert (status, body["error"]["code"]) == (403, "banned")
    assert len(api.snapshot().room["players"]) == 1


def test_a_host_cannot_make_a_ranked_room(api):
    status, body = api.rest("POST", "/rooms", {"name": "Ann", "options": {"public": True, "ranked": True}})
    assert (status, body["error"]["code"]) == (400, "bad_options")  # no option: the server's own
    status, body = api.rest("POST", "/rooms", {"name": "Ann", "ranked": True})
    assert (status, body["error"]["code"]) == (400, "bad_request")  # nor a field of the body


def test_ranked_game_never_shows_a_person_id_before_its_end(api, signed):
    """Every frame to every seat and spectator, and the REST summary, of a ranked game from its
    lobby to its running day hold no person id."""
    people = signed(4)
    ranked_room(api, people[0][0])
    pids = ["p1"]
    for (_, token), name in zip(people[1:], NAMES[1:], strict=True):
        status, body = api.rest(
            "POST", f"/rooms/{api.code}/players", {"name": name, "device": name * 4}, headers=auth(token)
        )
        assert status == 201, body
        api.tokens[body["playerId"]] = body["token"]
        pids.append(body["playerId"])
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    assert api.connect("watcher") == 200
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")
    for pid in pids:
        api.send(f"c{pid}", {"action": "sync"})
    api.send("watcher", {"action": "sync"})
    _, summary = api.rest("GET", f"/rooms/{api.code}")
    seen = json.dumps([api.gw.to(c) for c in ("watcher", *(f"c{p}" for p in pids))]) + json.dumps(summary)
    assert all(any(f["type"] == "view" for f in api.gw.to(c)) for c in ("watcher", "cp1"))
    stored = [p.get("person") for p in api.snapshot().room["players"]]
    assert sorted(stored) == sorted(p["id"] for p, _ in people)  # the seats do hold them
    for person, token in people:
        assert person["id"] not in seen and token not in seen


# ---- finished casual games ----------------------------------------------------------------
def end_game(api) -> None:
    """The room's game ends in one write through the real pipeline (the features' items ride it)."""

    def change(c):
        c.room["status"] = "ended"
        return c.changed()

    api.svc.pipeline.run(api.code, change)


def test_ranked_play_counts_finished_casual_games_per_person_once(api, signed):
    (one, one_token), (two, two_token), (three, three_token) = signed(3)
    api.create("Ann")
    for name, token in (("Bob", one_token), ("Cy", two_token), ("Di", three_token)):
        status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": name}, headers=auth(token))
        assert status == 201, body
    snap = api.snapshot()
    room = {**snap.room, "status": "running"}
    room["players"] = [{**p, "left": True} if p.get("person") == three["id"] else p for p in room["players"]]
    api.svc.store.save(snap, room, snap.state)
    end_game(api)
    end_game(api)  # a later write of the ended room counts nothing more
    store = api.svc.store
    assert [persons_games(store, p) for p in (one, two, three)] == [1, 1, 0]  # who left is not counted
    persons.delete(store, one["id"])
    assert store.side_items("played", one["id"], 10) == []  # "delete me" takes the games too


def test_ranked_play_a_ranked_game_is_no_casual_game(api, signed):
    (one, _), (two, two_token) = signed(2)
    ranked_room(api, one)
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Bob"}, headers=auth(two_token))
    assert status == 201, body
    snap = api.snapshot()
    api.svc.store.save(snap, {**snap.room, "status": "running"}, snap.state)
    end_game(api)
    assert [persons_games(api.svc.store, p) for p in (one, two)] == [0, 0]


def persons_games(store, person: dict) -> int:
    from service.identity import played

    return played.casual_games(store, store.person(person["id"]) or person)


def test_ranked_room_open_seat_is_not_taken_over_the_socket(api, signed):
    """A person with a seat (or anyone) opening a second socket as a spectator cannot take a
    ranked game's open seat: the socket names no person (`sign_in_required`), nothing changes."""
    api.start(6, preset="city", options={"substitutes": True, "substituteApproval": False})
    snap = api.snapshot()
    api.svc.store.save(snap, {**snap.room, "ranked": True}, snap.state)
    gone = next(p["id"] for p in api.state()["players"] if p["alive"] and p["id"] != "p1")
    api.send(f"c{gone}", {"action": "leave"})
    assert api.gw.last("cp1")["view"]["room"]["openSeats"]  # offered, as in any game with substitutes
    assert api.connect("cs") == 200
    before = api.snapshot()
    api.send("cs", {"action": "takeSeat", "seat": gone, "name": "Zed", "device": "fresh-device-key-0001"})
    assert api.gw.last("cs", "error")["code"] == "sign_in_required"
    after = api.snapshot()
    assert after.room == before.room and after.state == before.state
