"""The room layer's bot loop, as pure functions over (state, stored plan).

The only part of the bots that holds a full state: it builds each bot's own view
(``mafia_engine.view``) and hands only that to the policy, then applies what comes back.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InvalidAction
from .policy import plan, revise


def seat_view(state: dict, pid: str, names: Mapping[str, str] | None = None) -> dict:
    """The bot's own view, with the players' display names (room data) where the room gave them,
    so its lines name players as the table sees them, never by their internal ids."""
    from .. import view

    v = view(state, pid)
    if names:
        for p in v.get("players") or ():
            name = names.get(p["id"])
            if name:
                p["name"] = name
    return v


# --- the room layer's loop, as pure functions over (state, stored plan) ---------------------------
def plan_room(
    state: dict,
    bot_ids: list[str],
    seed: int | str,
    now: float,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> dict:
    """The stored plan of every bot for the current phase: ``{"seq", "due": [[at, bot, action]]}``
    (JSON-ready, sorted by ``at``; ties keep seat order). Call it at every phase change.

    ``lang``: the room's language; ``names``: {player id: display name}. Chat lines are
    final text when planned (in ``lang``, naming players by ``names``)."""
    from .. import deadline

    due = []
    for pid in bot_ids:
        for at, a in plan(seat_view(state, pid, names), seed, now, deadline(state), lang):
            due.append([at, pid, a])
    due.sort(key=lambda e: e[0])
    return {"seq": state["seq"], "due": due}


def wake_at(stored: dict | None) -> float | None:
    """When the first stored bot action falls due (``room.wakeAt``), or None."""
    if not stored or not stored.get("due"):
        return None
    return stored["due"][0][0]


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
    from the bot's current view and applied at its own due time; re-plan at each phase change
    (a stored plan of another phase is replaced by a fresh one from ``now``).

    Returns (state, stored plan, applied [(at, bot, action)], dropped [(at, bot, action, code)]);
    ``dropped`` holds refusals, which the tests keep at zero. Never applies ``phaseTimeout``:
    the caller does that after draining, then calls ``plan_room``.
    """
    from .. import apply

    if stored is None or stored.get("seq") != state["seq"]:
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
            due = plan_room(state, bot_ids, seed, at, lang, names)["due"]
    return state, {"seq": state["seq"], "due": due}, applied, dropped
