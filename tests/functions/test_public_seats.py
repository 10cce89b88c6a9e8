"""One person, one seat in public rooms (docs/rules.md, "Public rooms"): one
seat per device key and per source address (an IPv4 address, an IPv6 /64) in a public room,
quick play noting the device and address of a room it creates; a private room keeps the host's
judgement (a household shares an address). Through the REST handler, on the in-memory store."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX

from handlers import rest
from local import events

pytestmark = pytest.mark.memstore

KEY = "device-key-of-a-stranger-01"


def call(path, body, ip="203.0.113.7"):
    event = events.rest_event(
        method="POST",
        path=path,
        headers={"Content-Type": "application/json"},
        body=json.dumps(body),
        source_ip=ip,
    )
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def quick(name, device=None, ip="203.0.113.7"):
    return call("/quickplay", {"name": name, "lang": "en", **({"device": device} if device else {})}, ip)


def join(code, name, device=None, ip="203.0.113.7"):
    return call(f"/rooms/{code}/players", {"name": name, **({"device": device} if device else {})}, ip)


def seats(api, code):
    return [p["id"] for p in api.snapshot(code).room["players"]]


def test_one_person_one_seat_quick_play_twice_from_one_device_never_takes_two_seats_of_a_room(api):
    """The room quick play makes notes its creator's device: the same key pressing "Play now"
    again (from another address) is never seated in it a second time."""
    status, first = quick("Ann", device=KEY, ip="203.0.113.7")
    assert status == 201
    status, second = quick("Ann2", device=KEY, ip="198.51.100.9")
    assert status == 201
    assert second["roomCode"] != first["roomCode"]
    assert seats(api, first["roomCode"]) == ["p1"]
    status, body = join(first["roomCode"], "Ann3", device=KEY, ip="192.0.2.44")
    assert status == 409 and body["error"]["code"] == "device_seated"


def test_one_person_one_seat_one_address_takes_one_seat_of_a_public_room(api):
    """Joins without a device key from one address: the second is refused `address_seated`
    (a code and a message), the room unchanged; an IPv6 address counts by its /64."""
    status, made = quick("Ann", ip="203.0.113.7")
    code = made["roomCode"]
    assert join(code, "Bob", ip="198.51.100.9")[0] == 201
    before = api.snapshot(code).room
    status, body = join(code, "Bob2", ip="198.51.100.9")
    assert status == 409 and body["error"]["code"] == "address_seated" and body["error"]["message"]
    assert api.snapshot(code).room == before
    assert join(code, "Ann2", ip="203.0.113.7")[1]["error"]["code"] == "address_seated"  # the creator's too
    assert join(code, "Cy", ip="2001:db8:1:2::10")[0] == 201
    status, body = join(code, "Cy2", ip="2001:db8:1:2:ffff:1:2:3")  # the same /64
    assert status == 409 and body["error"]["code"] == "address_seated"
    assert join(code, "Di", ip="2001:db8:1:3::10")[0] == 201  # another /64
    assert len(seats(api, code)) == 4


def test_one_person_one_seat_quick_play_from_a_seated_address_goes_to_another_room(api):
    status, made = quick("Ann", ip="203.0.113.7")
    status, again = quick("Ann2", ip="203.0.113.7")
    assert status == 201 and again["roomCode"] != made["roomCode"]
    assert seats(api, made["roomCode"]) == ["p1"]


def test_one_person_one_seat_a_private_room_keeps_the_hosts_judgement(api):
    """A household shares an address: a private room seats them all."""
    status, made = call("/rooms", {"name": "Mum"}, ip="203.0.113.7")
    code = made["roomCode"]
    assert join(code, "Kid", ip="203.0.113.7")[0] == 201
    assert join(code, "Dad", ip="203.0.113.7")[0] == 201
    assert len(seats(api, code)) == 3
