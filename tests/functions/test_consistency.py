"""Racing writers, Gone connections, expired rooms, the chat archive and item size."""

from __future__ import annotations

import json
import math

import pytest

from service.infra import clock, storage
from service.room.rooms import CONNECT_GRACE_SECONDS


@pytest.fixture
def day(api):
    api.start(5)
    api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t)
    api.send("cp1", {"action": "nudge"})
    assert api.state()["phase"]["kind"] == "greeting"
    return api


def day_chat(api):
    return [m for m in api.state()["chat"] if m["channel"] == "day"]


def test_two_racing_writers_both_land_once(day, monkeypatch):
    store = day.svc.store
    real_save = store.save
    raced = {"done": False, "conflicts": 0}

    def save(*args, **kwargs):
        if not raced["done"]:
            raced["done"] = True
            day.send("cp3", {"action": "chat", "channel": "day", "text": "from p3"})  # wins the race
        try:
            return real_save(*args, **kwargs)
        except storage.Conflict:
            raced["conflicts"] += 1
            raise

    monkeypatch.setattr(store, "save", save)
    day.send("cp2", {"action": "chat", "channel": "day", "text": "from p2"})
    texts = [m["text"] for m in day_chat(day)]
    assert raced["conflicts"] == 1
    assert texts.count("from p2") == 1 and texts.count("from p3") == 1
    ids = [m["id"] for m in day.state()["chat"]]
    assert len(ids) == len(set(ids))


def test_persistent_conflicts_give_up_with_busy(day, monkeypatch):
    def save(*args, **kwargs):
        raise storage.Conflict()

    monkeypatch.setattr(day.svc.store, "save", save)
    day.send("cp2", {"action": "chat", "channel": "day", "text": "never", "id": 5})
    assert day.gw.last("cp2", "error")["code"] == "busy"


def test_gone_connections_are_dropped_and_feed_presence(day):
    day.gw.gone.add("cp4")
    day.send("cp2", {"action": "chat", "channel": "day", "text": "anyone?"})
    snap = day.snapshot()
    assert "cp4" not in snap.conns
    assert next(p for p in snap.state["players"] if p["id"] == "p4")["connected"] is False
    assert day.svc.store.lookup_connection("cp4") is None
    assert [p["connected"] for p in day.gw.last("cp1")["view"]["players"]][3] is False


def test_a_connection_dropped_after_a_410_is_closed_too(day):
    # A socket whose $connect returned later than the grace answered 410 yet opened: the room
    # forgets it, and closing it makes its client reconnect now rather than at its next frame.
    day.connect("s1")
    day.clock.advance(CONNECT_GRACE_SECONDS + 1)
    day.gw.gone.add("s1")
    day.send("cp2", {"action": "chat", "channel": "day", "text": "hello"})
    assert "s1" not in day.snapshot().conns and day.gw.closed == ["s1"]
    day.clock.advance(1)  # past the chat rate limit: the next push closes nothing more
    day.send("cp2", {"action": "chat", "channel": "day", "text": "again"})
    assert day.gw.closed == ["s1"]


def test_gone_spectator_is_dropped_without_touching_the_game(day):
    day.connect("s1")
    day.clock.advance(CONNECT_GRACE_SECONDS + 1)
    day.gw.gone.add("s1")
    day.send("cp2", {"action": "chat", "channel": "day", "text": "hello"})
    assert "s1" not in day.snapshot().conns


def test_a_connection_gone_before_its_connect_returned_is_kept(day):
    # API Gateway answers 410 to a post until $connect has returned; a socket that is
    # stored but not yet registered must survive that push and receive the next one.
    day.connect("s1")
    day.gw.gone.add("s1")
    day.send("cp2", {"action": "chat", "channel": "day", "text": "hello"})
    assert "s1" in day.snapshot().conns
    day.gw.gone.discard("s1")
    day.clock.advance(1)  # past the chat rate limit
    day.send("cp2", {"action": "chat", "channel": "day", "text": "again"})
    assert day.gw.last("s1", "view") is not None


@pytest.mark.parametrize("store", ["dynamodb", pytest.param("memory", marks=pytest.mark.memstore)])
def test_a_connection_made_at_a_manual_clocks_instant_is_young_at_that_instant(day, monkeypatch, store):
    # The offline stack's manual clock (browser tests) has rate 0, so the grace is that one
    # instant. The pipeline reads `now` to the millisecond; the connection's time must read
    # alike, or an instant whose fraction rounds up drops every socket whose $connect had
    # not returned when a push reached it: the socket opens, but the room has forgotten it.
    monkeypatch.setattr(clock, "rate", lambda: 0.0)
    day.clock.t = math.floor(day.clock.t) + 1.0006  # rounds up to .001
    day.connect("s1")
    day.gw.gone.add("s1")
    day.send("cp2", {"action": "chat", "channel": "day", "text": "hello"})
    assert "s1" in day.snapshot().conns
    day.clock.advance(1)  # the clock moved on: now a 410 means gone
    day.send("cp3", {"action": "chat", "channel": "day", "text": "again"})
    assert "s1" not in day.snapshot().conns


def test_expired_rooms_read_as_gone(api):
    api.lobby(2)
    api.clock.advance(24 * 3600 + 1)
    assert api.rest("GET", f"/rooms/{api.code}")[0] == 404
    assert api.rest("POST", f"/rooms/{api.code}/players", {"name": "Late"})[0] == 404
    assert api.connect("c9", "p1") == 404
    api.send("cp1", {"action": "sync", "id": 1})
    assert api.gw.last("cp1", "error")["code"] == "room_not_found"


def test_every_write_extends_the_ttl(api):
    api.lobby(2)
    api.clock.advance(20 * 3600)
    api.send("cp2", {"action": "ready"})
    assert int(api.item()["expiresAt"]["N"]) == int(api.clock.t + 24 * 3600)
    api.clock.advance(20 * 3600)
    assert api.rest("GET", f"/rooms/{api.code}")[0] == 200


def test_chat_beyond_the_engine_window_is_archived_in_its_own_items(day):
    for i in range(120):
        day.clock.advance(0.2)  # five players in turn: each within the 0.7 s rate limit
        day.send(f"cp{1 + i % 5}", {"action": "chat", "channel": "day", "text": f"message {i}"})
    assert not any(f["type"] == "error" for _, f in day.gw.sent)
    kept = [m["text"] for m in day_chat(day)]
    archived = [
        m["text"]
        for m in day.svc.store.chat_archive(day.code, 1, day.snapshot().room["archive"]["seq"])
        if m["channel"] == "day"
    ]
    buffered = [m["text"] for m in day.snapshot().room["archive"]["buffers"]["day"]]
    everything = archived + buffered + kept
    assert len(kept) <= 60 and len(archived) >= 25
    assert everything == [f"message {i}" for i in range(120)]
    assert day.snapshot().size < 64 * 1024


def test_views_are_pushed_only_to_connections_whose_view_changed(day):
    day.connect("s1")
    day.gw.clear()
    day.send("cp2", {"action": "sync"})
    assert [c for c, _ in day.gw.sent] == ["cp2"]
    day.gw.clear()
    day.send("cp2", {"action": "chat", "channel": "day", "text": "said in public"})
    assert sorted(c for c, _ in day.gw.sent) == ["cp1", "cp2", "cp3", "cp4", "cp5", "s1"]
    frame = day.gw.last("s1")
    assert frame["version"] == day.snapshot().room["viewSeq"]["*"]  # the spectators' own counter
    assert json.dumps(frame).count("said in public") == 1


def test_a_change_only_some_may_see_reaches_only_them(day):
    state = day.state()
    while state["phase"]["kind"] != "night":
        day.clock.advance(state["phase"]["endsAt"] - day.clock.t)
        day.send("cp1", {"action": "nudge"})
        state = day.state()
    mafia = [p["id"] for p in state["players"] if p["role"] == "mafia" and p["alive"]]
    day.connect("s1")
    day.gw.clear()
    day.send(f"c{mafia[0]}", {"action": "chat", "channel": "mafia", "text": "psst"})
    assert sorted(c for c, _ in day.gw.sent) == sorted(f"c{m}" for m in mafia)
