"""The review's clock classifier over seeded games with bots and people: a chat line whose
`at` lies on the phase's public grid (phase start + k * step, step = the phase's length / 8
between 1 and 10 s: the old public ticks, which views announced as `room.wakeAt`) is called
a bot's; a seat is called a bot when most of its lines are. Prints the classifier's accuracy
per preset, beside chance (always guessing the commoner kind).

Engine tier, as the room layer runs a room (mafia_engine/bots/loop.py): the room wakes at
its bots' private moments (`bots.wake_at`, the server's own timer) or when a person's request
comes in; people chat at times of their own (uniform over the phase, as a request's time is)
and leave the rest to the phase timer. Before the private moments: 100 % of lines and seats
in every preset (chance 62-68 %).

The second figure (`late`) models how EventBridge Scheduler delivers the room's wake: a
one-time `at()` schedule fires at a random moment inside the minute of its second (60 s
precision: docs/architecture.md, "Timers"), possibly before it (the room then wakes again a
second on). A bot's line carries its drawn moment but is published only when the room wakes
after it (that delivery or a person's request), a person's when it is sent; a line published
more than a second after its `at` is called a bot's.

    python bench/bot_clock.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

import mafia_engine as me  # noqa: E402
from mafia_engine import bots  # noqa: E402

PRESETS = ("classic", "city", "original")


def _grid(state: dict, start: float, k_max: int = 200) -> set[float]:
    """The phase's old public ticks: start + k * step (its length / 8, between 1 and 10 s)."""
    ends = me.deadline(state)
    span = (ends - start) if ends is not None else 6.0
    step = min(10.0, max(1.0, span / 8))
    return {round(start + k * step, 3) for k in range(1, k_max)}


def _delivery(r: random.Random, wake: float, now: float) -> float:
    """When Scheduler delivers a wake armed for the second at or after `wake`: inside that
    second's minute, never before it was armed (`now`)."""
    second = math.ceil(wake - 1e-9)
    minute = second - second % 60
    return r.uniform(max(now, minute), minute + 60)


def play(
    preset: str, seed: int, scheduler: bool = False
) -> tuple[list[tuple[str, float, float]], set[str], set[float]]:
    """One game: every public day line as (sender, at, published), the bot seats, the ticks
    announced. `scheduler`: the room's wakes are delivered as Scheduler does (`_delivery`)."""
    info = me.presets()[preset]
    n = info["minPlayers"] + 1
    ids = [f"p{i}" for i in range(1, n + 1)]
    r = random.Random(seed)
    bot_ids = sorted(r.sample(ids, n // 2), key=ids.index)
    people = [p for p in ids if p not in bot_ids]
    key = f"{seed:064x}"
    now = 1000.0
    state = me.new_game(ids, {"preset": preset}, seed=key, now=now)
    stored = bots.plan_room(state, bot_ids, key, now)
    announced = _grid(state, now)
    talk: list[tuple[float, str]] = []

    def person_lines() -> list[tuple[float, str]]:
        ends = me.deadline(state) or now + 60.0
        if state["phase"]["kind"] not in ("discussion", "speech", "day", "vote", "defense"):
            return []
        alive = {p["id"] for p in state["players"] if p["alive"]}
        return sorted((r.uniform(now, ends), p) for p in people if p in alive and r.random() < 0.7)

    talk = person_lines()
    delivered: dict[float, float] = {}  # a wake's moment -> when Scheduler delivers it
    published: dict[str, float] = {}  # a line's id -> when the table first had it
    for _ in range(4000):
        if state["phase"]["kind"] == "ended":
            break
        wake, ends = bots.wake_at(stored), me.deadline(state)
        if wake is not None and scheduler:
            if wake not in delivered:
                delivered[wake] = _delivery(r, wake, now)
            while delivered[wake] < wake:  # early: the room wakes again a second on
                delivered[wake] = _delivery(r, math.ceil(delivered[wake] - 1e-9) + 1, delivered[wake])
            wake = delivered[wake]
        nxt = [x for x in (wake, ends, talk[0][0] if talk else None) if x is not None]
        if not nxt:
            break
        now = max(now, min(nxt))
        seq = state["seq"]
        state, stored, _, _ = bots.drain(state, stored, now, bot_ids, key)
        if talk and talk[0][0] <= now:
            _, pid = talk.pop(0)
            try:
                state = me.apply(state, {"type": "chat", "player": pid, "channel": "day", "text": "hm"}, now)
            except me.InvalidAction:
                pass
        ends = me.deadline(state)
        if ends is not None and now >= ends and state["phase"]["kind"] != "ended":
            state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)
        if state["seq"] != seq or stored.get("seq") != state["seq"]:
            stored = bots.plan_room(state, bot_ids, key, now)
            announced |= _grid(state, stored["start"])
            talk = person_lines()
        for m in state["chat"]:
            published.setdefault(m["id"], now)
    lines = [
        (m["from"], m["at"], published.get(m["id"], m["at"]))
        for m in state["chat"]
        if m["channel"] == "day" and m["from"] in ids
    ]
    return lines, set(bot_ids), announced


def measure(preset: str, games: int, scheduler: bool = False) -> dict:
    right = total = seats_right = seats = 0
    bot_lines = 0
    for seed in range(1, games + 1):
        lines, bot_ids, announced = play(preset, seed, scheduler)
        per: dict[str, list[bool]] = {}
        for sender, at, shown in lines:
            called = shown - at > 1.0 if scheduler else round(at, 3) in announced
            per.setdefault(sender, []).append(called)
            right += called == (sender in bot_ids)
            bot_lines += sender in bot_ids
            total += 1
        for sender, calls in per.items():
            seats += 1
            seats_right += (sum(calls) * 2 > len(calls)) == (sender in bot_ids)
    chance = max(bot_lines, total - bot_lines) / total if total else None
    return {
        "games": games,
        "lines": total,
        "bot_lines": bot_lines,
        "line_accuracy": round(right / total, 3) if total else None,
        "line_chance": round(chance, 3) if chance is not None else None,
        "seats": seats,
        "seat_accuracy": round(seats_right / seats, 3) if seats else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    games = 2 if args.quick else 12
    out = {
        "method": "engine-tier rooms (bots drained at their private moments or a person's request; people chat at "
        "uniform times); a line is called a bot's when its `at` lies on the phase's old public tick grid",
        "presets": {p: measure(p, games) for p in PRESETS},
        "late_method": "the same rooms, their wakes delivered as EventBridge Scheduler does (inside the minute of "
        "the second asked for); a line published more than 1 s after its `at` is called a bot's",
        "late": {p: measure(p, games, scheduler=True) for p in PRESETS},
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
