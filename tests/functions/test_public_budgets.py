"""Limits one abuser cannot turn on others (docs/operations.md, "Abuse limits"): every public
path (quick play, joins, creation, the lists) spends the client's own budget (its viewer
address, an IPv6 address by its /64) before it reads or writes anything shared; quick play's
room creations count against the creation budget; joins are budgeted like quick play. Through
the REST handler, on the in-memory store."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX

from handlers import rest
from local import events
from service.features import limits

pytestmark = pytest.mark.memstore

ABUSER = "203.0.113.66"
OTHER = "198.51.100.23"


def call(method, path, body=None, ip=ABUSER, query=None):
    event = events.rest_event(
        method=method,
        path=path,
        headers={"Content-Type": "application/json"},
        body=None if body is None else json.dumps(body),
        query=query,
        source_ip=ip,
    )
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def quick(name, ip=ABUSER, device=None):
    return call("POST", "/quickplay", {"name": name, "lang": "en", **({"device": device} if device else {})}, ip)


def listing(ip=ABUSER, watch=False):
    return call("GET", "/rooms", ip=ip, query={"public": "1", "lang": "en", **({"watch": "1"} if watch else {})})


def small(monkeypatch, name, **sizes):
    old = getattr(limits, name)
    monkeypatch.setattr(limits, name, limits.Budget(old.kind, old.window, sizes.get("dev", 100), sizes["ip"]))


def test_a_flood_from_one_address_leaves_another_clients_play_now_alone(api, monkeypatch):
    """One address floods every public path until each answers 429 (its own budgets: quick
    play, creation, joins, the lists); meanwhile another client's "Play now" seats it (in one of
    the abuser's lobbies: the list still shows them), and its list still reads."""
    small(monkeypatch, "QUICK_PLAY", ip=12)
    small(monkeypatch, "CREATE_ROOM", ip=6)
    small(monkeypatch, "JOIN_ROOM", ip=5)
    small(monkeypatch, "LIST_ROOMS", ip=20)
    statuses = [quick(f"Flood{i}")[0] for i in range(14)]
    # one seat per address in a public room: each quick play made a room, until the creation
    # budget (6) ran out; then quick play's own (12) ran out too
    assert statuses[:6] == [201] * 6 and set(statuses[6:]) == {429}, statuses
    assert call("POST", "/rooms", {"name": "Flood", "options": {"public": True}})[0] == 429
    code = api.svc.store.list_public("PublicByLang", "en", 1, None, api.clock())[0][0]["roomCode"]
    joins = [call("POST", f"/rooms/{code}/players", {"name": f"J{i}"})[0] for i in range(7)]
    assert joins[-2:] == [429, 429] and 201 not in joins  # one seat per address; then the budget
    lists = [listing()[0] for _ in range(22)]
    assert lists[:20] == [200] * 20 and lists[20:] == [429, 429]
    assert listing(watch=True)[0] == 429  # the watch page spends the same list budget
    # the other client: its own budgets, untouched by the flood
    status, body = listing(ip=OTHER)
    assert status == 200 and len(body["rooms"]) == 6
    status, seat = quick("Stranger", ip=OTHER)
    assert status == 201 and seat["roomCode"] in {r["roomCode"] for r in body["rooms"]}
    assert call("POST", f"/rooms/{code}/players", {"name": "Guest"}, ip=OTHER)[0] in (201, 409)


def test_quick_play_spends_the_creation_budget_only_when_it_makes_a_room(api, monkeypatch):
    small(monkeypatch, "CREATE_ROOM", ip=2)
    assert quick("A1")[0] == 201  # a room made: one creation
    assert quick("A2")[0] == 201  # its lobby holds this address: another room, the second creation
    status, body = quick("A3")
    assert status == 429 and body["error"]["code"] == "too_many_requests"
    assert call("POST", "/rooms", {"name": "A4"})[0] == 429  # one creation budget for both paths
    # another address joins a listed lobby: no creation spent, so it may still create two rooms
    assert quick("B1", ip=OTHER)[0] == 201
    assert [call("POST", "/rooms", {"name": f"B{i}"}, ip=OTHER)[0] for i in (2, 3, 4)] == [201, 201, 429]


def test_joins_are_budgeted_like_quick_play_per_device_and_per_address(api, monkeypatch):
    small(monkeypatch, "JOIN_ROOM", dev=2, ip=3)
    codes = [api.create(f"Host{i}") for i in range(5)]  # private rooms (a household may share one)
    key = "device-key-of-a-joiner-0001"
    dev = [call("POST", f"/rooms/{c}/players", {"name": "Kid", "device": key}, ip=f"192.0.2.{i}")[0] for i, c in enumerate(codes[:3])]
    assert dev == [201, 201, 429]  # one device, three addresses: the device's budget
    addr = [call("POST", f"/rooms/{c}/players", {"name": "Pal"})[0] for c in codes[:4]]
    assert addr == [201, 201, 201, 429]  # no device key: the address's budget
    status, body = call("POST", f"/rooms/{codes[4]}/players", {"name": "Pal"})
    assert status == 429 and body["error"]["retryAfter"] >= 1
    assert len(api.snapshot(codes[4]).room["players"]) == 1  # refused: nothing stored


def test_an_ipv6_budget_is_keyed_by_its_64(api, monkeypatch):
    small(monkeypatch, "CREATE_ROOM", ip=2)
    home = ["2001:db8:1:2::1", "2001:db8:1:2:ffff:1:2:3", "2001:db8:1:2:abcd::9"]
    assert [call("POST", "/rooms", {"name": "V6"}, ip=ip)[0] for ip in home] == [201, 201, 429]
    assert call("POST", "/rooms", {"name": "V6"}, ip="2001:db8:1:3::1")[0] == 201  # another /64
    assert limits.address_key("::ffff:198.51.100.23") == "198.51.100.23"
    assert limits.address_key("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert limits.ip_digest("2001:db8:1:2::1", 600) == limits.ip_digest("2001:db8:1:2::77", 600)


def test_a_bad_list_request_is_refused_before_any_budget_is_spent(api, monkeypatch):
    small(monkeypatch, "LIST_ROOMS", ip=2)
    for query in ({"cursor": "made-up"}, {"lang": "xx"}, {"preset": "nosuch"}, {"limit": "0"}):
        status, body = call("GET", "/rooms", ip=ABUSER, query={"public": "1", "lang": "en", **query})
        assert status == 400 and body["error"]["message"], (query, body)
    assert [listing()[0] for _ in range(3)] == [200, 200, 429]
