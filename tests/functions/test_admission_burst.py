"""Caps that hold under a burst: 60 `$connect`s of one room at once, on threads over moto.

A spectator's connect used to write no room item (only a ConditionCheck of its version), so
concurrent ones all passed on one version, each counting a snapshot without the others: 21-23
got in past a cap of 20. Now each admitted spectator claims a slot item of its own
(`SPEC#nn`, a conditional Put: functions/service/room/connections.py `admit`, storage.py), and a
seat socket is a conditional write of the room item, so a burst admits exactly the cap.

moto answers each DynamoDB request on the caller's thread with no lock, so two conditional
writes could both pass there, which DynamoDB never lets happen (a conditional write is atomic
on its item). `atomic_moto` gives moto one request at a time, as the offline stack does
(local/moto_fixes.py `serialize_dynamodb`).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from moto.dynamodb.responses import DynamoHandler

from service.room import connections

BURST = 60


@pytest.fixture
def atomic_moto(monkeypatch):
    lock = threading.Lock()
    call_action = DynamoHandler.call_action

    def one_at_a_time(self):
        with lock:
            return call_action(self)

    monkeypatch.setattr(DynamoHandler, "call_action", one_at_a_time)


def burst(api, conn_ids: list[str], pid: str | None = None) -> list[int]:
    """Every connect at once (a barrier in front of each), the statuses in order."""
    start = threading.Barrier(len(conn_ids))

    def one(conn_id: str) -> int:
        start.wait()
        return api.connect(conn_id, pid)

    with ThreadPoolExecutor(len(conn_ids)) as pool:
        return list(pool.map(one, conn_ids))


def test_a_burst_of_60_spectators_admits_exactly_the_cap(api, atomic_moto):
    api.lobby(2)
    statuses = burst(api, [f"s{i:02d}" for i in range(BURST)])
    spectators = sorted(k for k, p in api.snapshot().conns.items() if p is None)
    assert len(spectators) == connections.MAX_SPECTATORS, (len(spectators), statuses)
    assert statuses.count(200) == connections.MAX_SPECTATORS
    assert set(statuses) == {200, 403}
    # every refused one is gone from the lookup items too; every admitted one is there
    admitted = {f"s{i:02d}" for i, s in enumerate(statuses) if s == 200}
    assert set(spectators) == admitted
    for i in range(BURST):
        assert (api.svc.store.lookup_connection(f"s{i:02d}") is not None) == (f"s{i:02d}" in admitted)


def test_a_spectator_that_leaves_frees_its_place_for_the_next(api, atomic_moto):
    api.lobby(2)
    burst(api, [f"s{i:02d}" for i in range(BURST)])
    inside = sorted(k for k, p in api.snapshot().conns.items() if p is None)
    assert api.connect("late") == 403
    api.disconnect(inside[0])
    assert api.connect("late") == 200
    assert api.connect("later") == 403
    assert len([k for k, p in api.snapshot().conns.items() if p is None]) == connections.MAX_SPECTATORS


def test_a_burst_of_60_sockets_of_one_seat_keeps_at_most_the_seat_cap(api, atomic_moto):
    api.lobby(2)
    statuses = burst(api, [f"x{i:02d}" for i in range(BURST)], pid="p2")
    kept = sorted(k for k, p in api.snapshot().conns.items() if p == "p2")
    assert len(kept) == connections.MAX_SOCKETS_PER_PLAYER, (kept, statuses)
    assert set(statuses) <= {200, 503}  # a socket is never refused for the cap; `busy` may answer
    for i in range(BURST):
        k = f"x{i:02d}"
        assert (api.svc.store.lookup_connection(k) is not None) == (k in kept)
