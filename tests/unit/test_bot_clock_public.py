"""The bots' clock says nothing about which seats are bots (docs/architecture.md, "Bots").

Bots used to act on public ticks (phase start + k * step) announced as `room.wakeAt`; the
ticks stopped when the last bot died (naming the seat just killed as a bot) and every bot
line sat on one (naming every bot). Now each entry keeps the private moment its bot drew from
the room's bot key, and the room layer wakes the room for it by a timer of its own; a dead
bot plans nothing, so a room whose bots are all dead stops waking (privately: nothing shows).
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
def test_a_dead_bot_plans_no_wake(preset):
    state = _game(preset)
    now = 200.0
    alive = bots.plan_room(state, ["p2"], 7, now)
    dead_state = json.loads(json.dumps(state))
    next(p for p in dead_state["players"] if p["id"] == "p2")["alive"] = False
    dead = bots.plan_room(dead_state, ["p2"], 7, now)
    assert bots.wake_at(alive) is not None
    assert bots.wake_at(dead) is None and dead["due"] == []
    assert bots.wake_at(bots.plan_room(state, [], 7, now)) is None


@pytest.mark.parametrize("preset", PRESETS)
def test_bot_entries_keep_their_drawn_moments_off_any_public_grid(preset):
    """Each entry's time is its bot's own draw (ms), not phase start + k * step for any step
    the phase's public facts give (the old ticks: length / 8 between 1 and 10 s)."""
    state = _game(preset)
    ids = [p["id"] for p in state["players"]]
    start = 200.0
    span = (me.deadline(state) or start + 6.0) - start
    old_step = round(min(10.0, max(1.0, span / 8)), 3)
    times: list[float] = []
    for seed in range(10):
        stored = bots.plan_room(state, ids, seed, start)
        mine = [at for at, _, _ in stored["due"]]
        assert mine == sorted(mine) and bots.wake_at(stored) == mine[0]
        times += mine
    assert len(times) > 20
    on_grid = [t for t in times if abs((t - start) / old_step - round((t - start) / old_step)) < 1e-6]
    assert len(on_grid) <= len(times) // 10, (on_grid, times)
