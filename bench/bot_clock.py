"""The review's clock classifiers over seeded games with bots and people, engine tier, as the
room layer runs a room (features/botplay.py over mafia_engine/bots/loop.py): the room arms a
wake of its own for the second its earliest bot entry asks for (`bots.wake_second`), and the
bots act when that wake is delivered, at the delivery's moment (`bots.deliver`); what a lost
wake or the phase's end leaves lapses at any request (`bots.lapse`: game actions at their own
moments, lines dropped). People chat at times of their own (uniform over the phase, as a
request's time is) and leave the rest to the phase timer.

The wakes are delivered as EventBridge Scheduler does (a one-time `at()` schedule fires at a
random moment inside the minute of its second, possibly before it: docs/architecture.md,
"Timers"; `_delivery`). Two figures per preset, each beside chance (always guessing the
commoner kind):

- `presets`: a chat line whose `at` lies on the phase's public grid (phase start + k * step, step = the
  phase's length / 8 between 1 and 10 s: the old public ticks, which views announced as
  `room.wakeAt`) is called a bot's. With those ticks: 100 % of lines and seats in every preset.
- `late`: a line published more than a second after its `at` is called a bot's. When a bot's
  line carried its drawn moment and waited for the next wake: 98.7 / 99.4 / 96.7 % of lines
  (chance 63.7 / 67.1 / 63.9 %) in classic / city / original.

A seat is called a bot when most of its lines are. `lapsed_lines` counts the bot lines the
phase's end (or a lost wake) dropped, `planned_lines` every bot line planned; `bot_actions`
the bots' game actions applied (not lines), `lapsed_actions` those of them the phase's end
applied at their drawn moments because no wake came in time, by phase kind.

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


def _delivery(r: random.Random, second: int, now: float) -> float:
    """When a wake armed at `now` for `second` is delivered: Scheduler's random moment inside
    that second's minute, never before it was armed (`local.scheduler.delivery_moment`)."""
    minute = second - second % 60
    return r.uniform(max(now, minute), minute + 60) if now < minute + 60 else now


def play(preset: str, seed: int) -> tuple[list[tuple[str, float, float]], set[str], set[float], dict]:
    """One game: every public day line as (sender, at, published), the bot seats, the old
    ticks, and the counts (module docstring); the room's wakes delivered as Scheduler
    does (`_delivery`)."""
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
    counts: dict = {"planned_lines": 0, "lapsed_lines": 0, "bot_actions": 0, "lapsed_actions": {}}

    def acted(applied: list, kind: str, lapsed: bool) -> None:
        for _, _, a in applied:
            if a.get("type") != "chat":
                counts["bot_actions"] += 1
                if lapsed:
                    counts["lapsed_actions"][kind] = counts["lapsed_actions"].get(kind, 0) + 1

    def person_lines() -> list[tuple[float, str]]:
        ends = me.deadline(state) or now + 60.0
        if state["phase"]["kind"] not in ("discussion", "speech", "day", "vote", "defense"):
            return []
        alive = {p["id"] for p in state["players"] if p["alive"]}
        return sorted((r.uniform(now, ends), p) for p in people if p in alive and r.random() < 0.7)

    def lines_of(plan: dict) -> list[list]:
        return [e for e in plan["due"] if e[2].get("type") == "chat" and e[2].get("channel") == "day"]

    def arm(delivered: int | None = None) -> tuple[int, float] | None:
        second = bots.wake_second(stored, now, me.deadline(state), delivered)
        return None if second is None else (second, _delivery(r, second, now))

    counts["planned_lines"] += len(lines_of(stored))
    talk = person_lines()
    wake = arm()
    published: dict[str, float] = {}  # a line's id -> when the table first had it
    for _ in range(4000):
        if state["phase"]["kind"] == "ended":
            break
        ends = me.deadline(state)
        nxt = [x for x in (wake[1] if wake else None, ends, talk[0][0] if talk else None) if x is not None]
        if not nxt:
            break
        now = max(now, min(nxt))
        seq, first = state["seq"], bots.wake_at(stored)
        # every request: what lapsed (the deadline passed, a wake lost two minutes ago)
        cutoff = math.inf if ends is not None and now >= ends else now - 120
        counts["lapsed_lines"] += sum(1 for e in lines_of(stored) if e[0] <= cutoff)
        kind = state["phase"]["kind"]
        state, stored, applied, _ = bots.lapse(state, stored, now, 120, bot_ids, key)
        acted(applied, kind, True)
        delivered = None
        if wake and wake[1] <= now:  # the room's wake is delivered: the entry it was for, now
            delivered, wake = wake[0], None
            if state["seq"] == seq:
                state, stored, applied, _ = bots.deliver(state, stored, now, delivered, bot_ids, key)
                acted(applied, kind, False)
        elif talk and talk[0][0] <= now:
            _, pid = talk.pop(0)
            try:
                state = me.apply(state, {"type": "chat", "player": pid, "channel": "day", "text": "hm"}, now)
            except me.InvalidAction:
                pass
        ends = me.deadline(state)
        if ends is not None and now >= ends and state["phase"]["kind"] != "ended":
            state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)
        if state["seq"] != seq or stored.get("seq") != state["seq"]:
            if stored.get("seq") != state["seq"]:
                stored = bots.plan_room(state, bot_ids, key, now)
            counts["planned_lines"] += len(lines_of(stored))
            announced |= _grid(state, stored["start"])
            talk = person_lines()
        at = bots.wake_at(stored)
        spent = delivered is not None and at is not None and bots.asks(at, me.deadline(state)) <= delivered
        if at is not None and (at != first or spent or wake is None):
            wake = arm(delivered)
        elif at is None:
            wake = None
        for m in state["chat"]:
            published.setdefault(m["id"], now)
    lines = [
        (m["from"], m["at"], published.get(m["id"], m["at"]))
        for m in state["chat"]
        if m["channel"] == "day" and m["from"] in ids
    ]
    return lines, set(bot_ids), announced, counts


def measure(preset: str, games: int, late: bool = False) -> dict:
    right = total = seats_right = seats = 0
    bot_lines = planned = lapsed = actions = 0
    lapsed_actions: dict[str, int] = {}
    for seed in range(1, games + 1):
        lines, bot_ids, announced, counts = play(preset, seed)
        planned += counts["planned_lines"]
        lapsed += counts["lapsed_lines"]
        actions += counts["bot_actions"]
        for kind, k in counts["lapsed_actions"].items():
            lapsed_actions[kind] = lapsed_actions.get(kind, 0) + k
        per: dict[str, list[bool]] = {}
        for sender, at, shown in lines:
            called = shown - at > 1.0 if late else round(at, 3) in announced
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
        "planned_lines": planned,
        "lapsed_lines": lapsed,
        "bot_actions": actions,
        "lapsed_actions": dict(sorted(lapsed_actions.items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    games = 2 if args.quick else 12
    out = {
        "method": "engine-tier rooms (bots act when the room's wake for their entry is delivered, at the "
        "delivery's moment; people chat at uniform times); a line is called a bot's when its `at` lies on the "
        "phase's old public tick grid",
        "presets": {p: measure(p, games) for p in PRESETS},
        "scheduler": "both figures: the wakes delivered as EventBridge Scheduler does (inside the minute of the "
        "second asked for, possibly before it)",
        "late_method": "the same rooms; a line published more than 1 s after its `at` is called a bot's",
        "late": {p: measure(p, games, late=True) for p in PRESETS},
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
