"""$connect matrix, $disconnect and presence."""

from __future__ import annotations

from service import config


def test_good_token_connects_as_that_player(api):
    api.lobby(2, connect=False)
    assert api.connect("c1", "p2") == 200
    assert api.snapshot().conns == {"c1": "p2"}


def test_wrong_token_is_refused(api):
    api.lobby(2, connect=False)
    assert api.connect("c1", token="not-a-token") == 403
    assert api.snapshot().conns == {}


def test_token_of_another_room_is_refused(api):
    api.create("Ann")
    other_token = api.tokens["p1"]
    api.tokens.clear()
    api.create("Bob")
    assert api.connect("c1", token=other_token) == 403


def test_no_token_is_a_spectator(api):
    api.lobby(2, connect=False)
    version = api.snapshot().version
    assert api.connect("s1") == 200
    snap = api.snapshot()
    assert snap.conns == {"s1": None}
    assert snap.version == version  # a spectator does not change the room
    api.send("s1", {"action": "sync"})
    view = api.gw.last("s1")["view"]
    assert view["you"] is None and view["phase"]["kind"] == "lobby"


def test_unknown_room_and_missing_room_are_refused(api):
    assert api.connect("c1", room="ZZZZZ") == 404
    from fnkit import CTX, ws_event

    from handlers import ws_connect

    assert ws_connect.handler(ws_event("$connect", "c2", query=None), CTX)["statusCode"] == 400


def test_origin_is_checked(api, svc):
    svc.allowed_origins = ("https://mafia.example",)
    api.lobby(2, connect=False)
    assert api.connect("c1", "p1", origin="https://evil.example") == 403
    assert api.connect("c2", "p1", origin="https://mafia.example") == 200
    assert api.connect("c3", "p2") == 200  # no Origin: not a browser
    assert set(api.snapshot().conns) == {"c2", "c3"}


def test_allowed_origins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://a.example, https://b.example/")
    assert config.Settings.from_env().allowed_origins == ("https://a.example", "https://b.example")


def test_connect_pushes_presence_to_others_but_not_to_the_new_socket(api):
    api.lobby(2, connect=False)
    api.connect("cp1", "p1")
    api.gw.clear()
    api.connect("cp2", "p2")
    assert [c for c, _ in api.gw.sent] == ["cp1"]
    players = api.gw.last("cp1")["view"]["players"]
    assert [p["connected"] for p in players] == [True, True]


def test_disconnect_forgets_the_connection_and_feeds_presence(api):
    api.start(4)
    api.disconnect("cp3")
    snap = api.snapshot()
    assert "cp3" not in snap.conns
    p3 = next(p for p in snap.state["players"] if p["id"] == "p3")
    assert p3["connected"] is False
    assert [p["connected"] for p in api.gw.last("cp1")["view"]["players"]] == [True, True, False, True]
    api.connect("cp3b", "p3")
    p3 = next(p for p in api.state()["players"] if p["id"] == "p3")
    assert p3["connected"] is True


def test_second_connection_of_a_player_keeps_presence(api):
    api.start(4)
    api.connect("cp3b", "p3")
    api.disconnect("cp3")
    p3 = next(p for p in api.state()["players"] if p["id"] == "p3")
    assert p3["connected"] is True


def test_disconnect_of_unknown_connection_is_harmless(api):
    api.lobby(2)
    version = api.snapshot().version
    api.disconnect("never-seen")
    api.svc._conn_rooms.clear()  # a cold Lambda: the CONN# lookup item is used
    api.disconnect("cp2")
    snap = api.snapshot()
    assert snap.conns == {"cp1": "p1"} and snap.version == version + 1
