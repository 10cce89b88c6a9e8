"""Liveness without `$disconnect` (docs/protocol.md, "Heartbeat"), the silent-socket rule, and the
spectator cap (docs/operations.md, "Spectators (cap) and the heartbeat").

A socket that vanished answers 410 to GetConnection (the fake gateway's `gone`): the
heartbeat (`ping`) of the connection before it in the room's ring drops it, and `takeHost`
asks about the host's sockets before it decides.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from botocore.stub import Stubber

from service.infra.fanout import HEARTBEAT_SECONDS, SILENT_SECONDS, ApiGateway
from service.room import connections
from service.room.operations import HOST_AWAY_SECONDS


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


# ---------------------------------------------------------------- the silent-socket rule
# `ApiGateway.alive` over a real botocore client (Stubber answers GetConnection): API Gateway
# keeps listing a socket whose client vanished until its idle timeout; a socket with no
# message for more than `SILENT_SECONDS` (150 s) counts as gone. The clock is injected.

REAL_NOW = 1_800_000_000.0


def stubbed_gateway(last_active_age: float | None = None, gone: bool = False):
    client = boto3.client("apigatewaymanagementapi", endpoint_url="https://ws.example/test")
    stub = Stubber(client)
    conn = {"ConnectionId": "c1"}
    if gone:
        stub.add_client_error("get_connection", "GoneException", http_status_code=410, expected_params=conn)
    else:
        at = datetime.fromtimestamp(REAL_NOW - last_active_age, tz=UTC)
        out = {
            "ConnectedAt": at - timedelta(minutes=5),
            "LastActiveAt": at,
            "Identity": {"SourceIp": "1.2.3.4", "UserAgent": "test"},
        }
        stub.add_response("get_connection", out, conn)
    stub.activate()
    return ApiGateway(client, now=lambda: REAL_NOW), stub


def test_the_silent_bound_is_two_and_a_half_heartbeats():
    assert SILENT_SECONDS == 150 and SILENT_SECONDS == 2.5 * HEARTBEAT_SECONDS


def test_a_socket_last_active_149_seconds_ago_counts_as_alive():
    gateway, stub = stubbed_gateway(last_active_age=149)
    assert gateway.alive("c1") is True
    stub.assert_no_pending_responses()  # one GetConnection, no DeleteConnection


def test_a_socket_silent_for_151_seconds_counts_as_gone_and_is_closed():
    gateway, stub = stubbed_gateway(last_active_age=151)
    stub.add_response("delete_connection", {}, {"ConnectionId": "c1"})  # closed: API Gateway forgets it too
    assert gateway.alive("c1") is False
    stub.assert_no_pending_responses()


def test_a_socket_that_answers_410_to_get_connection_counts_as_gone():
    gateway, stub = stubbed_gateway(gone=True)
    assert gateway.alive("c1") is False
    stub.assert_no_pending_responses()


class ManagementApi:
    """A stand-in for the `apigatewaymanagementapi` client (its real exception classes): posts
    are recorded, GetConnection answers 410 for `gone` and `LastActiveAt` from `last_active`."""

    def __init__(self) -> None:
        self.exceptions = boto3.client("apigatewaymanagementapi", endpoint_url="https://x.example").exceptions
        self.gone: set[str] = set()
        self.last_active: dict[str, float] = {}
        self.deleted: list[str] = []
        self.views: dict[str, dict] = {}  # connection id -> the last view posted to it

    def _gone(self, op: str):
        err = {"Error": {"Code": "GoneException", "Message": ""}, "ResponseMetadata": {"HTTPStatusCode": 410}}
        return self.exceptions.GoneException(err, op)

    def post_to_connection(self, ConnectionId: str, Data: bytes) -> None:  # noqa: N803 - boto3's names
        if ConnectionId in self.gone:
            raise self._gone("PostToConnection")
        frame = json.loads(Data)
        if frame["type"] == "view":
            self.views[ConnectionId] = frame["view"]

    def get_connection(self, ConnectionId: str) -> dict:  # noqa: N803
        if ConnectionId in self.gone:
            raise self._gone("GetConnection")
        at = self.last_active.get(ConnectionId, REAL_NOW)
        return {"LastActiveAt": datetime.fromtimestamp(at, tz=UTC)}

    def delete_connection(self, ConnectionId: str) -> None:  # noqa: N803
        self.deleted.append(ConnectionId)
        self.gone.add(ConnectionId)


@pytest.fixture
def mgmt(svc) -> ManagementApi:
    """The service's gateway is the real `ApiGateway` over `ManagementApi`."""
    client = ManagementApi()
    svc.gateway = svc.pipeline.gateway = ApiGateway(client, now=lambda: REAL_NOW)
    return client


def test_a_heartbeat_drops_a_connection_that_answers_410_to_get_connection(api, mgmt):
    api.lobby(3)
    api.clock.advance(10)
    mgmt.gone.add("cp3")  # the socket died; API Gateway never sent $disconnect
    api.send("cp2", {"action": "ping"})  # cp2's successor in the ring is cp3
    assert set(api.snapshot().conns) == {"cp1", "cp2"}
    assert [p["connected"] for p in mgmt.views["cp1"]["players"]] == [True, True, False]


def test_a_heartbeat_drops_a_connection_silent_for_longer_than_the_bound(api, mgmt):
    api.lobby(3)
    api.clock.advance(10)
    mgmt.last_active["cp3"] = REAL_NOW - SILENT_SECONDS + 1  # still within the bound
    api.send("cp2", {"action": "ping"})
    assert "cp3" in api.snapshot().conns and mgmt.deleted == []
    mgmt.last_active["cp3"] = REAL_NOW - SILENT_SECONDS - 1
    api.send("cp2", {"action": "ping"})
    assert "cp3" not in api.snapshot().conns and mgmt.deleted == ["cp3"]
