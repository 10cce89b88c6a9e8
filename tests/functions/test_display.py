"""A screen for the room (service/room/displays.py): a display is a spectator by rights (its view
is the spectator's, byte for byte, over a whole played game), it is admitted by the room's
display key alone, has a small cap of its own apart from the spectators' places, the host
revokes it, and the key reaches the host's connection only: no view, no other frame."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX, ws_event
from test_game import play

from handlers import ws_connect
from service.room import connections, displays

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def show(api, frame_id="d", **extra) -> dict:
    """The host asks for the display key (`display` frame): the reply frame."""
    api.send("cp1", {"action": "display", "id": frame_id, **extra})
    reply = api.gw.last("cp1", "display")
    assert reply is not None, api.errors("cp1")
    return reply


def connect_display(api, conn_id: str, key: str) -> tuple[int, str]:
    out = ws_connect.handler(ws_event("$connect", conn_id, query={"room": api.code, "display": key}), CTX)
    return out["statusCode"], out.get("body", "")


def record_wire(api) -> list[tuple[str, bytes]]:
    """Every frame's bytes as the gateway posts them."""
    raw: list[tuple[str, bytes]] = []
    post = api.gw.post

    def recording(conn_id: str, data: bytes) -> bool:
        raw.append((conn_id, bytes(data)))
        return post(conn_id, data)

    api.gw.post = recording
    return raw


def test_a_display_sees_the_spectators_view_byte_for_byte_over_a_whole_game(api):
    n = 8
    api.start(n)
    key = show(api)["key"]
    # the screen first: its coming is a room write (`room.screens`), seen by those already there
    assert connect_display(api, "tv1", key)[0] == 200
    raw = record_wire(api)
    assert api.connect("s1") == 200
    api.send("s1", {"action": "sync", "id": 1})
    api.send("tv1", {"action": "sync", "id": 1})
    play(api, n, seed=1)
    assert api.snapshot().room["status"] == "ended"
    spectator = [data for conn, data in raw if conn == "s1"]
    screen = [data for conn, data in raw if conn == "tv1"]
    assert len(screen) > 20 and screen == spectator
    # and the key is in none of the frames of the game, to anyone
    assert all(key.encode() not in data for _, data in raw)


def test_the_key_reaches_only_the_hosts_connection_and_no_view(api):
    api.lobby(3)
    assert api.connect("s1") == 200
    api.gw.clear()
    raw = record_wire(api)
    reply = show(api, frame_id="k")
    key = reply["key"]
    assert displays.key_shaped(key) and len(key) * 6 >= 128
    assert reply["id"] == "k" and reply["room"] == api.code and reply["screens"] == 0
    assert [conn for conn, data in raw if key.encode() in data] == ["cp1"]
    # asked again, the same key (a reload of the host's lobby shows the same QR code)
    assert show(api)["key"] == key
    # the public summary and every view of the room: no key
    status, summary = api.rest("GET", f"/rooms/{api.code}")
    assert status == 200 and key not in json.dumps(summary)
    for pid in ("p1", "p2", "p3"):
        api.send(f"c{pid}", {"action": "sync"})
        assert key not in json.dumps(api.gw.last(f"c{pid}"))


def test_only_the_host_gets_the_display_key(api):
    api.lobby(3)
    api.connect("s1")
    api.send("cp2", {"action": "display", "id": 1})
    assert api.errors("cp2")[-1]["code"] == "not_host"
    api.send("s1", {"action": "display", "id": 1})
    assert api.errors("s1")[-1]["code"] == "spectator"
    assert "displayKey" not in api.snapshot().room


def test_a_wrong_or_missing_key_admits_no_display_and_writes_nothing(api):
    api.lobby(2)
    assert connect_display(api, "tv0", "A" * 32) == (403, "bad_display_key")  # no key drawn yet
    key = show(api)["key"]
    version = api.snapshot().version
    assert connect_display(api, "tv1", "B" * 32) == (403, "bad_display_key")
    assert connect_display(api, "tv2", "short") == (403, "bad_display_key")
    assert api.snapshot().version == version and "tv1" not in api.snapshot().conns
    assert connect_display(api, "tv3", key)[0] == 200


def test_displays_have_their_own_cap_and_take_no_spectator_place(api, monkeypatch):
    monkeypatch.setattr(connections, "MAX_SPECTATORS", 2)
    assert displays.MAX_DISPLAYS == 2
    api.lobby(2)
    key = show(api)["key"]
    assert connect_display(api, "tv1", key)[0] == 200
    assert connect_display(api, "tv2", key)[0] == 200
    assert connect_display(api, "tv3", key) == (403, "too_many_displays")
    # both spectator places are still free
    assert api.connect("s1") == 200 and api.connect("s2") == 200
    assert api.connect("s3") == 403
    assert show(api)["screens"] == 2
    # a display that leaves frees its place
    api.disconnect("tv1")
    assert connect_display(api, "tv3", key)[0] == 200


def test_the_host_revokes_the_displays_the_key_changes_and_their_sockets_close(api):
    api.lobby(2)
    key = show(api)["key"]
    assert connect_display(api, "tv1", key)[0] == 200
    assert api.connect("s1") == 200
    api.gw.clear()
    reply = show(api, revoke=True)
    assert reply["key"] != key and reply["screens"] == 0
    assert api.gw.closed == ["tv1"]
    assert [(f["type"], f["code"]) for f in api.gw.to("tv1")] == [("error", "display_revoked")]
    assert "tv1" not in api.snapshot().conns and "s1" in api.snapshot().conns
    assert connect_display(api, "tv2", key) == (403, "bad_display_key")
    assert connect_display(api, "tv3", reply["key"])[0] == 200


def test_each_revoke_counts_up_the_keys_generation_in_the_answer_and_every_view(api):
    """A host's page tells an older `display` answer from a newer one by `gen`, and learns from
    any view (`room.displayGen`) that another of its devices revoked. The first key is drawn
    without writing a count (a room stored before the count existed reads 0 the same way)."""
    api.lobby(2)
    api.connect("s1")
    first = show(api)
    assert first["gen"] == 0 and "displayGen" not in api.snapshot().room
    api.send("s1", {"action": "sync"})
    assert api.gw.last("s1")["view"]["room"]["displayGen"] == 0
    again = show(api, revoke=True)
    assert again["gen"] == 1 and again["key"] != first["key"]
    assert {api.gw.last(c)["view"]["room"]["displayGen"] for c in ("cp1", "cp2", "s1")} == {1}
    assert show(api, narrator=True)["gen"] == 1  # a narrator switch draws no key
    assert show(api, revoke=True)["gen"] == 2


def test_the_narrator_switch_is_the_hosts_and_public(api):
    api.lobby(2)
    api.connect("s1")
    assert show(api, narrator=True)["narrator"] is True
    assert api.gw.last("s1")["view"]["room"]["narrator"] is True
    assert api.gw.last("cp2")["view"]["room"]["narrator"] is True
    assert show(api, narrator=False)["narrator"] is False
    assert api.gw.last("s1")["view"]["room"]["narrator"] is False


def test_the_room_knows_a_screen_is_connected_the_same_for_every_viewer(api):
    """`room.screens` (phones' "in the room" mode): set when a display connects, gone when it
    leaves or is revoked, and the same in every viewer's view (a count, no secret)."""
    api.start(4)
    api.connect("s1")
    key = show(api)["key"]

    def screens() -> set[int]:
        for conn in ("cp1", "cp2", "cp3", "cp4", "s1"):
            api.send(conn, {"action": "sync"})
        return {api.gw.last(conn)["view"]["room"]["screens"] for conn in ("cp1", "cp2", "cp3", "cp4", "s1")}

    assert screens() == {0}
    assert connect_display(api, "tv1", key)[0] == 200
    assert screens() == {1} and api.snapshot().room["screens"] == 1
    assert connect_display(api, "tv2", key)[0] == 200
    assert screens() == {2}
    api.disconnect("tv1")
    assert screens() == {1}
    show(api, revoke=True)
    assert screens() == {0}
    # a spectator leaving is no screen leaving
    assert connect_display(api, "tv3", show(api)["key"])[0] == 200
    api.disconnect("s1")
    api.send("cp2", {"action": "sync"})
    assert api.gw.last("cp2")["view"]["room"]["screens"] == 1
