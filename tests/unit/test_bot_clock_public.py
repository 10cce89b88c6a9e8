"""The bots' public clock says nothing about which seats are bots (docs/architecture.md, "Bots").

`room.wakeAt` is the room's next public tick (mafia_engine/bots/loop.py). It turned null in
the frame where the last living bot died, naming the seat just killed as a bot (3/3 in the
issue's games): the ticks stopped when no bot was alive. The ticks now run while the game has
a bot seat at all, alive or dead, so the clock is the same whoever dies.
"""

from __future__ import annotations

import json

import pytest

import mafia_engine as me
from mafia_engine import bots

PRESETS = ["classic", "city", "original"]


def _game(preset: str) -> dict:
    info = me.presets()[preset]
    n = info["minPlayers"]
    ids = [f"p{i}" for i in range(1, n + 1)]
    state = me.new_game(ids, {"preset": preset}, seed=11, now=100.0)
    # on to the first day's discussion, where a death would be announced
    for _ in range(50):
        if state["phase"]["kind"] not in ("roleReveal", "lobby"):
            break
        state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, me.deadline(state) or 100.0)
    return state


@pytest.mark.parametrize("preset", PRESETS)
def test_wake_at_does_not_turn_null_when_the_last_bot_dies(preset):
    state = _game(preset)
    now = 200.0
    alive = bots.plan_room(state, ["p2"], 7, now)
    dead_state = json.loads(json.dumps(state))
    next(p for p in dead_state["players"] if p["id"] == "p2")["alive"] = False
    dead = bots.plan_room(dead_state, ["p2"], 7, now)
    assert bots.wake_at(alive) is not None
    assert bots.wake_at(dead) == bots.wake_at(alive)
    assert (dead["start"], dead["step"], dead["ticks"]) == (alive["start"], alive["step"], alive["ticks"])
    # a room without bot seats has no ticks (nothing to wake for), whoever is alive
    assert bots.wake_at(bots.plan_room(state, [], 7, now)) is None
