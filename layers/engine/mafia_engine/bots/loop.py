"""The room layer's bot loop, as pure functions over (state, stored plan).

The only part of the bots that holds a full state: it builds each bot's own view
(``mafia_engine.view``) and hands only that to the policy, then applies what comes back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .. import apply, deadline, view
from ..chat import MIN_INTERVAL
from ..errors import InvalidAction
from .policy import plan, revise

MINUTE = 60  # the Scheduler's precision: a wake asked for a second comes inside that second's minute


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
# Private times: every entry has the moment its bot drew for it (policy.plan, from the room's
# ``bots`` key, the seat, the phase and a purpose), never on a public grid, and nothing announces
# it: the room layer arms a wake of its own for the second of the earliest one (``wake_second``,
# service/features/botplay.py), and the bots act when that wake is delivered (``deliver``), at
# the delivery's moment, published at once, as a person's line is published when it is sent.
# The drawn second chooses the minute; where inside it the wake comes is the Scheduler's own
# draw. The night's hidden work falls due at moments every bot of the room draws alike,
# whatever its card (policy.plan), so when the room wakes says nothing about who holds one.


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


def asks(at: float, deadline: float | None = None) -> int:
    """The whole second a wake for an entry drawn at ``at`` asks for: its own second, or, when
    that second's minute would run past the phase's ``deadline``, the last second of the
    minute before (the Scheduler delivers inside the minute asked for, possibly before the
    second: every moment of the minute before comes before the deadline)."""
    second = math.ceil(at - 1e-9)
    minute = second - second % MINUTE
    if deadline is not None and minute + MINUTE > deadline:
        return minute - 1
    return second


def wake_second(
    stored: dict | None, now: float, deadline: float | None = None, delivered: int | None = None
) -> int | None:
    """The whole second to arm the room's next wake for (a schedule of its own), or None: what
    the earliest entry ``asks`` for, never a second already past at ``now`` nor the second of
    the delivery being handled (``delivered``: a new schedule, not the one that just fired)."""
    at = wake_at(stored)
    if at is None:
        return None
    floor = math.floor(now) + 1
    if delivered is not None:
        floor = max(floor, delivered + 1)
    return max(asks(at, deadline), floor)


def deliver(
    state: dict,
    stored: dict | None,
    now: float,
    second: int,
    bot_ids: list[str],
    seed: int | str,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> tuple[dict, dict, list[tuple[float, str, dict]], list[tuple[float, str, dict, str]]]:
    """A wake of the room for ``second`` delivered at ``now`` (the Scheduler's own moment
    inside that second's minute, before or after it). When the earliest stored entry
    ``asks`` for ``second`` or before, it is revised and applied at ``now`` and published at
    once, with the entries drawn for the very same moment (the night's hidden work, drawn
    alike by every bot: one wake whatever the cards), one chat line at most; the others wait
    for the next wake, as a person's actions come one request each. A line its bot may not
    send yet (the engine's rate limit) waits too. A phase change plans the new phase from
    ``now``: its entries wait for wakes of their own. A plan of another phase is replaced by
    a fresh one (nothing of it due yet).

    Returns (state, stored plan, applied [(at, bot, action)], dropped [(at, bot, action, code)])."""
    if stored is None or stored.get("seq") != state["seq"] or "step" in stored:
        return state, plan_room(state, bot_ids, seed, now, lang, names), [], []
    applied: list[tuple[float, str, dict]] = []
    dropped: list[tuple[float, str, dict, str]] = []
    due = list(stored["due"])
    if not due or asks(due[0][0], deadline(state)) > second:
        return state, stored, applied, dropped
    moment = due[0][0]
    held: list[list] = []
    said = False
    while due and due[0][0] == moment:
        entry = due.pop(0)
        _, pid, planned = entry
        if state["phase"]["kind"] == "ended" and planned.get("type") != "chat":
            continue
        if planned.get("type") == "chat" and (said or _too_soon(state, pid, now)):
            held.append(entry)
            continue
        a = revise(seat_view(state, pid, names), seed, planned, now, lang)
        if a is None:
            continue
        seq = state["seq"]
        try:
            state = apply(state, {**a, "player": pid}, now)
        except InvalidAction as e:
            dropped.append((now, pid, a, e.code))
            continue
        applied.append((now, pid, a))
        said = said or a.get("type") == "chat"
        if state["seq"] != seq:  # this action moved the game on: the new phase from here
            return state, plan_room(state, bot_ids, seed, now, lang, names), applied, dropped
    return state, {**stored, "due": held + due}, applied, dropped


def _too_soon(state: dict, pid: str, now: float) -> bool:
    """Whether the engine's rate limit would refuse a line of ``pid`` at ``now``."""
    p = next((p for p in state["players"] if p["id"] == pid), None)
    last = p.get("lastChatAt") if p else None
    return last is not None and now - last < MIN_INTERVAL


# Entries no view ever shows, whose only public trace is the phase they may end: a bot's glance
# at its card (docs/rules.md, "Role reveal": who has seen is not public, not even as a count).
# They lapse at any request once their moment has passed: a person's tap that ends the reveal
# then ends it at that tap, as at a table of people, with nothing of the bots' published.
HIDDEN = frozenset({"seenRole"})


def lapse(
    state: dict,
    stored: dict | None,
    now: float,
    late: float,
    bot_ids: list[str],
    seed: int | str,
    lang: str = "en",
    names: Mapping[str, str] | None = None,
) -> tuple[dict, dict, list[tuple[float, str, dict]], list[tuple[float, str, dict, str]]]:
    """The entries whose wake never came in time, at any request: when the phase's deadline
    has passed (the phase ends now), every entry of it; else those ``late`` seconds overdue (a
    lost delivery), and a ``HIDDEN`` one as soon as its moment has passed (at ``now``, as a
    tap would be). Game actions apply at their own drawn moments, as ``drain`` does (a ballot
    keeps counting); chat lines are dropped (a line published that long after its moment
    would name its sender). Stops at a phase change, which plans the new phase from
    that moment (its entries wait for wakes of their own). Returns what ``drain`` returns."""
    if stored is None or stored.get("seq") != state["seq"] or "step" in stored:
        stored = plan_room(state, bot_ids, seed, now, lang, names)
    ends = deadline(state)
    cutoff = math.inf if ends is not None and now >= ends else now - late
    applied: list[tuple[float, str, dict]] = []
    dropped: list[tuple[float, str, dict, str]] = []
    due = list(stored["due"])
    while due and (due[0][0] <= cutoff or (due[0][0] <= now and due[0][2].get("type") in HIDDEN)):
        drawn, pid, planned = due.pop(0)
        if planned.get("type") == "chat" or state["phase"]["kind"] == "ended":
            continue
        at = drawn if drawn <= cutoff else now  # a hidden entry in time: at this request, as a tap
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
        if state["seq"] != seq:
            return state, plan_room(state, bot_ids, seed, at, lang, names), applied, dropped
    return state, {**stored, "due": due}, applied, dropped


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
