"""The bots' clock says nothing about which seats are bots (docs/architecture.md, "Bots").

Bots used to act on public ticks (phase start + k * step) announced as `room.wakeAt`; the
ticks stopped when the last bot died (naming the seat just killed as a bot) and every bot
line sat on one (naming every bot). Now each entry keeps the private moment its bot drew from
the room's bot key, and the room layer wakes the room for it by a timer of its own; a dead
bot plans nothing, so a room whose bots are all dead stops waking (privately: nothing shows).
"""

from __future__ import annotations

import json
import math

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


# ------------------------------------------------ the wake's delivery is the bot's moment
def test_a_wake_whose_minute_runs_past_the_deadline_asks_for_the_minute_before():
    """Scheduler delivers inside the minute of the second asked for: an entry whose minute ends
    after the phase's deadline asks for the last second of the minute before (every moment of
    it comes before the deadline); others ask for their own second. The armed second is never
    one already past, nor the second of the delivery that just fired."""
    minute = 1_800_000_060
    deadline = minute + 30.5
    assert bots.asks(minute + 20.25, deadline) == minute - 1
    assert bots.asks(minute - 20.25, deadline) == minute - 20
    assert bots.asks(minute + 20.25, None) == minute + 21
    assert bots.asks(minute + 20.25, minute + 60) == minute + 21  # the minute ends with the phase
    stored = {"seq": 3, "start": minute - 50.0, "due": [[minute + 20.25, "p2", {"type": "readyEarly"}]]}
    assert bots.wake_second(stored, minute - 50.0, deadline) == minute - 1
    # already in the deadline's minute: the soonest second still to come (it may miss the deadline)
    assert bots.wake_second(stored, minute + 2.5, deadline) == minute + 3
    assert bots.wake_second(stored, minute - 50.0, deadline, delivered=minute - 1) == minute
    assert bots.wake_second({**stored, "due": []}, minute, deadline) is None


def _night(preset: str = "classic") -> tuple[dict, list[str], dict]:
    """The first night of a seeded game, every seat a bot, and the room's plan for it."""
    state = _game(preset)  # the first day's greeting
    state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, state["phase"]["endsAt"])
    assert state["phase"]["kind"] == "night"
    ids = [p["id"] for p in state["players"] if p["alive"]]
    return state, ids, bots.plan_room(state, ids, 7, state["phase"]["endsAt"] - 30.0)


def test_a_delivery_plays_one_line_at_its_own_moment_and_holds_the_next():
    """Two bots' lines asked for one second: the delivery publishes the first at the delivery's
    moment (not the drawn one) and holds the second for the next wake, so no two lines share a
    moment; a line its bot may not send yet (the engine's rate limit) waits as well."""
    state = _game("classic")  # the greeting: every bot greets
    ids = [p["id"] for p in state["players"] if p["alive"]]
    plan = bots.plan_room(state, ids, 7, state["phase"]["endsAt"] - 120.0)
    (_, a, line_a), (_, b, line_b) = plan["due"][:2]
    now = state["phase"]["endsAt"] - 100.0
    plan = {**plan, "due": [[now + 0.2, a, line_a], [now + 0.4, b, line_b]]}
    got, plan2, applied, dropped = bots.deliver(state, plan, now - 3.0, math.ceil(now + 0.4), ids, 7)
    assert dropped == [] and [(at, pid) for at, pid, _ in applied] == [(now - 3.0, a)]
    said = [m for m in got["chat"] if m["channel"] == "day" and m["from"] in (a, b)]
    assert [(m["from"], m["at"]) for m in said] == [(a, now - 3.0)]  # the delivery's moment
    assert [pid for _, pid, _ in plan2["due"]] == [b]  # held for the next wake
    got, plan3, applied, _ = bots.deliver(got, plan2, now + 7.0, math.ceil(now + 0.4) + 1, ids, 7)
    assert [(at, pid) for at, pid, _ in applied] == [(now + 7.0, b)] and plan3["due"] == []
    # the rate limit: b's next line delivered 0.3 s after its last waits (and is not dropped)
    soon = {**plan3, "due": [[now + 7.1, b, {**line_a, "variant": 2}]]}
    held, kept, applied, dropped = bots.deliver(got, soon, now + 7.3, math.ceil(now + 7.1), ids, 7)
    assert applied == [] == dropped and kept["due"] == soon["due"] and held is got


def test_the_nights_hidden_work_comes_with_one_delivery_whatever_the_cards():
    """Every bot draws the night's moments alike: one delivery plays every bot's duty of that
    moment (the mafia's pick, a check, a heal, the others' passes) at the delivery's moment, so
    how often the room wakes by night says nothing about who holds a night role."""
    state, ids, plan = _night()
    moments = sorted({at for at, _, _ in plan["due"]})
    assert all(len([e for e in plan["due"] if e[0] == m]) == len(ids) for m in moments)
    duties = [(pid, a["type"]) for at, pid, a in plan["due"] if at == moments[1] and a["type"] != "pass"]
    assert len(duties) >= 2, plan
    got, kept, applied, _ = bots.deliver(
        state,
        {**plan, "due": [e for e in plan["due"] if e[0] == moments[1]]},
        moments[1] + 20.0,
        math.ceil(moments[1]),
        ids,
        7,
    )
    assert sorted((pid, a["type"]) for _, pid, a in applied) == sorted(duties)
    assert {at for at, _, _ in applied} == {moments[1] + 20.0} and kept["due"] == []


def test_a_delivery_for_a_later_entry_plays_nothing_and_a_stale_plan_is_planned_afresh():
    state, ids, plan = _night()
    first = plan["due"][0][0]
    got, kept, applied, _ = bots.deliver(state, plan, first - 10.0, math.ceil(first) - 5, ids, 7)
    assert applied == [] and kept == plan and got is state
    got, fresh, applied, _ = bots.deliver(
        state, {**plan, "seq": state["seq"] - 1}, first, math.ceil(first), ids, 7
    )
    assert applied == [] and fresh["seq"] == state["seq"] and fresh["start"] == round(first, 3)


def test_at_the_phases_end_what_no_wake_delivered_lapses_duties_at_their_moments_lines_dropped():
    """A request at or after the deadline (the nudge, the phase timer): the phase's entries that
    no wake delivered lapse. Game actions apply at their own moments (a duty, a ballot still
    counts); lines are dropped (published that late, a line would name its sender). Before the
    deadline only entries `late` seconds overdue lapse (a lost delivery)."""
    state, ids, plan = _night()
    ends = state["phase"]["endsAt"]
    lines = [e for e in plan["due"] if e[2]["type"] == "chat"]
    duties = [(at, pid, a["type"]) for at, pid, a in plan["due"] if a["type"] not in ("chat", "pass")]
    assert lines and duties, plan
    got, kept, applied, _ = bots.lapse(state, plan, ends - 1.0, 120, ids, 7)
    assert applied == [] and kept == plan and got is state  # before the deadline: the wakes may still come
    got, kept, applied, _ = bots.lapse(state, plan, ends + 0.2, 120, ids, 7)
    assert sorted((at, pid, a["type"]) for at, pid, a in applied) == sorted(duties)
    assert not [m for m in got["chat"] if m["channel"] != "system" and m["at"] >= plan["start"]]
    late = {**plan, "due": [[e[0] - 200.0, e[1], e[2]] for e in plan["due"]]}  # overdue: lost wakes
    got, kept, applied, _ = bots.lapse(state, late, ends - 1.0, 120, ids, 7)
    assert sorted((at + 200.0, pid, a["type"]) for at, pid, a in applied) == sorted(duties)
