"""The store contract: what every `Store` promises the room layer (service/infra/storage.py),
asserted on both stores (`store` is parametrized): the DynamoDB one on moto, and the in-memory
one (service/infra/memstore.py) the room-rule tests run on. The clock is stepped; the moto
table is shared by the session, so every test makes its own keys (`fresh`).
"""

from __future__ import annotations

import inspect
import os
import threading
import uuid

import boto3
import pytest

import mafia_engine as me
from service.infra import migrations, storage
from service.infra.memstore import MemStore
from service.infra.storage import Conflict, ReportRecord, SideItem, WritePlan

# the engine states these tests store: any dict a current release reads (its version, then anything)
STATE_V = me.STATE_VERSION
ROOM_V = migrations.ROOM_VERSION  # and the room documents: this release's shape


@pytest.fixture(params=["moto", "memory"])
def store(request, fake_clock):
    if request.param == "moto":
        request.getfixturevalue("aws")
        return storage.Store(boto3.client("dynamodb"), os.environ["TABLE_NAME"])
    return MemStore()


def test_both_stores_have_the_same_public_methods():
    """The in-memory store answers every method the DynamoDB one does, with the same parameters
    (`state_item`, the DynamoDB item of a room, is the DynamoDB store's own)."""

    def methods(cls: type) -> dict[str, list[str]]:
        return {
            name: list(inspect.signature(fn).parameters)
            for name, fn in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")
        }

    ours = methods(storage.Store)
    del ours["state_item"]
    assert methods(MemStore) == ours


def fresh(prefix: str = "T") -> str:
    """A key no other test uses (the moto table is shared by the session)."""
    return prefix + uuid.uuid4().hex[:10].upper()


def new_room(store, code: str | None = None) -> storage.Snapshot:
    code = code or fresh()
    assert store.create(code, {"code": code, "v": ROOM_V, "status": "lobby", "players": []})
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
    assert (
        store.save(snap, {**snap.room, "status": "running"}, {"v": STATE_V, "x": 1}, plan) == snap.version + 1
    )
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


def test_side_items_commit_with_a_new_room_and_not_with_a_taken_code(store, fake_clock):
    """`create(code, room, side_items)`: the items with the room (a ranked room's creator's seat
    record), none when the code is taken."""
    snap = new_room(store)
    owner = fresh("S")
    exp = int(fake_clock()) + 60
    mine = (SideItem("rseat", owner, "1#NEW", {"room": "NEW"}, exp),)
    assert not store.create(snap.code, {"code": snap.code, "v": ROOM_V}, mine)
    assert store.side_items("rseat", owner, 10) == []
    code = fresh()
    assert store.create(code, {"code": code, "v": ROOM_V}, mine)
    assert store.side_items("rseat", owner, 10) == list(mine) and store.load(code).version == 1


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


def test_side_items_read_newest_first(store, fake_clock):
    snap = new_room(store)
    owner = fresh("G")
    exp = int(fake_clock()) + 60
    items = tuple(SideItem("rgame", owner, f"2026-12#{i}", {"i": i}, exp) for i in range(3))
    store.save(snap, snap.room, None, WritePlan(side_items=items))
    assert [i.data["i"] for i in store.side_items("rgame", owner, 2, newest_first=True)] == [2, 1]


def test_an_owners_side_items_of_a_kind_are_deleted_and_no_others(store, fake_clock):
    snap = new_room(store)
    owner, other = fresh("H"), fresh("H")
    exp = int(fake_clock()) + 60
    ladder = {"lang": "en", "season": "2031-01"}
    items = (
        SideItem("rating", owner, "2031-01#en", {"points": 1100, "games": 1, "ladder": ladder}, exp),
        SideItem("rating", owner, "2031-02#en", {"mu": 1}, exp),
        SideItem("rgame", owner, "a", {}, exp),
        SideItem("rating", other, "2031-01#en", {"mu": 1}, exp),
    )
    store.save(snap, snap.room, None, WritePlan(side_items=items))
    assert store.delete_side_items("rating", owner) == 2
    assert store.side_items("rating", owner, 10) == [] and len(store.side_items("rgame", owner, 10)) == 1
    assert len(store.side_items("rating", other, 10)) == 1
    assert owner not in [r["handle"] for r in store.ladder_page("en", "2031-01", 10, None)[0]]


# ---- ranked play's ladders (storage.ladder_attributes) -----------------------------------------
def test_a_ladder_is_read_most_points_first_one_page_per_query(store, fake_clock):
    snap = new_room(store)
    season = fresh("S")[:12]
    exp = int(fake_clock()) + 600

    def rating(handle: str, pts: int, lang: str = "ko") -> SideItem:
        ladder = {"lang": lang, "season": season}
        return SideItem(
            "rating", handle, f"{season}#{lang}", {"points": pts, "games": 3, "ladder": ladder}, exp
        )

    people = (rating("h1", 1200), rating("h2", 1500), rating("h3", 900), rating("h4", 2000, lang="ru"))
    store.save(snap, snap.room, None, WritePlan(side_items=people))
    rows, last, units = store.ladder_page("ko", season, 2, None)
    assert rows == [
        {"handle": "h2", "points": 1500, "games": 3},
        {"handle": "h1", "points": 1200, "games": 3},
    ]
    assert last is not None and units > 0 and storage.ladder_start_ok("ko", season, last)
    more, last2, _ = store.ladder_page("ko", season, 2, last)
    assert [r["handle"] for r in more] == ["h3"] and last2 is None
    assert [r["handle"] for r in store.ladder_page("ru", season, 10, None)[0]] == ["h4"]
    # a side item off the ladder (a pseudo-player's rating) is in no partition
    store.save(
        store.load(snap.code),
        snap.room,
        None,
        WritePlan(side_items=(SideItem("rating", "x", "k", {"mu": 1}, exp),)),
    )
    assert len(store.ladder_page("ko", season, 10, None)[0]) == 3


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


# ---- rooms: create, load, save ------------------------------------------------------------
def test_a_new_room_loads_as_written(store):
    code = fresh()
    room = {"code": code, "v": ROOM_V, "status": "lobby", "players": [{"id": "p1", "name": "Ann"}]}
    assert store.create(code, room)
    snap = store.load(code)
    assert (snap.code, snap.version, snap.room, snap.state) == (code, 1, room, None)
    assert (
        snap.conns == {}
        and snap.slots == {}
        and snap.size == len(storage.encode({"room": room, "state": None}))
    )
    assert store.load(fresh()) is None


def test_a_live_code_is_not_created_twice_but_an_expired_one_is(store, fake_clock):
    snap = new_room(store)
    assert not store.create(snap.code, {"code": snap.code, "v": ROOM_V, "other": True})
    assert store.load(snap.code).room == snap.room
    fake_clock.advance(storage.TTL_SECONDS + 1)
    assert store.load(snap.code) is None  # past its TTL: gone for reads
    assert store.create(snap.code, {"code": snap.code, "v": ROOM_V, "other": True})
    again = store.load(snap.code)
    assert again.version == 1 and again.room == {"code": snap.code, "v": ROOM_V, "other": True}


def test_save_bumps_the_version_and_a_stale_snapshot_conflicts(store):
    snap = new_room(store)
    assert store.save(snap, {**snap.room, "n": 1}, {"v": STATE_V, "s": 1}) == 2
    with pytest.raises(Conflict):
        store.save(snap, {**snap.room, "n": 2}, {"v": STATE_V, "s": 2})
    now = store.load(snap.code)
    assert (now.version, now.room["n"], now.state) == (2, 1, {"v": STATE_V, "s": 1})
    assert store.save(now, {**now.room, "n": 3}, None) == 3


def test_a_loaded_room_is_a_copy(store):
    snap = new_room(store)
    snap.room["players"].append({"id": "p9"})
    assert store.load(snap.code).room["players"] == []


def test_a_check_only_plan_writes_its_items_but_not_the_room(store):
    snap = new_room(store)
    plan = WritePlan(bump=False, conn_puts={"c1": None})
    assert store.save(snap, {**snap.room, "ignored": True}, {"v": STATE_V, "x": 1}, plan) == snap.version
    now = store.load(snap.code)
    assert now.version == snap.version and "ignored" not in now.room and now.state is None
    assert now.conns == {"c1": None}
    store.save(now, now.room, None)  # the room moves on: a check of the old version fails
    with pytest.raises(Conflict):
        store.save(now, now.room, None, WritePlan(bump=False, conn_puts={"c2": None}))
    assert "c2" not in store.load(snap.code).conns


# ---- connections ---------------------------------------------------------------------------
def test_connections_are_written_and_deleted_with_the_room(store, fake_clock):
    snap = new_room(store)
    c1, c2 = fresh("c"), fresh("c")
    t0 = fake_clock()
    plan = WritePlan(conn_puts={c1: "p1", c2: None}, conn_patches=frozenset({c2}))
    store.save(snap, snap.room, None, plan)
    now = store.load(snap.code)
    assert now.conns == {c1: "p1", c2: None}
    assert now.conn_since == {c1: t0, c2: t0}
    assert now.conn_patches == {c2}
    assert set(now.listeners) == {c2} and now.listeners[c2].startswith("L") and len(now.listeners[c2]) > 16
    assert store.lookup_connection(c1) == snap.code and store.lookup_connection(c2) == snap.code
    fake_clock.advance(5)
    store.save(now, now.room, None, WritePlan(conn_deletes=(c1,), conn_puts={c2: None}))
    later = store.load(snap.code)
    assert later.conns == {c2: None} and later.conn_since[c2] == t0 + 5 and later.conn_patches == set()
    assert later.listeners[c2] != now.listeners[c2]  # drawn again at each put
    assert store.lookup_connection(c1) is None and store.lookup_connection(fresh("c")) is None


def test_connections_past_their_ttl_are_gone(store, fake_clock):
    snap = new_room(store)
    conn = fresh("c")
    store.save(snap, snap.room, None, WritePlan(conn_puts={conn: "p1"}))
    fake_clock.advance(storage.TTL_SECONDS - 10)
    now = store.load(snap.code)  # the room item was written with the connection: both live
    assert now.conns == {conn: "p1"} and store.lookup_connection(conn) == snap.code
    store.save(now, now.room, None)  # the room is written again, the connection is not
    fake_clock.advance(20)
    assert store.load(snap.code).conns == {} and store.lookup_connection(conn) is None


def test_a_voice_offer_mark_is_kept_on_its_connection_until_a_reconnect(store, fake_clock):
    snap = new_room(store)
    conn, other = fresh("c"), fresh("c")
    store.save(snap, snap.room, None, WritePlan(conn_puts={conn: "p1", other: "p2"}))
    assert not store.mark_offer(snap.code, fresh("c"), "p2")  # no such connection
    assert store.mark_offer(snap.code, conn, "p2")
    assert store.mark_offer(snap.code, conn, "p2")  # again: the same mark
    assert store.mark_offer(snap.code, conn, "Labc")
    now = store.load(snap.code)
    assert now.offers == {conn: frozenset({"p2", "Labc"})}
    assert now.version == snap.version + 1  # the room item is not written by a mark
    store.save(now, now.room, None, WritePlan(conn_puts={conn: "p1"}))  # a reconnect: a new item
    assert store.load(snap.code).offers == {}


def test_a_chat_log_mark_passes_once_per_page_read(store, fake_clock):
    snap = new_room(store)
    conn = fresh("c")
    store.save(snap, snap.room, None, WritePlan(conn_puts={conn: "p1"}))
    assert not store.mark_chat_log(snap.code, fresh("c"), 10.0, None)  # no such connection
    assert store.mark_chat_log(snap.code, conn, 10.0, None)
    assert not store.mark_chat_log(snap.code, conn, 11.0, None)  # another page in flight lost
    assert store.load(snap.code).conn_log == {conn: 10.0}
    assert not store.mark_chat_log(snap.code, conn, 12.0, 9.0)
    assert store.mark_chat_log(snap.code, conn, 12.5, 10.0)
    now = store.load(snap.code)
    assert now.conn_log == {conn: 12.5}
    store.save(now, now.room, None, WritePlan(conn_puts={conn: "p1"}))  # a reconnect: a new item
    assert store.load(snap.code).conn_log == {}


# ---- spectator places ----------------------------------------------------------------------
def test_a_place_goes_to_one_of_two_racing_claims(store):
    snap = new_room(store)
    a, b = fresh("s"), fresh("s")
    store.save(snap, snap.room, None, WritePlan(bump=False, conn_puts={a: None}, slot_claims={0: a}))
    with pytest.raises(Conflict):  # the same version read, the place taken since
        store.save(snap, snap.room, None, WritePlan(bump=False, conn_puts={b: None}, slot_claims={0: b}))
    now = store.load(snap.code)
    assert now.slots == {0: a} and now.conns == {a: None}
    store.save(now, now.room, None, WritePlan(bump=False, conn_puts={b: None}, slot_claims={1: b}))
    assert store.load(snap.code).slots == {0: a, 1: b}


def test_a_place_read_as_held_by_a_gone_connection_may_be_taken(store):
    snap = new_room(store)
    a, b, c = fresh("s"), fresh("s"), fresh("s")
    store.save(snap, snap.room, None, WritePlan(bump=False, conn_puts={a: None}, slot_claims={0: a}))
    now = store.load(snap.code)
    store.save(now, now.room, None, WritePlan(bump=False, conn_puts={b: None}, slot_claims={0: b}))
    taken = store.load(snap.code)
    assert taken.slots == {0: b}
    stale = storage.Snapshot(**{**now.__dict__, "slots": {0: "someone-else"}})
    with pytest.raises(Conflict):  # read as held by another than the holder now
        store.save(stale, now.room, None, WritePlan(bump=False, conn_puts={c: None}, slot_claims={0: c}))


def test_a_deleted_connection_frees_its_place_and_a_place_past_its_ttl_is_free(store, fake_clock):
    snap = new_room(store)
    a, b = fresh("s"), fresh("s")
    store.save(snap, snap.room, None, WritePlan(bump=False, conn_puts={a: None}, slot_claims={0: a}))
    now = store.load(snap.code)
    store.save(now, now.room, None, WritePlan(conn_deletes=(a,)))
    now = store.load(snap.code)
    assert now.slots == {} and now.conns == {}
    store.save(now, now.room, None, WritePlan(bump=False, conn_puts={a: None}, slot_claims={3: a}))
    fake_clock.advance(storage.TTL_SECONDS - 5)
    now = store.load(snap.code)
    store.save(now, now.room, None)  # keep the room alive, not the place
    fake_clock.advance(10)
    now = store.load(snap.code)
    assert now.slots == {}
    store.save(now, now.room, None, WritePlan(bump=False, conn_puts={b: None}, slot_claims={3: b}))
    assert store.load(snap.code).slots == {3: b}


def test_concurrent_claims_admit_exactly_the_places(store):
    """Twelve threads race for four places, each retrying on Conflict with a fresh read."""
    snap = new_room(store)
    won: list[str] = []
    lock = threading.Lock()

    def claim(conn: str) -> None:
        for _ in range(50):
            cur = store.load(snap.code)
            free = [s for s in range(4) if s not in cur.slots]
            if not free:
                return
            try:
                store.save(
                    cur,
                    cur.room,
                    None,
                    WritePlan(bump=False, conn_puts={conn: None}, slot_claims={free[0]: conn}),
                )
            except Conflict:
                continue
            with lock:
                won.append(conn)
            return

    conns = [fresh("s") for _ in range(12)]
    threads = [threading.Thread(target=claim, args=(c,)) for c in conns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.load(snap.code)
    assert len(won) == 4 and sorted(final.slots.values()) == sorted(won)
    assert set(final.conns) == set(won)


# ---- chat archive --------------------------------------------------------------------------
def test_chat_items_are_read_by_range_and_newest_first(store):
    snap = new_room(store)
    batches = tuple((seq, [{"id": f"day:{seq}", "text": f"line {seq}"}]) for seq in range(1, 6))
    store.save(snap, snap.room, None, WritePlan(chat_items=batches))
    assert store.chat_archive(snap.code, 2, 4) == [m for s, b in batches if 2 <= s <= 4 for m in b]
    assert store.chat_archive(snap.code, 4, 2) == []
    assert store.chat_items(snap.code, 1, 5, 2) == [batches[4], batches[3]]
    assert store.chat_items(snap.code, 1, 3, 10) == [batches[2], batches[1], batches[0]]
    assert store.chat_items(snap.code, 3, 2, 10) == []


def test_chat_items_of_an_earlier_room_under_the_code_are_not_read(store, fake_clock):
    snap = new_room(store)
    store.save(snap, snap.room, None, WritePlan(chat_items=((1, [{"id": "old"}]), (2, [{"id": "old2"}]))))
    fake_clock.advance(storage.TTL_SECONDS + 1)
    assert store.create(snap.code, {"code": snap.code, "v": ROOM_V, "status": "lobby", "players": []})
    again = store.load(snap.code)
    store.save(again, again.room, None, WritePlan(chat_items=((2, [{"id": "new"}]),)))
    assert store.chat_archive(snap.code, 1, 2) == [{"id": "new"}]
    # a page's Limit counts the earlier room's items it reads
    assert store.chat_items(snap.code, 1, 2, 2) == [(2, [{"id": "new"}])]
    assert store.chat_items(snap.code, 1, 1, 1) == []


# ---- the transaction limit -----------------------------------------------------------------
def test_a_plan_of_exactly_the_limit_commits(store, fake_clock):
    snap = new_room(store)
    owner = fresh("D")
    exp = int(fake_clock()) + 60
    plan = WritePlan(side_items=tuple(leave(owner, f"R#{i:03d}", 1.0, exp) for i in range(99)))
    assert store.save(snap, snap.room, None, plan) == snap.version + 1
    assert len(store.side_items("leaver", owner, 200)) == 99


# ---- budgets -------------------------------------------------------------------------------
def test_a_budget_counts_to_its_limit_then_refuses(store):
    dev = fresh("d")
    assert all(store.spend_budget("k", 600, 1260, [("d", dev, 3)]) for _ in range(3))
    assert not store.spend_budget("k", 600, 1260, [("d", dev, 3)])
    assert store.spend_budget("k", 1200, 1860, [("d", dev, 3)])  # the next window: another count
    assert store.spend_budget("other", 600, 1260, [("d", dev, 3)])  # another kind
    assert store.spend_budget("k", 600, 1260, [])  # nothing to count


def test_a_spent_budget_counts_none_of_the_clients_budgets(store):
    dev, ip = fresh("d"), fresh("i")
    assert store.spend_budget("k", 600, 1260, [("d", dev, 1), ("ip", ip, 5)])
    assert not store.spend_budget("k", 600, 1260, [("d", dev, 1), ("ip", ip, 5)])
    # the address spent one request only: four more fit
    other = fresh("d")
    assert all(
        store.spend_budget("k", 600, 1260, [("d", other + str(i), 1), ("ip", ip, 5)]) for i in range(4)
    )
    assert not store.spend_budget("k", 600, 1260, [("ip", ip, 5)])


def test_concurrent_requests_never_overspend_a_budget(store):
    dev = fresh("d")
    answers: list[bool] = []
    lock = threading.Lock()

    def spend() -> None:
        ok = store.spend_budget("k", 600, 1260, [("d", dev, 5)])
        with lock:
            answers.append(ok)

    threads = [threading.Thread(target=spend) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers.count(True) == 5 and len(answers) == 12


def cancel_next_budget_transactions(store, monkeypatch, n: int, code: str) -> None:
    """The next `n` budget transactions cancelled as DynamoDB cancels one for `code` (another
    transaction on its items, a throttle): on moto, TransactionCanceledException with that
    cancellation reason (moto never raises one itself); in memory, the store's own switch."""
    if isinstance(store, MemStore):
        store.budget_conflicts = n
        return
    client = store.client
    real = client.transact_write_items
    left = [n]

    def cancelled(**kwargs):
        if left[0] <= 0:
            return real(**kwargs)
        left[0] -= 1
        reasons = [{"Code": code, "Message": code} for _ in kwargs["TransactItems"]]
        raise client.exceptions.TransactionCanceledException(
            {
                "Error": {"Code": "TransactionCanceledException", "Message": f"cancelled [{code}]"},
                "CancellationReasons": reasons,
            },
            "TransactWriteItems",
        )

    monkeypatch.setattr(client, "transact_write_items", cancelled)


@pytest.mark.parametrize("code", ["TransactionConflict", "ThrottlingError"])
def test_a_cancelled_budget_transaction_is_busy_not_spent(store, monkeypatch, code):
    """A conflict or a throttle raises `Busy` and counts nothing; the budget is untouched, so
    the next try is admitted; only a spent budget answers False."""
    dev = fresh("d")
    kind = code if isinstance(store, storage.Store) else "TransactionConflict"
    cancel_next_budget_transactions(store, monkeypatch, 1, kind)
    with pytest.raises(storage.Busy):
        store.spend_budget("k", 600, 1260, [("d", dev, 1)])
    assert store.spend_budget("k", 600, 1260, [("d", dev, 1)])  # nothing was counted before
    assert store.spend_budget("k", 600, 1260, [("d", dev, 1)]) is False  # now it is spent


def test_a_spent_budget_is_told_by_its_failed_condition(store):
    """Spent (ConditionalCheckFailed among the reasons) is False, never `Busy`."""
    dev = fresh("d")
    assert store.spend_budget("k", 600, 1260, [("d", dev, 1)])
    assert store.spend_budget("k", 600, 1260, [("d", dev, 1)]) is False


# ---- reports -------------------------------------------------------------------------------
def report(rid: str, room: str, at: float, reporter="p1", reported="p2", day="2027-01-15") -> ReportRecord:
    return ReportRecord(
        rid, day, room, "g1", reporter, reported, "spam", at, int(at) + 7 * 86400, f'{{"id":"{rid}"}}'
    )


def test_a_report_is_stored_once_per_reporter_seat_and_game(store, fake_clock):
    room, day = fresh("R"), "2027-01-15"
    first = report(f"20270115-{fresh('a')}", room, fake_clock(), day=day)
    assert store.put_report(first)
    assert store.report(day, first.id) == first.data
    again = report(f"20270115-{fresh('b')}", room, fake_clock())
    assert not store.put_report(again)
    assert store.report(day, again.id) is None
    other = report(f"20270115-{fresh('c')}", room, fake_clock(), reported="p3")
    assert store.put_report(other)
    assert set(store.reports(day)) >= {first.data, other.data}
    assert store.report("2027-01-14", first.id) is None


def test_reports_past_their_ttl_are_not_read_and_their_mark_no_longer_counts(store, fake_clock):
    room, day = fresh("R"), "2027-02-01"
    first = report(f"20270201-{fresh('a')}", room, fake_clock(), day=day)
    assert store.put_report(first)
    fake_clock.advance(7 * 86400 + 10)
    assert store.report(day, first.id) is None and first.data not in store.reports(day)
    again = report(f"20270201-{fresh('b')}", room, fake_clock(), day=day)
    assert store.put_report(again)
    assert store.report(day, again.id) == again.data


def test_a_day_lists_its_reports_in_id_order_and_a_deleted_one_is_gone(store, fake_clock):
    day = "2027-03-0" + str(1 + len(fresh()) % 9)
    room = fresh("R")
    recs = [
        report(f"20270301-{fresh(str(i))}", room, fake_clock(), reporter=f"p{i}", day=day) for i in range(3)
    ]
    for rec in recs:
        assert store.put_report(rec)
    mine = [d for d in store.reports(day) if d in {r.data for r in recs}]
    assert mine == [r.data for r in sorted(recs, key=lambda r: r.id)]
    store.delete_report(recs[0])
    assert store.report(day, recs[0].id) is None
    assert store.put_report(report(f"20270301-{fresh('x')}", room, fake_clock(), reporter="p0", day=day))


# ---- the public list -----------------------------------------------------------------------
def listed(store, fake_clock, lang: str, preset: str, seats: int, until: float) -> str:
    code = fresh("P")
    room = {
        "code": code,
        "status": "lobby",
        "players": [],
        "listing": {
            "lang": lang,
            "preset": preset,
            "seats": seats,
            "max": 12,
            "since": fake_clock(),
            "until": until,
        },
    }
    assert store.create(code, room)
    return code


def test_the_public_list_pages_live_entries_latest_first_and_never_reads_idle_ones(store, fake_clock):
    """docs/rules.md, "Public rooms": the Query reads only entries whose listing has not lapsed (the rank starts
    with `listUntil`), the latest to lapse first, the fullest first within one second."""
    lang = "x" + fresh()[-6:].lower()  # a partition of this test's own
    now = fake_clock()
    full = listed(store, fake_clock, lang, "classic", 7, now + 90)
    fake_clock.advance(1)
    half = listed(store, fake_clock, lang, "tiny", 4, now + 90)
    fake_clock.advance(1)
    idle = listed(store, fake_clock, lang, "classic", 9, now - 1)
    fake_clock.advance(1)
    older = listed(store, fake_clock, lang, "classic", 4, now + 90)
    later = listed(store, fake_clock, lang, "classic", 1, now + 200)
    private = fresh("P")
    store.create(private, {"code": private, "v": ROOM_V, "status": "lobby", "players": []})
    t = fake_clock()

    entries, last, units = store.list_public("PublicByLang", lang, 2, None, t)
    assert [e["roomCode"] for e in entries] == [later, full] and last is not None and units > 0
    assert entries[1] == {"roomCode": full, "lang": lang, "preset": "classic", "seats": 7, "maxPlayers": 12}
    assert storage.public_start_ok("PublicByLang", lang, last)
    assert not storage.public_start_ok("PublicByLang", lang + "z", last)
    assert not storage.public_start_ok("PublicByPreset", lang, last)
    entries, last, _ = store.list_public("PublicByLang", lang, 2, last, t)
    assert {e["roomCode"] for e in entries} == {half, older}  # the idle one (fullest) is never read
    entries, last, _ = store.list_public("PublicByLang", lang, 2, last, t) if last else ([], None, 0)
    assert entries == [] and last is None
    entries, last, _ = store.list_public("PublicByPreset", f"{lang}#classic", 10, None, t)
    assert [e["roomCode"] for e in entries] == [later, full, older] and last is None
    assert idle in [e["roomCode"] for e in store.list_public("PublicByLang", lang, 10, None, now - 5)[0]]


def test_a_room_written_without_its_listing_leaves_the_list(store, fake_clock):
    lang = "x" + fresh()[-6:].lower()
    code = listed(store, fake_clock, lang, "classic", 3, fake_clock() + 90)
    assert [e["roomCode"] for e in store.list_public("PublicByLang", lang, 10, None, fake_clock())[0]] == [
        code
    ]
    snap = store.load(code)
    room = {k: v for k, v in snap.room.items() if k != "listing"}
    store.save(snap, {**room, "status": "running"}, {"v": STATE_V, "s": 1})
    assert store.list_public("PublicByLang", lang, 10, None, fake_clock())[0] == []


def test_an_earlier_release_room_loads_in_this_release_shape(store):
    """Both stores upgrade on read (infra/migrations.py): a room written by a release before
    rooms carried their version loads stamped with this one's, the stored item unchanged."""
    code = fresh()
    old = {"code": code, "status": "lobby", "players": []}
    assert store.create(code, old)
    snap = store.load(code)
    assert snap.room["v"] == ROOM_V and {k: snap.room[k] for k in old} == old
    assert snap.size == len(storage.encode({"room": old, "state": None}))


# ---- identity: persons, passkeys, challenges, revoked sessions ----------------------------
def test_a_person_is_stored_updated_counted_and_read(store):
    pid = fresh("P") + "abcdefghijkl"
    assert store.person(pid) is None
    assert store.update_person(pid, {"banned": True}) is False  # no such person: nothing made
    assert store.add_casual_game(pid) is False
    assert store.person(pid) is None
    store.put_person({"id": pid, "created": 100})
    assert store.person(pid) == {
        "id": pid,
        "created": 100,
        "casualGames": 0,
        "banned": False,
        "coolDownUntil": 0,
    }
    assert store.add_casual_game(pid) and store.add_casual_game(pid)
    assert store.update_person(pid, {"coolDownUntil": 900, "banned": True})
    assert store.person(pid) == {
        "id": pid,
        "created": 100,
        "casualGames": 2,
        "banned": True,
        "coolDownUntil": 900,
    }
    with pytest.raises(ValueError):
        store.put_person({"id": pid, "email": "x@y"})  # no personal data: unknown fields refused
    with pytest.raises(ValueError):
        store.update_person(pid, {"id": "other"})


def test_delete_person_removes_the_record_its_passkeys_and_everything_under_it(store):
    pid, other = fresh("P") + "abcdefghijkl", fresh("Q") + "abcdefghijkl"
    for who in (pid, other):
        store.put_person({"id": who, "created": 1})
        store.put_credential(who, {"id": "c1" + who, "publicKey": "k1", "signCount": 0})
        store.put_credential(who, {"id": "c2" + who, "publicKey": "k2", "signCount": 3})
    assert [c["id"] for c in store.credentials(pid)] == ["c1" + pid, "c2" + pid]
    assert store.credential(pid, "c2" + pid) == {"id": "c2" + pid, "publicKey": "k2", "signCount": 3}
    store.delete_credential(pid, "c1" + pid)
    assert [c["id"] for c in store.credentials(pid)] == ["c2" + pid]
    snap = new_room(store)  # a finished game's item, written with a room into the person's partition
    played = SideItem(storage.PLAYED_KIND, pid, f"{snap.code}#2", {"at": 1}, 2_000_000_000)
    store.save(snap, snap.room, None, WritePlan(side_items=(played,)))
    assert store.side_items(storage.PLAYED_KIND, pid, 10) == [played]
    assert store.delete_person(pid) == 3
    assert (
        store.person(pid) is None
        and store.credentials(pid) == []
        and store.credential(pid, "c2" + pid) is None
    )
    assert store.side_items(storage.PLAYED_KIND, pid, 10) == []
    assert store.person(other) is not None and len(store.credentials(other)) == 2  # another person untouched


def test_a_challenge_is_taken_once_and_not_past_its_ttl(store, fake_clock):
    cid, late = fresh("C"), fresh("C")
    now = int(fake_clock())
    store.put_challenge(cid, {"challenge": "abc", "kind": "register"}, now + 300)
    store.put_challenge(late, {"challenge": "def"}, now + 10)
    assert store.take_challenge(cid) == {"challenge": "abc", "kind": "register"}
    assert store.take_challenge(cid) is None  # single use
    fake_clock.advance(11)
    assert store.take_challenge(late) is None  # past its TTL (DynamoDB's TTL lags: still refused)
    assert store.take_challenge(fresh("C")) is None


def test_a_revoked_session_stays_revoked_until_it_would_have_lapsed(store, fake_clock):
    sid = fresh("S")
    now = int(fake_clock())
    assert store.session_revoked(sid) is False
    store.revoke_session(sid, now + 60)
    assert store.session_revoked(sid) is True
    fake_clock.advance(61)
    assert store.session_revoked(sid) is False
