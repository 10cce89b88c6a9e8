"""Substitutes (docs/rules.md, "Substitutes"; functions/service/room/substitutes.py): a seat given up
mid-game is first offered to someone who holds no seat, who then holds it whole; nobody else
learns more than "seat N has a new player"."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX, ws_event

import mafia_engine as me
from handlers import ws_connect
from service.room import substitutes

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

ENGINE_KEYS = ("you", "private", "chat", "channels", "votes", "events", "phase", "day", "roster", "result")


def err(api, conn):
    e = api.gw.last(conn, "error")
    return e and e["code"]


def connect_body(api, conn_id, token):
    out = ws_connect.handler(ws_event("$connect", conn_id, query={"room": api.code, "token": token}), CTX)
    return out["statusCode"], out.get("body")  # the body is the refusal's code


def role_of(api, pid):
    return next(p["role"] for p in api.state()["players"] if p["id"] == pid)


def seat_with(api, role=None, not_in=("p1",)):
    """A living seat (not the host) holding `role` (any role when None)."""
    return next(
        p["id"]
        for p in api.state()["players"]
        if p["alive"] and p["id"] not in not_in and (role is None or p["role"] == role)
    )


def engine_part(view):
    return {k: view.get(k) for k in ENGINE_KEYS}


def public_part(view):
    """A view less what a seat change may change: names and presence, the room block."""
    players = [{k: v for k, v in p.items() if k not in ("name", "connected")} for p in view["players"]]
    return {**{k: v for k, v in view.items() if k not in ("room", "players")}, "players": players}


DEVICE = "device-key-of-the-newcomer"  # what web/js/session.js keeps in a browser's storage


@pytest.fixture
def city(api):
    """Substitutes on, without the host's tap (the tests of the tap are in test_seats.py)."""
    api.start(6, preset="city", options={"substitutes": True, "substituteApproval": False})
    return api


def test_substitutes_are_off_by_default_and_a_leave_then_eliminates_as_today(api):
    """docs/rulebooks/001-city.txt: leaving a running game eliminates the character; the
    option is off unless the host switches it on, and the room block says nothing of seats."""
    api.start(6, preset="city")
    view = api.gw.last("cp2")["view"]
    assert view["options"]["substitutes"] is False and "openSeats" not in view["room"]
    gone = seat_with(api)
    api.send(f"c{gone}", {"action": "leave"})
    p = next(p for p in api.state()["players"] if p["id"] == gone)
    assert p["alive"] is False and p["diedBy"] == "left"


def test_a_seat_left_mid_game_is_offered_and_a_spectator_takes_it_whole(city):
    """The substitute holds the seat whole (role card, its results, its channels, its ballot):
    its engine view is exactly the seat's; the old token stops working."""
    api = city
    gone = seat_with(api, "mafia")
    api.send(f"c{gone}", {"action": "sync"})
    before = api.gw.last(f"c{gone}")["view"]
    old_token = api.tokens[gone]
    api.send(f"c{gone}", {"action": "leave"})
    p = next(p for p in api.state()["players"] if p["id"] == gone)
    assert p["alive"] is True and p["connected"] is False  # the character stays, absent
    seat_no = p["seat"]
    offered = api.gw.last("cp1")["view"]["room"]["openSeats"]
    assert offered == [{"player": gone, "seat": seat_no, "until": api.clock.t + substitutes.VACANCY_SECONDS}]
    assert api.connect("cs") == 200  # a spectator with the room link
    api.gw.clear()
    api.send("cs", {"action": "takeSeat", "seat": gone, "name": "Zed", "id": 7, "device": DEVICE})
    seat = api.gw.last("cs", "seat")
    assert seat["player"] == gone and seat["id"] == 7 and seat["room"] == api.code
    view = api.gw.last("cs")["view"]
    assert view["you"]["id"] == gone and view["you"]["role"] == "mafia"
    assert engine_part(view) == engine_part(before)  # exactly what the seat knew
    assert view["private"] == me.view(api.state(), gone)["private"]
    public = api.gw.last("cp1")["view"]
    assert public["room"]["openSeats"] == [] and public["room"]["substituted"][-1]["seat"] == seat_no
    assert next(x for x in public["players"] if x["id"] == gone)["name"] == "Zed"
    assert connect_body(api, "cold", old_token) == (403, "bad_token")  # the old token stops working
    assert api.connect("cnew", token=seat["token"]) == 200  # the new one is the seat's
    assert api.snapshot().conns["cnew"] == gone


def test_nobody_takes_the_seat_within_the_limit_and_the_leave_applies(city):
    """After VACANCY_SECONDS of game time the rulebook's rule applies as without the option:
    the character leaves (docs/rulebooks/001-city.txt), by any request or the phase timer."""
    api = city
    gone = seat_with(api)
    api.send(f"c{gone}", {"action": "leave"})
    seq = api.state()["seq"]
    armed = api.snapshot().room["timer"]
    assert armed[0] == seq and armed[1] <= api.clock.t + substitutes.VACANCY_SECONDS  # the timer carries it
    api.clock.advance(substitutes.VACANCY_SECONDS - 1)
    api.send("cp1", {"action": "sync"})
    assert next(p for p in api.state()["players"] if p["id"] == gone)["alive"] is True
    api.clock.advance(2)
    api.fire(seq)  # the Scheduler's delivery: too early for the phase, due for the seat
    p = next(p for p in api.state()["players"] if p["id"] == gone)
    assert p["alive"] is False and p["diedBy"] == "left"
    assert "vacant" not in api.snapshot().room
    assert connect_body(api, "cs", api.tokens[gone])[0] == 403
    assert api.connect("cs") == 200
    api.send("cs", {"action": "takeSeat", "seat": gone, "name": "Late"})
    assert err(api, "cs") == "seat_not_open"


def test_a_removed_seat_is_offered_then_removed_if_nobody_comes(city):
    api = city
    gone = seat_with(api)
    api.send("cp1", {"action": "kick", "target": gone})
    assert err(api, f"c{gone}") == "kicked"
    assert [s["player"] for s in api.gw.last("cp1")["view"]["room"]["openSeats"]] == [gone]
    api.clock.advance(substitutes.VACANCY_SECONDS + 1)
    api.send("cp1", {"action": "sync"})
    p = next(p for p in api.state()["players"] if p["id"] == gone)
    assert p["alive"] is False and p["diedBy"] == "removed"


def test_a_dead_or_departed_player_cannot_come_back_as_a_substitute(city):
    """Seated connections (a dead player's included) are refused `seated`; a browser that held
    the token of a seat that left, was removed or died is refused `not_eligible`."""
    api = city
    first = seat_with(api)
    api.send(f"c{first}", {"action": "leave"})
    second = seat_with(api, not_in=("p1", first))
    api.send("cp1", {"action": "kick", "target": second})
    assert api.connect("cs") == 200
    before = api.snapshot().version
    for former in (api.tokens[first], api.tokens[second]):
        api.send("cs", {"action": "takeSeat", "seat": first, "name": "Q", "former": former})
        assert err(api, "cs") == "not_eligible"
    assert api.snapshot().version == before  # refusals change nothing
    api.send("cs", {"action": "takeSeat", "seat": "p1", "name": "Q"})
    assert err(api, "cs") == "seat_not_open"
    api.send("cs", {"action": "takeSeat", "seat": first, "name": "P1", "device": DEVICE})
    assert err(api, "cs") == "name_taken"


def test_a_seated_connection_cannot_take_another_seat(city):
    api = city
    gone = seat_with(api)
    api.send(f"c{gone}", {"action": "leave"})
    other = seat_with(api, not_in=("p1", gone))
    api.send(f"c{other}", {"action": "takeSeat", "seat": gone, "name": "Twice"})
    assert err(api, f"c{other}") == "seated"


def test_the_room_learns_no_role_and_an_offered_spectator_nothing_before_taking(city):
    """Hidden information: every other view changes only by the new name, presence and the
    room block; a spectator's view while the seat is open carries no more than any spectator's."""
    api = city
    gone = seat_with(api, "mafia")
    api.send(f"c{gone}", {"action": "leave"})
    assert api.connect("cs") == 200
    api.send("cs", {"action": "sync"})
    spectator = api.gw.last("cs")["view"]
    assert spectator["you"] is None and spectator["private"] == me.view(api.state(), None)["private"]
    assert json.dumps(spectator).count('"mafia"') == json.dumps(me.view(api.state(), None)).count('"mafia"')
    assert spectator["room"]["openSeats"][0] == {
        "player": gone,
        "seat": next(p["seat"] for p in api.state()["players"] if p["id"] == gone),
        "until": api.clock.t + substitutes.VACANCY_SECONDS,
    }
    others = [f"c{p}" for p in ("p1", "p2", "p3", "p4", "p5", "p6") if p != gone]
    for k in others:
        api.send(k, {"action": "sync"})
    seen = {k: api.gw.last(k)["view"] for k in others}
    api.send("cs", {"action": "takeSeat", "seat": gone, "name": "Zed", "device": DEVICE})
    for k in others:
        after = api.gw.last(k)["view"]
        assert public_part(after) == public_part(seen[k])
        notice = after["room"]["substituted"][-1]
        assert set(notice) == {"seat", "player", "at"}  # never the role


def test_a_seat_the_absence_rule_would_eliminate_is_offered_and_taken_in_time(api):
    """docs/rulebooks/000-classic.txt §8.5: two absent days eliminate. With the option on, a seat
    away with one absent day is open; a substitute who takes it is present, so the day's end
    does not eliminate it. Nobody taking it: the rule applies as today."""
    api.start(6, options={"substitutes": True, "substituteApproval": False})
    away = seat_with(api)
    api.disconnect(f"c{away}")
    # every phase times out (nobody acts, so nobody dies) until the seat has one absent day
    while next(p for p in api.state()["players"] if p["id"] == away)["absentDays"] < 1:
        assert api.state()["phase"]["kind"] != "ended"
        api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t) + 0.1)
        api.fire(api.state()["seq"])
    offered = [s["player"] for s in api.gw.last("cp1")["view"]["room"]["openSeats"]]
    assert offered == [away]
    assert api.connect("cs") == 200
    api.send("cs", {"action": "takeSeat", "seat": away, "name": "Sub", "device": DEVICE})
    assert api.gw.last("cs", "seat")["player"] == away
    day = api.state()["day"]
    while api.state()["day"] == day or api.state()["phase"]["kind"] != "night":
        assert api.state()["phase"]["kind"] != "ended"
        api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t) + 0.1)
        api.fire(api.state()["seq"])
    p = next(p for p in api.state()["players"] if p["id"] == away)
    assert p["diedBy"] != "disconnect"


def test_a_character_that_dies_while_its_seat_is_open_closes_the_offer():
    """A dead seat has nothing to hand on: the offer ends, and no `leave` is applied on top."""
    ids = [f"p{i}" for i in range(1, 7)]
    state = me.new_game(players=ids, options={"preset": "city", "substitutes": True}, seed=3, now=0.0)
    room = {
        "status": "running",
        "players": [{"id": p} for p in ids],
        "vacant": {"p4": {"reason": "left", "until": 60.0}},
    }
    assert substitutes.open_seats(room, state) == {"p4": {"until": 60.0}}
    dead = me.apply(state, {"type": "remove", "player": "p4"}, now=5.0)  # any death of the character
    after, changed = substitutes.expire(room, dead, 6.0)
    assert changed and after is dead and "vacant" not in room
    assert substitutes.open_seats(room, after) == {}


def test_the_end_credits_the_player_a_substitute_replaced(city):
    """While the game runs a notice says only which seat has a new player; once it has ended it
    also names who held the seat before (`was`), so the end screen credits both."""
    api = city
    gone = seat_with(api)
    before = next(p["name"] for p in api.snapshot().room["players"] if p["id"] == gone)
    api.send(f"c{gone}", {"action": "leave"})
    assert api.connect("cs") == 200
    api.send("cs", {"action": "takeSeat", "seat": gone, "name": "Zed", "device": DEVICE})
    running = api.gw.last("cp1")["view"]["room"]["substituted"][-1]
    assert "was" not in running
    api.send("cp1", {"action": "endGame"})
    ended = api.gw.last("cp1")["view"]
    assert ended["result"]["winner"] == "none" and ended["result"]["cause"] == "host"
    assert ended["room"]["substituted"][-1] == {**running, "was": before}
    assert next(x for x in ended["players"] if x["id"] == gone)["name"] == "Zed"


def test_a_spectator_who_takes_a_seat_never_sees_its_version_go_back(api):
    """One socket, two viewers: a spectator's views count every public change, an absent
    seat's counter stands still while nobody holds it. The seat's first view on the socket
    that takes it comes after the last the spectator got (a client keeps the newest version:
    an older one is a late frame), and so does every view after it (docs/protocol.md,
    "WebSocket")."""
    pids = api.lobby(6, preset="city", options={"substitutes": True, "substituteApproval": False})
    assert api.connect("cs") == 200  # watching from the lobby on
    api.send("cs", {"action": "sync"})
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    gone = pids[-1]
    api.disconnect(f"c{gone}")
    for _ in range(3):  # phases end while the seat is away: the spectator sees each change
        api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t)
        api.send("cp1", {"action": "nudge"})
    assert api.connect(f"c{gone}", gone) == 200
    api.send(f"c{gone}", {"action": "leave"})
    held = max(f["version"] for f in api.gw.to("cs") if f.get("type") == "view")
    assert held > api.snapshot().room["viewSeq"][gone]  # the socket is ahead of the seat's count
    api.gw.clear()
    api.send("cs", {"action": "takeSeat", "seat": gone, "name": "Zed", "id": 7, "device": DEVICE})
    view = api.gw.last("cs")
    assert view["view"]["you"]["id"] == gone and view["version"] > held
    api.clock.advance(1)
    api.send("cp1", {"action": "chat", "channel": "day", "text": "welcome"})
    versions = [f["version"] for f in api.gw.to("cs") if f.get("type") in ("view", "patch")]
    assert len(versions) >= 2 and versions == sorted(set(versions)), versions
