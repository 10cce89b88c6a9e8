"""Bot seats in the room layer: plan at each phase change, drain due actions lazily.

The policy is the engine's (`mafia_engine.bots`, reading only the bot's own view); this
module only decides when it runs (docs/architecture.md, "Bots", says why and how).
The policy is imported on first use: a room without bots never needs it (a cold start
without it is shorter; docs/operations.md, "Cold starts").
"""

from __future__ import annotations

from typing import Any

from .base import Feature, Step


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


def drain(room: dict, state: dict, now: float) -> tuple[dict, bool]:
    """Apply the bot actions due by `now` (each at the private time its bot drew); returns
    (state, whether room/state changed)."""
    ids = bot_ids(room, state)
    if not ids or room.get("status") != "running":
        return state, False
    before = room.get("botPlan")
    state, plan, applied, _dropped = _bots().drain(
        state, _stored(room, state), now, ids, bot_key(room), room.get("lang", "en"), names(room)
    )
    plan["paused"] = bool(state.get("paused"))
    room["botPlan"] = plan
    return state, bool(applied) or plan != before


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


def seat_bot_due(room: dict) -> float | None:
    """The earliest private moment the room wakes for a bot to take an idle seat (`botAt`,
    drawn by `room/substitutes.py` when the seat opened), or None."""
    vacant = room.get("vacant") or {}
    return min((v["botAt"] for v in vacant.values() if "botAt" in v), default=None)


# ---------------------------------------------------------------- the feature (features/base.py)
def _drain_step(c: Any) -> Step:
    """Before the command: the bot actions due by now (a game only)."""
    if c.state is None:
        return Step(c.state)
    state, changed = drain(c.room, c.state, c.now)
    return Step(state, writes=changed)


def _plan_step(c: Any, state: Any, actor: str | None) -> Step:
    """After the command: plan the phase it ended in, while the game runs."""
    if state is not None and c.room["status"] == "running":
        replan(c.room, state, c.now)
    return Step(state)


def _wake_timer(c: Any, state: Any) -> tuple[int, float, None, bool] | None:
    """The room's private wake for its bots: a timer at the next due entry's second, armed
    when that moment changed (`infra.timers.Timers.arm`, `exact`). A room whose bots have
    nothing left to do (all dead, the game over) arms none."""
    if state is None or c.room["status"] != "running":
        return None
    wake = wake_at(c.room)
    if wake is None or wake == wake_at(c.snap.room):
        return None
    return (state["seq"], wake, None, True)


FEATURE = Feature("bots", before=_drain_step, after=_plan_step, timer=_wake_timer)
