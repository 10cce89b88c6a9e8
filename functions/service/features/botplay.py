"""Bot seats in the room layer: plan at each phase change, act at the room's private wakes.

The policy is the engine's (`mafia_engine.bots`, reading only the bot's own view); this
module only decides when it runs (docs/architecture.md, "Bots", says why and how): a bot acts
when the room's wake for its entry is delivered (`delivery`), at the delivery's moment; a
person's request never brings a bot's entry forward (it would publish it beside the person's
own action), it only lapses what a lost delivery or the phase's end left (`BOT_LATE`).
The policy is imported on first use: a room without bots never needs it (a cold start
without it is shorter; docs/operations.md, "Cold starts").
"""

from __future__ import annotations

import contextvars
from typing import Any

from .base import Feature, Step

BOT_LATE = 120  # seconds after its moment an entry whose wake never came lapses at any request

delivery: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar("delivery", default=None)
"""The Scheduler delivery being handled, as (phase seq, second) (`RoomService.timeout`), or None."""


def _bots() -> Any:
    from mafia_engine import bots

    return bots


def bot_ids(room: dict, state: dict | None) -> list[str]:
    """The bot seats that play in this game."""
    if state is None:
        return []
    in_game = {p["id"] for p in state.get("players", [])}
    return [p["id"] for p in room["players"] if p.get("bot") and p["id"] in in_game]


def bot_key(room: dict) -> str:
    """The bots' own key, derived from the game's secret (`mafia_engine.rng.derive`, label
    `bots`): whatever the bots say or do tells nothing about the deal or the aliases."""
    from mafia_engine import rng

    return rng.derive(room["seed"], "bots")


def names(room: dict) -> dict[str, str]:
    """{player id: display name}: bots name players in their lines as the table sees them."""
    from . import aliases  # anonymous games: the bots name seats by their aliases

    return aliases.bot_names(room, {p["id"]: p["name"] for p in room["players"] if p.get("name")})


def _stored(room: dict, state: dict) -> dict | None:
    stored = room.get("botPlan")
    if stored and bool(stored.get("paused")) != bool(state.get("paused")):
        return None  # paused or resumed since the plan was made: plan the phase again
    return stored


def _delivered(state: dict) -> int | None:
    """The second of the delivery being handled when it is this phase's (a wake armed in an
    earlier phase comes too late to be this phase's moment), else None."""
    d = delivery.get()
    return d[1] if d is not None and state is not None and d[0] == state["seq"] else None


def drain(room: dict, state: dict, now: float, delivered: int | None = None) -> tuple[dict, bool]:
    """Before the request's own action: what lapsed (the phase's deadline passed, or a wake
    never came: `bots.lapse`), then, when the request is the delivery of the room's wake for
    second `delivered`, the entry it was for, at `now` (`bots.deliver`). Returns (state,
    whether room/state changed); an entry the delivery held back (a second line for one
    moment, the rate limit) changes the room too, so the next wake is armed."""
    ids = bot_ids(room, state)
    if not ids or room.get("status") != "running":
        return state, False
    bots = _bots()
    before = room.get("botPlan")
    key, lang, nm = bot_key(room), room.get("lang", "en"), names(room)
    state, plan, applied, _dropped = bots.lapse(
        state, _stored(room, state), now, BOT_LATE, ids, key, lang, nm
    )
    held = False
    if delivered is not None and state["seq"] == plan.get("seq") and _delivered(state) == delivered:
        state, plan, more, _dropped = bots.deliver(state, plan, now, delivered, ids, key, lang, nm)
        applied += more
        held = _spent(plan, state, delivered)
    plan["paused"] = bool(state.get("paused"))
    room["botPlan"] = plan
    return state, bool(applied) or held or plan != before


def _spent(plan: dict | None, state: dict, delivered: int | None) -> bool:
    """Whether the plan's earliest entry asked for the delivered second or before (held back
    by the delivery): its schedule has fired, so a new wake must be armed for it."""
    at = _bots().wake_at(plan)
    if at is None or delivered is None:
        return False
    from mafia_engine import deadline

    return _bots().asks(at, deadline(state)) <= delivered


def replan(room: dict, state: Any, now: float) -> None:
    """After the request's own action: plan the new phase if it changed (or paused/resumed)."""
    ids = bot_ids(room, state)
    if not ids:
        return
    if state["phase"]["kind"] == "ended":
        room.pop("botPlan", None)
        return
    stored = _stored(room, state)
    if stored is None or stored.get("seq") != state["seq"]:
        plan = _bots().plan_room(state, ids, bot_key(room), now, room.get("lang", "en"), names(room))
        plan["paused"] = bool(state.get("paused"))
        room["botPlan"] = plan


def wake_at(room: dict | None) -> float | None:
    """When the room must wake for its bots next: the earliest due entry of its plan. Private:
    the server's own timer wakes the room then (`_wake_timer`); no view carries it, so no
    client learns when a bot means to act (docs/architecture.md, "Bots"). An idle seat's
    private moment for a bot to take it (`seat_bot_due`) is one of them."""
    stored = (room or {}).get("botPlan")
    due = [w for w in (_bots().wake_at(stored) if stored else None, seat_bot_due(room or {})) if w is not None]
    return min(due, default=None)


def wake_second(room: dict, state: dict, now: float, delivered: int | None = None) -> int | None:
    """The second the room's next wake asks for: the plan's (`bots.wake_second`: the earliest
    entry's second, or the minute before when its minute runs past the deadline; never a past
    second nor the delivered one), or an idle seat's bot's moment, whichever comes first."""
    from mafia_engine import deadline

    from ..infra.timers import fire_second

    stored = room.get("botPlan")
    plan = _bots().wake_second(stored, now, deadline(state), delivered) if stored else None
    seat = seat_bot_due(room)
    return min(
        (w for w in (plan, fire_second(seat) if seat is not None else None) if w is not None), default=None
    )


def seat_bot_due(room: dict) -> float | None:
    """The earliest private moment the room wakes for a bot to take an idle seat (`botAt`,
    drawn by `room/substitutes.py` when the seat opened), or None."""
    vacant = room.get("vacant") or {}
    return min((v["botAt"] for v in vacant.values() if "botAt" in v), default=None)


# ---------------------------------------------------------------- the feature (features/base.py)
def _drain_step(c: Any) -> Step:
    """Before the command: what lapsed, and the entry a delivered wake was for (a game only)."""
    if c.state is None:
        return Step(c.state)
    state, changed = drain(c.room, c.state, c.now, _delivered(c.state))
    return Step(state, writes=changed)


def _plan_step(c: Any, state: Any, actor: str | None) -> Step:
    """After the command: plan the phase it ended in, while the game runs."""
    if state is not None and c.room["status"] == "running":
        replan(c.room, state, c.now)
    return Step(state)


def _wake_timer(c: Any, state: Any) -> tuple[int, float, None, bool] | None:
    """The room's private wake for its bots: a timer at the second the next entry asks for
    (`wake_second`; `infra.timers.Timers.arm`, `exact`), armed when that entry changed or when
    the delivery being handled held it back (its schedule is spent). A room whose bots have
    nothing left to do (all dead, the game over) arms none."""
    if state is None or c.room["status"] != "running":
        return None
    wake = wake_at(c.room)
    delivered = _delivered(state)
    if wake is None or (wake == wake_at(c.snap.room) and not _spent(c.room.get("botPlan"), state, delivered)):
        return None
    second = wake_second(c.room, state, c.now, delivered)
    return None if second is None else (state["seq"], float(second), None, True)


FEATURE = Feature("bots", before=_drain_step, after=_plan_step, timer=_wake_timer)
