"""Liveness without `$disconnect` (issue 15 §2) and the spectator cap (§3).

A socket that vanished answers 410 to GetConnection (the fake gateway's `gone`): the
heartbeat (`ping`) of the connection before it in the room's ring drops it, and `takeHost`
asks about the host's sockets before it decides.
"""

from __future__ import annotations

from service import connections
from service.operations import HOST_AWAY_SECONDS


def players(api) -> dict[str, bool]:
    view = api.gw.last("cp1")["view"]
    return {p["id"]: p["connected"] for p in view["players"]}


def test_ping_is_answered_with_pong_and_writes_nothing(api):
    api.lobby(3)
    api.clock.advance(10)
    version = api.snapshot().version
    api.gw.clear()
    api.send("cp2", {"action": "ping", "id": "h1"})
    assert api.gw.sent == [("cp2", {"type": "pong", "id": "h1"})]
    assert api.snapshot().version == version
    assert api.gw.checked == ["cp3"]  # one GetConnection: the next socket in the ring


def test_a_player_who_vanished_in_the_lobby_is_marked_disconnected_at_the_next_heartbeat(api):
    api.lobby(4)
    api.clock.advance(10)
    api.gw.gone.add("cp3")  # the socket died; API Gateway never sent $disconnect
    assert players(api)["p3"] is True
    api.send("cp2", {"action": "ping"})  # cp2's successor in the ring is cp3
    assert players(api)["p3"] is False
    assert "cp3" not in api.snapshot().conns


def test_a_run_of_vanished_sockets_is_found_by_one_heartbeat(api):
    api.lobby(5)
    api.clock.advance(10)
    api.gw.gone.update({"cp2", "cp3", "cp4"})
    api.send("cp1", {"action": "ping"})
    assert set(api.snapshot().conns) == {"cp1", "cp5"}
    assert players(api) == {"p1": True, "p2": False, "p3": False, "p4": False, "p5": True}


def test_a_socket_younger_than_the_connect_grace_is_not_dropped(api):
    api.lobby(3)
    api.gw.gone.add("cp3")  # API Gateway answers 410 until $connect has returned
    api.send("cp2", {"action": "ping"})
    assert "cp3" in api.snapshot().conns


def test_take_host_succeeds_when_the_host_vanished_without_disconnect(api):
    """The host's socket is gone but its connection item stays: the first `takeHost` asks
    API Gateway, drops it and starts the away clock; 60 s later `takeHost` succeeds."""
    api.start(4)
    api.clock.advance(10)
    api.gw.gone.add("cp1")
    api.send("cp2", {"action": "takeHost", "id": "t1"})
    assert api.gw.last("cp2", "error")["code"] == "host_present"
    snap = api.snapshot()
    assert "cp1" not in snap.conns and snap.room["hostAwaySince"] == api.clock.t
    api.clock.advance(HOST_AWAY_SECONDS)
    api.send("cp2", {"action": "takeHost", "id": "t2"})
    assert api.snapshot().room["host"] == "p2"


def test_take_host_is_refused_while_the_hosts_socket_answers(api):
    api.start(4)
    api.clock.advance(HOST_AWAY_SECONDS + 10)
    api.send("cp2", {"action": "takeHost", "id": "t1"})
    assert api.gw.last("cp2", "error")["code"] == "host_present"
    assert "cp1" in api.gw.checked and api.snapshot().room["host"] == "p1"


def test_spectators_are_capped_per_room(api, monkeypatch):
    monkeypatch.setattr(connections, "MAX_SPECTATORS", 3)
    api.lobby(2)
    assert [api.connect(f"s{i}") for i in range(3)] == [200, 200, 200]
    assert api.connect("s3") == 403  # body "too_many_spectators"
    snap = api.snapshot()
    assert sum(1 for p in snap.conns.values() if p is None) == 3
    assert api.connect("cp2b", "p2") == 200  # players are never refused for spectators
    api.disconnect("s0")
    assert api.connect("s4") == 200


def test_the_default_spectator_cap_is_twenty(api):
    assert connections.MAX_SPECTATORS == 20
    api.lobby(1)
    assert all(api.connect(f"s{i}") == 200 for i in range(20))
    assert api.connect("s20") == 403
