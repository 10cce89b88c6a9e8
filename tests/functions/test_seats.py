"""One person, one seat (docs/rules.md, "Substitutes"; functions/service/room/substitutes.py): a
connection or device that holds a seat, or held one in this game, takes no other; a seat a
substitute gave back is not offered again; the host approves each substitute with one tap
unless the room's option `substituteApproval` is off. Every refusal leaves the stored room as
it was."""

from __future__ import annotations

import pytest
from fnkit import CTX, ws_event

from handlers import ws_connect
from service.room import substitutes

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

SEATED = "device-of-a-seated-player-0001"
NEWCOMER = "device-of-a-newcomer-00000001"


def connect(api, conn_id: str, token: str | None = None, device: str | None = None) -> int:
    """A socket as the web client opens one: the room, the seat's token if any, the device key."""
    query = {
        "room": api.code,
        **({"token": token} if token else {}),
        **({"device": device} if device else {}),
    }
    return ws_connect.handler(ws_event("$connect", conn_id, query=query), CTX)["statusCode"]


def err(api, conn):
    e = api.gw.last(conn, "error")
    return e and e["code"]


def living(api, not_in=("p1",)):
    return next(p["id"] for p in api.state()["players"] if p["alive"] and p["id"] not in not_in)


def take(api, conn, seat, name="Zed", device=NEWCOMER, **extra):
    api.send(
        conn,
        {
            "action": "takeSeat",
            "seat": seat,
            "name": name,
            "id": "t",
            **extra,
            **({"device": device} if device else {}),
        },
    )


def room_of(api) -> tuple[int, dict]:
    snap = api.snapshot()
    return snap.version, snap.room


def game(api, approval: bool) -> list[str]:
    """A running city game with substitutes on; every seat connected from its own device
    (`c<pid>`, device `dev-<pid>-...`)."""
    api.create("P1", preset="city", options={"substitutes": True, "substituteApproval": approval})
    pids = ["p1"] + [api.join(f"P{i}") for i in range(2, 7)]
    for pid in pids:
        assert connect(api, f"c{pid}", api.tokens[pid], f"dev-{pid}-0123456789abcdef") == 200
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running"
    return pids


@pytest.mark.parametrize("approval", [True, False])
def test_a_seated_players_second_socket_cannot_take_a_vacated_seat(api, approval):
    """The red team's first way: a seated player opens a second, token-less socket from the
    same browser (the same device key) and asks for a vacated seat: refused `not_eligible`,
    nothing written, whether or not the host must approve."""
    game(api, approval)
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    seated = living(api, ("p1", gone))
    assert connect(api, "second", device=f"dev-{seated}-0123456789abcdef") == 200
    before = room_of(api)
    take(api, "second", gone, device=f"dev-{seated}-0123456789abcdef")
    assert err(api, "second") == "not_eligible"
    assert room_of(api) == before
    assert "seatRequests" not in api.snapshot().room


@pytest.mark.parametrize("approval", [True, False])
def test_a_token_less_socket_without_a_device_key_waits_for_the_host_or_is_refused(api, approval):
    """The red team's socket as a script opens it: no token, no device key. By default the host
    must approve, so it only gets `seatPending` (no seat, no role card) and the host sees who
    asks; with the host's approval off the device key is the one check left, and a takeSeat
    without one is refused `no_device` (the web client always sends it), nothing written."""
    game(api, approval)
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    assert connect(api, "bare") == 200
    before = room_of(api)
    take(api, "bare", gone, device=None)
    assert api.snapshot().conns["bare"] is None  # no seat
    assert all(f["type"] != "seat" for f in api.gw.to("bare"))
    api.send("bare", {"action": "sync"})
    assert api.gw.last("bare")["view"]["you"] is None  # no role card
    if approval:
        assert api.gw.last("bare", "seatPending")["player"] == gone
        assert [r["player"] for r in api.gw.last("cp1")["view"]["room"]["seatRequests"]] == [gone]
    else:
        assert err(api, "bare") == "no_device"
        assert room_of(api)[1] == before[1]


@pytest.mark.parametrize("how", ["left", "removed"])
def test_a_dead_removed_or_departed_players_new_socket_cannot_take_a_seat(api, how):
    """The red team's second way: a player whose character is out (it left or was removed, and
    nobody took the seat, so the rule eliminated it) opens a fresh socket from the same browser
    and asks for another open seat: refused `not_eligible`, nothing written."""
    game(api, approval=False)
    out = living(api)
    if how == "left":
        api.send(f"c{out}", {"action": "leave"})
    else:
        api.send("cp1", {"action": "kick", "target": out})
    api.clock.advance(substitutes.VACANCY_SECONDS + 1)
    api.send("cp1", {"action": "sync"})
    assert next(p for p in api.state()["players"] if p["id"] == out)["alive"] is False  # dead now
    other = living(api, ("p1", out))
    api.send(f"c{other}", {"action": "leave"})  # another seat opens
    assert connect(api, "fresh", device=f"dev-{out}-0123456789abcdef") == 200
    before = room_of(api)
    take(api, "fresh", other, device=f"dev-{out}-0123456789abcdef")
    assert err(api, "fresh") == "not_eligible"
    assert room_of(api) == before


def test_a_seat_a_substitute_gave_back_is_not_offered_again(api):
    game(api, approval=False)
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    assert connect(api, "sub", device=NEWCOMER) == 200
    take(api, "sub", gone)
    assert api.gw.last("sub", "seat")["player"] == gone
    api.send("sub", {"action": "leave"})  # the substitute gives the seat back
    view = api.gw.last("cp1")["view"]
    assert view["room"]["openSeats"] == []
    p = next(p for p in api.state()["players"] if p["id"] == gone)
    assert p["alive"] is False and p["diedBy"] == "left"  # the rulebook's leave, at once
    # and the substitute's device takes no other seat of this game
    other = living(api, ("p1", gone))
    api.send(f"c{other}", {"action": "leave"})
    assert connect(api, "sub2", device=NEWCOMER) == 200
    take(api, "sub2", other)
    assert err(api, "sub2") == "not_eligible"


def test_the_host_approves_each_substitute_by_default_with_one_tap(api):
    """Default options: a newcomer's takeSeat waits (`seatPending` to it alone); only the host's
    view lists the request; the host's one tap hands the seat over."""
    pids = game(api, approval=True)
    assert api.state()["options"]["substituteApproval"] is True
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    assert connect(api, "new", device=NEWCOMER) == 200
    take(api, "new", gone, name="Newt")
    pending = api.gw.last("new", "seatPending")
    assert pending["player"] == gone and pending["id"] == "t"
    assert api.snapshot().conns["new"] is None  # no seat yet
    requests = api.gw.last("cp1")["view"]["room"]["seatRequests"]
    assert [(r["player"], r["name"]) for r in requests] == [(gone, "Newt")]
    for pid in pids[1:]:
        if pid != gone:
            api.send(f"c{pid}", {"action": "sync"})
            assert api.gw.last(f"c{pid}")["view"]["room"]["seatRequests"] == []
    api.send(f"c{living(api, ('p1', gone))}", {"action": "approveSeat", "request": requests[0]["request"]})
    assert err(api, f"c{living(api, ('p1', gone))}") == "not_host"
    api.send("cp1", {"action": "approveSeat", "request": requests[0]["request"], "approve": True})
    assert api.gw.last("new", "seat")["player"] == gone
    assert api.snapshot().conns["new"] == gone
    assert api.gw.last("new")["view"]["you"]["id"] == gone
    assert api.gw.last("cp1")["view"]["room"]["seatRequests"] == []


def test_a_refusal_leaves_the_seat_open(api):
    game(api, approval=True)
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    assert connect(api, "new", device=NEWCOMER) == 200
    take(api, "new", gone)
    request = api.gw.last("cp1")["view"]["room"]["seatRequests"][0]["request"]
    api.send("cp1", {"action": "approveSeat", "request": request, "approve": False})
    assert err(api, "new") == "seat_refused"
    assert api.snapshot().conns["new"] is None
    view = api.gw.last("cp1")["view"]
    assert [s["player"] for s in view["room"]["openSeats"]] == [gone] and view["room"]["seatRequests"] == []
    before = room_of(api)
    api.send("cp1", {"action": "approveSeat", "request": request})
    assert err(api, "cp1") == "no_request"
    assert room_of(api) == before


def test_an_approved_newcomer_who_left_meanwhile_gets_nothing_and_the_host_is_told(api):
    game(api, approval=True)
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    assert connect(api, "new", device=NEWCOMER) == 200
    take(api, "new", gone)
    request = api.gw.last("cp1")["view"]["room"]["seatRequests"][0]["request"]
    api.disconnect("new")
    api.send("cp1", {"action": "approveSeat", "request": request})
    assert err(api, "cp1") == "request_gone"
    assert [s["player"] for s in api.gw.last("cp1")["view"]["room"]["openSeats"]] == [gone]


def test_one_device_takes_one_seat_in_the_lobby(api):
    """The web client sends its device key with `POST /rooms/{code}/players`: a device that
    holds a seat of the room (joined, or connected as a seat) is refused `409 device_seated`,
    and nothing is written."""
    api.create("Ann")
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Bob", "device": NEWCOMER})
    assert status == 201, body
    before = room_of(api)
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Bobby", "device": NEWCOMER})
    assert (status, body["error"]["code"]) == (409, "device_seated")
    assert room_of(api) == before
    assert connect(api, "cp1", api.tokens["p1"], SEATED) == 200  # the host's device, noted at connect
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Cat", "device": SEATED})
    assert (status, body["error"]["code"]) == (409, "device_seated")
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Dan", "device": "short"})
    assert (status, body["error"]["code"]) == (400, "bad_request")
    assert connect(api, "bad", device="not a key!") == 400


def test_while_the_host_is_away_a_request_waits_and_the_seat_closes_as_if_nobody_came(api):
    """docs/rules.md, "Substitutes" (reading): nobody but the host approves; the seat's 60 s run
    on, and the rulebook's leave applies when they end; the request goes with the seat."""
    game(api, approval=True)
    gone = living(api)
    api.send(f"c{gone}", {"action": "leave"})
    assert connect(api, "new", device=NEWCOMER) == 200
    take(api, "new", gone)
    assert api.gw.last("new", "seatPending")
    api.disconnect("cp1")  # the host is away
    other = living(api, ("p1", gone))
    request = api.snapshot().room["seatRequests"][0]["request"]
    api.send(f"c{other}", {"action": "approveSeat", "request": request})
    assert err(api, f"c{other}") == "not_host"
    api.clock.advance(substitutes.VACANCY_SECONDS + 1)
    api.send(f"c{other}", {"action": "sync"})
    p = next(p for p in api.state()["players"] if p["id"] == gone)
    assert p["alive"] is False and p["diedBy"] == "left"
    assert "seatRequests" not in api.snapshot().room and api.snapshot().conns["new"] is None
