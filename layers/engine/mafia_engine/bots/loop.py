"""The room layer's bot loop, as pure functions over (state, stored plan).

The only part of the bots that holds a full state: it builds each bot's own view
(``mafia_engine.view``) and hands only that to the policy, then applies what comes back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .. import apply, deadline, view
from ..errors import InvalidAction
from .policy import UNTIMED_SPAN, plan, revise


def seat_view(state: dict, pid: str, names: Mapping[str, str] | None = None) -> dict:
    """The bot's own view, with the players' display names (room data) where the room gave them,
    so its lines name players as the table sees them, never by their internal ids."""
    v = view(state, pid)
    if names:
        for p in v.get("players") or ():
            name = names.get(p["id"])
            if name:
                p["name"] = name
    return v


# --- the room layer's loop, as pure functions over (state, stored plan) ---------------------------
# The public ticks: bot actions fall due only at phase start + k * step (k = 1..ticks), and
# views show the next tick as ``room.wakeAt``. Both come from the phase's start and deadline
# and from whether the game has bot seats, alive or dead (all public), never from the plan, so neither when the room
# wakes nor how much work a frame finds says anything about who holds which card.
TICKS = 8  # a phase has at least this many ticks...
TICK_MAX = 10.0  # ...at most this many seconds apart...
TICK_MIN = 1.0  # ...and at least this many (one bot's lines on two ticks keep the chat's rate limit)


def _clock(state: dict, bot_ids: list[str], start: float) -> tuple[float, int]:
    """(step, ticks) of the phase that starts at ``start``: from public facts only (its
    deadline, the pause, whether the game has bot seats). Not whether a bot is alive: the
    ticks stopping when the last bot died named the seat just killed as a bot (docs/architecture.md, "Bots")."""
    if state.get("paused") or not bot_ids:
        return 0.0, 0
    ends = deadline(state)
    span = UNTIMED_SPAN if ends is None else max(0.0, ends - start)
    room = span if ends is None else span - min(0.5, span / 4)  # the plan's last moment (policy.plan)
    if room <= 0:
        return 0.0, 0
    step = min(TICK_MAX, max(TICK_MIN, span / TICKS), room)
    return round(step, 3), int(room / step + 1e-9)


# Phases in which a dead bot may still act: its last word (original), its "good game" line
# (the ticks run in every phase while the game has a bot seat; kept for the policy's readers).
WAKE_DEAD = frozenset({"lastWord", "ended"})


def tick_at(stored: dict, k: int) -> float:
    """The time of tick ``k`` of a stored plan."""
    return round(stored["start"] + k * stored["step"], 3)


def _passed(stored: dict, now: float) -> int:
    """How many of the stored plan's ticks are at or before ``now``."""
    if not stored["ticks"]:
        return 0
    k = max(0, min(stored["ticks"], int((now - stored["start"]) / stored["step"])))
    while k < stored["ticks"] and tick_at(stored, k + 1) <= now:
        k += 1
    while k > 0 and tick_at(stored, k) > now:
        k -= 1
    return k


def plan_room(
    state: dict,
    bot_ids: list[str],
    seed: int | str,
    now: float,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> dict:
    """The stored plan of every bot for the current phase, which starts at ``now``:
    ``{"seq", "start", "step", "ticks", "tick", "due": [[at, bot, action]]}`` (JSON-ready).
    Each bot's entries (``policy.plan``) are moved to the first public tick at or after their
    time (a bot's chat lines on ticks of their own), sorted by tick, then by the planned time,
    then seat order. ``tick``: how many ticks have passed (drained). Call it at every phase change.

    ``lang``: the room's language; ``names``: {player id: display name}. Chat lines are
    final text when planned (in ``lang``, naming players by ``names``)."""
    step, ticks = _clock(state, bot_ids, now)
    stored = {"seq": state["seq"], "start": round(now, 3), "step": step, "ticks": ticks, "tick": 0, "due": []}
    if not ticks:
        return stored
    due = []
    for order, pid in enumerate(bot_ids):
        last_line = 0
        for at, a in plan(seat_view(state, pid, names), seed, now, deadline(state), lang):
            k = min(ticks, max(1, math.ceil((at - now) / step - 1e-9)))
            if a.get("type") == "chat":
                k = max(k, last_line + 1)
                if k > ticks:
                    continue  # no tick left in this phase for another line
                last_line = k
            due.append((k, at, order, pid, a))
    due.sort(key=lambda e: e[:3])
    stored["due"] = [[tick_at(stored, k), pid, a] for k, _, _, pid, a in due]
    return stored


def wake_at(stored: dict | None) -> float | None:
    """The next public tick (``room.wakeAt``), or None when the phase has no tick left."""
    if not stored or "step" not in stored or stored["tick"] >= stored["ticks"]:
        return None
    return tick_at(stored, stored["tick"] + 1)


def drain(
    state: dict,
    stored: dict | None,
    now: float,
    bot_ids: list[str],
    seed: int | str,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> tuple[dict, dict, list[tuple[float, str, dict]], list[tuple[float, str, dict, str]]]:
    """Apply every stored bot action due at ``now`` or before (all of them sit on public
    ticks), in due order, each revised from the bot's current view and applied at its tick;
    re-plan at each phase change (a stored plan of another phase is replaced by a fresh one
    from ``now``), and note the ticks passed.

    Returns (state, stored plan, applied [(at, bot, action)], dropped [(at, bot, action, code)]);
    ``dropped`` holds refusals, which the tests keep at zero. Never applies ``phaseTimeout``:
    the caller does that after draining, then calls ``plan_room``.
    """
    if stored is None or stored.get("seq") != state["seq"] or "step" not in stored:
        stored = plan_room(state, bot_ids, seed, now, lang, names)
    applied: list[tuple[float, str, dict]] = []
    dropped: list[tuple[float, str, dict, str]] = []
    due = list(stored["due"])
    while due and due[0][0] <= now:
        at, pid, planned = due.pop(0)
        if state["phase"]["kind"] == "ended" and planned.get("type") != "chat":
            continue
        a = revise(seat_view(state, pid, names), seed, planned, at, lang)
        if a is None:
            continue
        seq = state["seq"]
        try:
            state = apply(state, {**a, "player": pid}, at)
        except InvalidAction as e:
            dropped.append((at, pid, a, e.code))
            continue
        applied.append((at, pid, a))
        if state["seq"] != seq:  # this action moved the game on: plan the new phase from here
            stored = plan_room(state, bot_ids, seed, at, lang, names)
            due = list(stored["due"])
    stored = {**stored, "due": due}
    stored["tick"] = _passed(stored, now)
    return state, stored, applied, dropped
