"""Sockets per seat (review 7): a seat token cannot open sockets without end (each one gets
every push of the seat, like a spectator past the spectator cap). At
`MAX_SOCKETS_PER_PLAYER` the next socket of the seat gets in and the oldest goes: vanished
ones first (GetConnection), else the oldest live one, told `replaced` and closed. A reload or
a new device is never refused (docs/operations.md, "Sockets per player")."""

from __future__ import annotations

import pytest

from service.room import connections

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def seat_sockets(api, pid: str) -> list[str]:
    return sorted(k for k, p in api.snapshot().conns.items() if p == pid)


def test_the_default_cap_is_four_sockets_per_seat():
    assert connections.MAX_SOCKETS_PER_PLAYER == 4


def test_a_fifth_socket_of_a_seat_replaces_the_oldest_which_is_told_and_closed(api):
    api.lobby(2)  # cp1, cp2
    for k in ("cp2b", "cp2c", "cp2d"):
        api.clock.advance(10)
        assert api.connect(k, "p2") == 200
    assert seat_sockets(api, "p2") == ["cp2", "cp2b", "cp2c", "cp2d"]
    api.clock.advance(10)
    api.gw.clear()
    assert api.connect("cp2e", "p2") == 200  # never refused
    assert seat_sockets(api, "p2") == ["cp2b", "cp2c", "cp2d", "cp2e"]
    assert api.gw.closed == ["cp2"]
    told = api.gw.to("cp2")
    assert [(f["type"], f["code"]) for f in told] == [("error", "replaced")], told
    assert api.svc.store.lookup_connection("cp2") is None
    # the seat stays connected; the others' sockets are untouched
    api.send("cp1", {"action": "sync"})
    assert {p["id"]: p["connected"] for p in api.gw.last("cp1")["view"]["players"]}["p2"] is True
    assert seat_sockets(api, "p1") == ["cp1"]
    # the replaced socket's frames are refused: it is no longer in the room
    api.gw.clear()
    api.send("cp2", {"action": "ready", "id": "r"})
    assert api.gw.last("cp2", "error")["code"] == "not_connected"


def test_vanished_sockets_of_the_seat_go_first_and_no_live_one_is_replaced(api):
    """A phone that lost its network leaves sockets API Gateway still lists; a reload then
    drops those (GetConnection says 410) and keeps the live tabs."""
    api.lobby(2)
    for k in ("cp2b", "cp2c", "cp2d"):
        api.clock.advance(10)
        assert api.connect(k, "p2") == 200
    api.clock.advance(10)
    api.gw.gone.update({"cp2b", "cp2c"})
    api.gw.checked.clear()
    assert api.connect("cp2e", "p2") == 200
    assert seat_sockets(api, "p2") == ["cp2", "cp2d", "cp2e"]
    assert api.gw.closed == []  # nothing live was closed
    assert sorted(api.gw.checked) == ["cp2", "cp2b", "cp2c", "cp2d"]


def test_below_the_cap_nothing_is_asked_or_replaced(api):
    api.lobby(2)
    api.gw.checked.clear()
    for k in ("cp2b", "cp2c", "cp2d"):
        api.clock.advance(10)
        assert api.connect(k, "p2") == 200
    assert api.gw.checked == [] and api.gw.closed == []
    assert len(seat_sockets(api, "p2")) == 4


def test_many_sockets_of_one_seat_never_hold_more_than_the_cap(api, monkeypatch):
    monkeypatch.setattr(connections, "MAX_SOCKETS_PER_PLAYER", 2)
    api.lobby(2)
    for i in range(10):
        api.clock.advance(1)
        assert api.connect(f"x{i}", "p2") == 200
        assert len(seat_sockets(api, "p2")) <= 2
    assert seat_sockets(api, "p2") == ["x8", "x9"]
    assert "cp2" in api.gw.closed
