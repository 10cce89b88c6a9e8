"""The room layer's bot loop, as pure functions over (state, stored plan).

The only part of the bots that holds a full state: it builds each bot's own view
(``mafia_engine.view``) and hands only that to the policy, then applies what comes back.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import apply, deadline, view
from ..errors import InvalidAction
from .policy import plan, revise


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
# Private times: every entry falls due at the moment its bot drew for it (policy.plan, from the
# room's ``bots`` key, the seat, the phase and a purpose), never on a public grid, and nothing
# announces it: the room layer wakes the room at ``wake_at`` by a timer of its own
# (service/features/botplay.py), so a bot's line lands when it was drawn, as a person's lands
# when it was sent. The night's hidden work falls due at moments every bot of the room draws
# alike, whatever its card (policy.plan), so when the room wakes says nothing about who holds one.


def _planning(state: dict, bot_ids: list[str]) -> bool:
    """Whether the phase gets a plan: not while paused, not in a game without bot seats."""
    return bool(bot_ids) and not state.get("paused")


# Phases in which a dead bot may still act: its last word (original), its "good game" line.
WAKE_DEAD = frozenset({"lastWord", "ended"})


def plan_room(
    state: dict,
    bot_ids: list[str],
    seed: int | str,
    now: float,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> dict:
    """The stored plan of every bot for the current phase, which starts at ``now``:
    ``{"seq", "start", "due": [[at, bot, action]]}`` (JSON-ready). Each bot's entries
    (``policy.plan``) keep the times their bot drew (ms), sorted by time, then seat order
    (a bot's chat lines are drawn apart, so the engine's rate limit holds). Call it at every
    phase change.

    ``lang``: the room's language; ``names``: {player id: display name}. Chat lines are
    final text when planned (in ``lang``, naming players by ``names``)."""
    stored = {"seq": state["seq"], "start": round(now, 3), "due": []}
    if not _planning(state, bot_ids):
        return stored
    due = []
    for order, pid in enumerate(bot_ids):
        for at, a in plan(seat_view(state, pid, names), seed, now, deadline(state), lang):
            due.append((round(at, 3), order, pid, a))
    due.sort(key=lambda e: e[:2])
    stored["due"] = [[at, pid, a] for at, _, pid, a in due]
    return stored


def wake_at(stored: dict | None) -> float | None:
    """When the room must wake for its bots next (the earliest due entry), or None. Private:
    the room layer arms a timer of its own for it and shows it to no one."""
    if not stored or not stored.get("due"):
        return None
    return float(stored["due"][0][0])


def drain(
    state: dict,
    stored: dict | None,
    now: float,
    bot_ids: list[str],
    seed: int | str,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> tuple[dict, dict, list[tuple[float, str, dict]], list[tuple[float, str, dict, str]]]:
    """Apply every stored bot action due at ``now`` or before, in due order, each revised
    from the bot's current view and applied at its own time; re-plan at each phase change (a
    stored plan of another phase, or one stored with the old public ticks, is replaced by a
    fresh one from ``now``).

    Returns (state, stored plan, applied [(at, bot, action)], dropped [(at, bot, action, code)]);
    ``dropped`` holds refusals, which the tests keep at zero. Never applies ``phaseTimeout``:
    the caller does that after draining, then calls ``plan_room``.
    """
    if stored is None or stored.get("seq") != state["seq"] or "step" in stored:
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
    return state, {**stored, "due": due}, applied, dropped
