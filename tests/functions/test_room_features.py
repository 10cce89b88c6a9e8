"""Room features (functions/service/features/base.py, room/featureset.py): a feature is one
declaration. A feature defined in the tests alone (featurekit.py: a fact in every view, a timer,
a side item) plays over the socket once registered from the test, touching no production file;
a public game's leave commits in the room's one write."""

from __future__ import annotations

import boto3
import featurekit
import pytest
from fnkit import CTX, ws_event

from handlers import ws_connect
from service.features import leavers
from service.features.base import Feature, Step
from service.infra import storage
from service.room import featureset

DEVICE = "device-key-of-a-leaver-0042"


@pytest.fixture
def bell():
    featurekit.register()
    try:
        yield
    finally:
        featurekit.unregister()
    assert all(f.name != featurekit.NAME for f in featureset.active())


def schedules(api) -> list[dict]:
    client = boto3.client("scheduler")
    return client.list_schedules(GroupName=api.svc.timers.group)["Schedules"]


def test_a_feature_registered_in_tests_adds_a_fact_to_every_view_arms_a_timer_and_writes_side_items(
    api, bell
):
    api.create("Host")
    p2 = api.join("Bo")
    api.connect("cs")  # a spectator (its connect writes its connection item, not the room)
    api.connect("cp1", "p1")
    api.connect("cp2", p2)
    api.send("cp1", {"action": "sync"})
    api.send("cs", {"action": "sync"})
    host, spectator = api.gw.last("cp1", "view")["view"], api.gw.last("cs", "view")["view"]
    # every viewer's view carries the fact, each naming its own viewer
    assert host["room"]["bell"]["viewer"] == "p1" and spectator["room"]["bell"]["viewer"] == "*"
    writes = api.snapshot().room["bell"]["writes"]
    assert writes >= 2 and host["room"]["bell"] == {"viewer": "p1", "writes": writes, "rung": False}
    # each write stored a side item in its own transaction, read back through the Store port
    stored = api.svc.store.side_items(featurekit.KIND, api.code, 100)
    assert [i.data["writes"] for i in stored] == list(range(1, writes + 1))
    # the first write armed the ring's Scheduler delivery, once
    ring_at = api.snapshot().room["bell"]["ringAt"]
    mine = [s for s in schedules(api) if s["Name"].startswith(f"mafia-{api.code}-{featurekit.BELL_PHASE}-")]
    assert len(mine) == 1 and ring_at == pytest.approx(api.clock.t, abs=featurekit.RING_SECONDS)
    # the delivery's pipeline run rings it: the next views say so, to everyone
    api.fire(featurekit.BELL_PHASE, room=api.code)
    assert api.snapshot().room["bell"]["rung"] is False  # not due yet: nothing rang
    api.clock.t = ring_at + 1
    api.fire(featurekit.BELL_PHASE, room=api.code)
    assert api.gw.last("cp2", "view")["view"]["room"]["bell"]["rung"] is True
    assert api.gw.last("cs", "view")["view"]["room"]["bell"]["rung"] is True


def test_a_registered_feature_plays_a_game_and_goes_away_with_unregister(api):
    featurekit.register()
    try:
        with pytest.raises(ValueError):
            featurekit.register()  # one feature per name
        api.start(4)
        view = api.gw.last("cp2", "view")["view"]
        assert view["phase"]["kind"] != "lobby" and view["room"]["bell"]["viewer"] == "p2"
    finally:
        featurekit.unregister()
    api.send("cp2", {"action": "sync"})
    assert "bell" not in api.gw.last("cp2", "view")["view"]["room"]
    with pytest.raises(ValueError):
        featureset.unregister("aliases")  # a built-in feature stays


def test_the_built_in_features_stand_in_one_ordered_tuple():
    names = [f.name for f in featureset.FEATURES]
    assert names == [
        "aliases",
        "bots",
        "substitutes",
        "afk",
        "public",
        "reveals",
        "away",
        "displays",
        "chat_archive",
        "leavers",
        "played",
        "ratings",
    ]
    assert featureset.active() == featureset.FEATURES


def test_before_hooks_run_outermost_first_and_the_others_innermost_first(api):
    """The onion (features/base.py): of two registered features the first wraps the second."""
    calls: list[tuple[str, str]] = []

    def feature(name: str) -> Feature:
        def before(c):
            calls.append(("before", name))
            return Step(c.state)

        def after(c, state, actor):
            calls.append(("after", name))
            return Step(state)

        def view(room, state, viewer, parts):
            calls.append(("view", name))
            return parts

        return Feature(name, before=before, after=after, view=view)

    featureset.register(feature("outer"))
    featureset.register(feature("inner"))
    try:
        api.create("Host")
        api.connect("cp1", "p1")
    finally:
        featureset.unregister("inner")
        featureset.unregister("outer")
    for hook, order in (
        ("before", ["outer", "inner"]),
        ("after", ["inner", "outer"]),
        ("view", ["inner", "outer"]),
    ):
        seen = [name for h, name in calls if h == hook]
        assert seen and seen[:2] == order and len(seen) % 2 == 0, (hook, seen)
        assert all(seen[i : i + 2] == order for i in range(0, len(seen), 2)), (hook, seen)


def test_a_leavers_mark_commits_in_the_rooms_one_write(api, monkeypatch):
    """The leave and the room's new version are one TransactWriteItems: nothing is put after
    it, and a write that does not commit stores no leave."""
    api.start(6, preset="city")
    snap = api.snapshot()
    api.svc.store.save(snap, dict(snap.room, options={**snap.room["options"], "public": True}), snap.state)
    query = {"room": api.code, "token": api.tokens["p3"], "device": DEVICE}
    assert ws_connect.handler(ws_event("$connect", "cp3d", query=query), CTX)["statusCode"] == 200
    client, owner = api.svc.store.client, leavers.auth.hash_token(DEVICE)
    real = client.transact_write_items
    puts: list[list[str]] = []

    def watched(**kw):
        puts.append([op["Put"]["Item"]["pk"]["S"] for op in kw["TransactItems"] if "Put" in op])
        return real(**kw)

    def refused(**kw):
        raise AssertionError("an item put outside the room's transaction")

    monkeypatch.setattr(client, "transact_write_items", watched)
    monkeypatch.setattr(client, "put_item", refused)
    api.send("cp3", {"action": "leave"})
    mark = storage.side_key(storage.LEAVER_KIND, owner)[0]
    assert [w for w in puts if mark in w] == [[storage.room_pk(api.code), mark]]
    assert [i.key for i in api.svc.store.side_items(storage.LEAVER_KIND, owner, 10)] == [f"{api.code}#p3"]
