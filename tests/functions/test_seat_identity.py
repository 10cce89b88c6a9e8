"""One person, one seat, across REST and the socket (docs/rules.md, "Public rooms": One person, one seat):
the key quick play seated and the socket's are one identity, because the server ties both to
the address it sees; a second socket with a fresh device key cannot take a second seat of a
public game; a host never gives a substitute's seat to someone whose address holds a seat (its
own included), and its request card says, as a boolean, when a newcomer shares an address with a
seat. Driven as a modified client would: raw REST and WebSocket events, each from its address."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX

from handlers import rest, ws_connect, ws_default
from local import events

pytestmark = pytest.mark.memstore

ADDRS = ["203.0.113.11", "203.0.113.12", "203.0.113.13", "203.0.113.14", "203.0.113.15"]
NEWCOMER = "198.51.100.77"


def post(path, body, ip):
    event = events.rest_event(
        method="POST", path=path, headers={"Content-Type": "application/json"}, body=json.dumps(body), source_ip=ip
    )
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def connect(conn, code, ip, token=None, device=None):
    query = {"room": code, **({"token": token} if token else {}), **({"device": device} if device else {})}
    out = ws_connect.handler(events.ws_connect_event(connection=conn, query=query, source_ip=ip), CTX)
    return out["statusCode"]


def send(conn, frame, ip):
    event = events.ws_message_event(connection=conn, body=json.dumps(frame), route_key="$default", source_ip=ip)
    ws_default.handler(event, CTX)


def table(api, options, rest_addrs=ADDRS[:5], sock_addrs=ADDRS[:5]):
    """A running game of five, each seat taken by REST from `rest_addrs[i]` (with its own device
    key) and its socket `s<i>` from `sock_addrs[i]`. Returns {conn: player id} after the deal."""
    status, made = post("/rooms", {"name": "Host", "device": "device-key-of-seat-0000", "options": options}, rest_addrs[0])
    assert status == 201, made
    code = made["roomCode"]
    api.code = code
    tokens = [made["token"]]
    for i in range(1, 5):
        status, seat = post(f"/rooms/{code}/players", {"name": f"Guest{i}", "device": f"device-key-of-seat-000{i}"}, rest_addrs[i])
        assert status == 201, seat
        tokens.append(seat["token"])
    for i, token in enumerate(tokens):
        assert connect(f"s{i}", code, sock_addrs[i], token, f"device-key-of-seat-000{i}") == 200
    for i in range(1, 5):
        send(f"s{i}", {"action": "ready"}, sock_addrs[i])
    send("s0", {"action": "start"}, sock_addrs[0])
    snap = api.snapshot()
    assert snap.room["status"] == "running", api.gw.last("s0", "error")
    return {c: p for c, p in snap.conns.items() if p}


def open_a_seat(api, seats, ip):
    """Seat s3 leaves mid-game: its seat is offered to substitutes."""
    gone = seats["s3"]
    send("s3", {"action": "leave"}, ip)
    assert gone in (api.snapshot().room.get("vacant") or {}), api.gw.last("s3", "error")
    return gone


def test_one_person_one_seat_a_second_socket_with_a_fresh_key_cannot_take_a_second_seat_of_a_public_game(api):
    seats = table(api, {"public": True, "autoStart": 12})
    gone = open_a_seat(api, seats, ADDRS[3])
    before = api.snapshot()
    # seat s1's person opens a second socket (a fresh device key, no token) from its address
    assert connect("twin", api.code, ADDRS[1], device="a-fresh-device-key-00001") == 200
    send("twin", {"action": "takeSeat", "seat": gone, "name": "Twin", "device": "a-fresh-device-key-00001", "id": 9}, ADDRS[1])
    refusal = api.gw.last("twin", "error")
    assert refusal["code"] == "address_seated" and refusal["id"] == 9 and refusal["message"]
    after = api.snapshot()
    assert after.room["players"] == before.room["players"] and gone in after.room["vacant"]
    # a newcomer from another address takes it at once (a public game needs no tap)
    assert connect("stranger", api.code, NEWCOMER, device="a-fresh-device-key-00002") == 200
    send("stranger", {"action": "takeSeat", "seat": gone, "name": "Stranger", "device": "a-fresh-device-key-00002"}, NEWCOMER)
    assert api.gw.last("stranger", "seat")["player"] == gone


def test_one_person_one_seat_the_sockets_address_counts_when_rest_came_from_another(api):
    """CloudFront over IPv6 for REST, the WebSocket API over IPv4: the socket's address is the
    seat's too, so a second socket from it is refused as well."""
    v6 = [f"2001:db8:{i}::1" for i in range(5)]
    seats = table(api, {"public": True, "autoStart": 12}, rest_addrs=v6)
    gone = open_a_seat(api, seats, ADDRS[3])
    connect("twin", api.code, ADDRS[2], device="a-fresh-device-key-00003")
    send("twin", {"action": "takeSeat", "seat": gone, "name": "Twin", "device": "a-fresh-device-key-00003"}, ADDRS[2])
    assert api.gw.last("twin", "error")["code"] == "address_seated"
    # and one from another address of the seat's IPv6 /64
    connect("twin6", api.code, "2001:db8:4::abcd", device="a-fresh-device-key-00004")
    send("twin6", {"action": "takeSeat", "seat": gone, "name": "Twin", "device": "a-fresh-device-key-00004"}, "2001:db8:4::abcd")
    assert api.gw.last("twin6", "error")["code"] == "address_seated"


def test_a_host_never_approves_a_substitute_from_an_address_that_holds_a_seat_its_own_included(api):
    seats = table(api, {"substitutes": True})  # a private game: requests wait for the host's tap
    host = next(c for c, p in seats.items() if p == api.snapshot().room["host"])
    gone = open_a_seat(api, seats, ADDRS[3])
    # from the host's own address: the request waits, its card says it shares an address
    connect("own", api.code, ADDRS[0], device="a-fresh-device-key-00005")
    send("own", {"action": "takeSeat", "seat": gone, "name": "Own"}, ADDRS[0])
    assert api.gw.last("own", "seatPending")
    send(host, {"action": "sync"}, ADDRS[0])
    (card,) = api.gw.last(host)["view"]["room"]["seatRequests"]
    assert card["sharesAddress"] is True and card["name"] == "Own"
    before = api.snapshot().room["players"]
    send(host, {"action": "approveSeat", "request": card["request"]}, ADDRS[0])
    assert api.gw.last(host, "error")["code"] == "newcomer_seated"
    assert api.gw.last("own", "error")["code"] == "seat_refused"
    room = api.snapshot().room
    assert room["players"] == before and gone in room["vacant"] and not room.get("seatRequests")
    # the address of the seat that left holds nothing now: the card says so, the host may approve
    connect("back", api.code, ADDRS[3], device="a-fresh-device-key-00006")
    send("back", {"action": "takeSeat", "seat": gone, "name": "Back"}, ADDRS[3])
    send(host, {"action": "sync"}, ADDRS[0])
    (card,) = api.gw.last(host)["view"]["room"]["seatRequests"]
    assert card["sharesAddress"] is True
    send(host, {"action": "approveSeat", "request": card["request"], "approve": False}, ADDRS[0])
    # a newcomer from elsewhere: the card says nothing shared, and the tap seats it
    connect("new", api.code, NEWCOMER, device="a-fresh-device-key-00007")
    send("new", {"action": "takeSeat", "seat": gone, "name": "New"}, NEWCOMER)
    send(host, {"action": "sync"}, ADDRS[0])
    (card,) = api.gw.last(host)["view"]["room"]["seatRequests"]
    assert card["sharesAddress"] is False
    send(host, {"action": "approveSeat", "request": card["request"]}, ADDRS[0])
    assert api.gw.last("new", "seat")["player"] == gone
    # no frame to anyone names an address
    text = json.dumps([f for conn in ("own", "back", "new", host, "s1") for f in api.gw.to(conn)])
    assert not any(a in text for a in (*ADDRS, NEWCOMER))
