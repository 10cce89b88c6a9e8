"""Bot seats: added by the host, always ready, played by the engine's policy when the room's
own timer wakes it for them (each action at its wake's delivery)."""

from __future__ import annotations

import random

import pytest

from mafia_engine.testing import legal_actions

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def bot_room(api, n_bots: int, preset: str = "classic") -> None:
    api.create("Host", preset=preset)
    api.connect("cp1", "p1")
    for _ in range(n_bots):
        api.send("cp1", {"action": "addBot"})


def test_the_host_adds_bots_that_are_always_ready(api):
    bot_room(api, 2)
    api.join("Bob")
    api.connect("cp4", "p4")
    api.send("cp4", {"action": "addBot", "id": 1})
    assert api.gw.last("cp4", "error")["code"] == "not_host"
    api.send("cp1", {"action": "addBot", "name": "Robo"})
    players = api.gw.last("cp1")["view"]["players"]
    assert [(p["name"], p["bot"], p["ready"]) for p in players] == [
        ("Host", False, False),
        ("Bot 2", True, True),
        ("Bot 3", True, True),
        ("Bob", False, False),
        ("Robo", True, True),
    ]
    api.send("cp1", {"action": "setOptions", "options": {"nightSeconds": 20}})
    players = api.gw.last("cp1")["view"]["players"]
    assert [p["ready"] for p in players] == [False, True, True, False, True]
    assert api.connect("cbot", token="") == 200  # an empty token is a spectator, never a bot seat
    assert api.snapshot().conns["cbot"] is None


def test_bots_play_a_whole_game_with_one_human(api):
    bot_room(api, 5)
    api.send("cp1", {"action": "start"})
    rng = random.Random(5)
    for _ in range(400):
        snap = api.snapshot()
        if snap.room["status"] != "running":
            break
        view = api.gw.last("cp1")["view"]
        state = snap.state
        if rng.random() < 0.3:
            mine = [a for a in legal_actions(state) if a["player"] == "p1" and a["type"] != "chat"]
            if mine:
                action = dict(rng.choice(mine))
                action.pop("player")
                api.send("cp1", {"action": action.pop("type"), **action})
        wake, ends = api.next_wake(), view["phase"]["endsAt"]
        target = min(t for t in (wake, ends) if t is not None)
        api.clock.t = max(api.clock.t, target) + 0.01
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        api.send("cp1", {"action": "nudge", "phase": view["phase"]["seq"]})  # what the client does at the deadline
    snap = api.snapshot()
    assert snap.room["status"] == "ended"
    said = {m["from"] for m in snap.state["chat"] if m["channel"] == "day"}
    assert said & {"p2", "p3", "p4", "p5", "p6"}, "bots talk"
    assert "botPlan" not in snap.room


def test_with_every_wake_lost_the_phase_timer_still_plays_the_bots_ballots_not_their_lines(api):
    """Nobody connected and none of the bots' wakes delivered (only each phase's own timer):
    the phase's end lapses what its bots had planned, their game actions at their own moments
    (the ballots count) and their lines not at all (published that late, a line would name its
    sender: docs/architecture.md, "Bots")."""
    bot_room(api, 4)
    api.send("cp1", {"action": "start"})
    api.disconnect("cp1")
    for _ in range(200):
        state = api.state()
        if state["phase"]["kind"] == "ended":
            break
        api.clock.t = state["phase"]["endsAt"] + 30  # Scheduler: inside the next minute
        api.fire(state["seq"])
    state = api.state()
    voted = [e for e in state["events"] if e.get("kind") == "nomination"]
    assert voted, "bots voted during timer-only days"
    assert not any(m["from"] in {"p2", "p3", "p4", "p5"} for m in state["chat"] if m["channel"] == "day")


def test_wake_at_is_in_every_view_and_a_nudge_before_it_changes_nothing(api):
    bot_room(api, 4)
    api.connect("s1")
    api.send("cp1", {"action": "start"})
    api.send("s1", {"action": "sync"})
    host_view = api.gw.last("cp1")["view"]
    spectator_view = api.gw.last("s1")["view"]
    assert (
        "wakeAt" not in host_view["room"] and "wakeAt" not in spectator_view["room"]
    )  # the bots' moments are private
    version = api.snapshot().version
    api.send("cp1", {"action": "nudge", "phase": host_view["phase"]["seq"]})
    assert api.snapshot().version == version
