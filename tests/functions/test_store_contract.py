"""The store contract: what every `Store` promises the room layer (service/infra/storage.py),
asserted on each store the tests use (`store` is parametrized): the moto-backed DynamoDB one.
"""

from __future__ import annotations

import os
import uuid

import pytest

from service.infra import storage
from service.infra.storage import Conflict, SideItem, WritePlan


@pytest.fixture(params=["moto"])
def store(request, fake_clock):
    if request.param == "moto":
        request.getfixturevalue("aws")
        client = __import__("boto3").client("dynamodb")
        return storage.Store(client, os.environ["TABLE_NAME"])
    raise AssertionError(request.param)


def fresh(prefix: str = "T") -> str:
    """A key no other test uses (the moto table is shared by the session)."""
    return prefix + uuid.uuid4().hex[:10].upper()


def new_room(store, code: str | None = None) -> storage.Snapshot:
    code = code or fresh()
    assert store.create(code, {"code": code, "status": "lobby", "players": []})
    snap = store.load(code)
    assert snap is not None
    return snap


def leave(owner: str, key: str, at: float, expires: int) -> SideItem:
    return SideItem("leaver", owner, key, {"at": at}, expires)


# ---- side items ---------------------------------------------------------------------------
def test_side_items_commit_with_the_room(store, fake_clock):
    snap = new_room(store)
    owner = fresh("D")
    now = fake_clock()
    plan = WritePlan(side_items=(leave(owner, f"{snap.code}#p1", now, int(now) + 600),))
    assert store.save(snap, {**snap.room, "status": "running"}, {"x": 1}, plan) == snap.version + 1
    items = store.side_items("leaver", owner, 10)
    assert items == [SideItem("leaver", owner, f"{snap.code}#p1", {"at": now}, int(now) + 600)]


def test_side_items_of_a_lost_race_are_not_written(store, fake_clock):
    snap = new_room(store)
    store.save(snap, snap.room, None)  # someone else wrote the room since `snap`
    owner = fresh("D")
    plan = WritePlan(side_items=(leave(owner, "R#p1", 1.0, int(fake_clock()) + 600),))
    with pytest.raises(Conflict):
        store.save(snap, snap.room, None, plan)
    assert store.side_items("leaver", owner, 10) == []


def test_side_items_of_other_kinds_keep_their_data(store, fake_clock):
    snap = new_room(store)
    owner = fresh("D")
    exp = int(fake_clock()) + 60
    items = (
        SideItem("rating", owner, "b", {"score": 3, "by": ["x"]}, exp),
        SideItem("rating", owner, "a", {"score": 1}, exp),
        SideItem("watch", owner, "a", {"w": True}, exp),
    )
    store.save(snap, snap.room, None, WritePlan(side_items=items))
    assert store.side_items("rating", owner, 10) == [items[1], items[0]]  # key order
    assert store.side_items("rating", owner, 1) == [items[1]]
    assert store.side_items("watch", owner, 10) == [items[2]]
    assert store.side_items("rating", fresh("D"), 10) == []


def test_side_item_written_again_replaces_it(store, fake_clock):
    owner = fresh("D")
    exp = int(fake_clock()) + 60
    for at in (1.0, 2.5):
        snap = new_room(store)
        store.save(snap, snap.room, None, WritePlan(side_items=(leave(owner, "R#p1", at, exp),)))
    assert [i.data["at"] for i in store.side_items("leaver", owner, 10)] == [2.5]


def test_side_items_past_their_ttl_are_not_returned(store, fake_clock):
    snap = new_room(store)
    owner = fresh("D")
    now = int(fake_clock())
    plan = WritePlan(side_items=(leave(owner, "R#1", 1.0, now + 10), leave(owner, "R#2", 2.0, now + 100)))
    store.save(snap, snap.room, None, plan)
    fake_clock.advance(50)
    assert [i.key for i in store.side_items("leaver", owner, 10)] == ["R#2"]


def test_a_plan_over_the_transaction_limit_writes_nothing(store, fake_clock):
    snap = new_room(store)
    owner = fresh("D")
    exp = int(fake_clock()) + 60
    plan = WritePlan(side_items=tuple(leave(owner, f"R#{i:03d}", 1.0, exp) for i in range(100)))
    with pytest.raises(ValueError):
        store.save(snap, {**snap.room, "status": "running"}, None, plan)
    assert store.side_items("leaver", owner, 200) == []
    assert store.load(snap.code).version == snap.version


def test_leaver_items_keep_the_key_shape_their_policy_names(aws, fake_clock):
    """A leave is stored as features/leavers.py always stored it (template.yaml's policies and
    the items already in the table): pk `LEAVER#<digest>`, sk `L#<room>#<seat>`, `at`, `expiresAt`."""
    store = storage.Store(aws, os.environ["TABLE_NAME"])
    snap = new_room(store)
    owner = fresh("D")
    store.save(snap, snap.room, None, WritePlan(side_items=(leave(owner, "ROOM1#p2", 12.5, 99_999_999_999),)))
    item = aws.get_item(
        TableName=os.environ["TABLE_NAME"], Key={"pk": {"S": f"LEAVER#{owner}"}, "sk": {"S": "L#ROOM1#p2"}}
    )["Item"]
    assert item == {
        "pk": {"S": f"LEAVER#{owner}"},
        "sk": {"S": "L#ROOM1#p2"},
        "at": {"N": "12.5"},
        "expiresAt": {"N": "99999999999"},
    }
