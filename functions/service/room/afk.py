"""Idle seats (room option `afkLimit`, 0 = off): a seat that misses `afkLimit` required actions
in a row is warned after `afkLimit - 1`, then handed to a bot or opened to a substitute
(option `afkReplace`), never eliminated for it (docs/rules.md, "Idle seats").

**Where the count lives.** In the room document (`room.afk`, seat id -> misses), not in the
engine state: no rulebook has an idle rule (the seeds' only departure rules are city's "leaving
eliminates", a `leave`, and classic's two absent days, both engine rules that stay as they
are), so the count is the room's moderation, like substitutes; the engine never reads the
options. The count is derived from engine facts only: the seat's `private.task` at a phase
change.

**A miss.** The phase changed while the seat's task was a *required* one of its preset
(`REQUIRED`): a vote in the day vote (every preset); city's night duties and its night
confirmation (`sleep`: city's night waits for every living player's confirmation, docs/rules.md
"Untimed play"); original's turn to speak (`nominate`, the speaker's task; "nobody" is a
choice). A seat that performs its required task (the sender of the action that did it: a task
done, or a choice made) starts again from 0; the pipeline names the seat that acted only for
an engine action, so a page's own `nudge`, pings and syncs never reset it. Chat, presence and anything else count for nothing either way. Bots, dead seats
and seats already open to a substitute are not counted.

**Who learns it.** Only the seat itself, in its own view, as `you.afk = {misses, limit}` once
`misses >= limit - 1` (`mark`); the replacement is public as the substitutes' notice "seat N has
a new player" (`room.substituted`), which names no reason.
"""

from __future__ import annotations

from dataclasses import replace as _replace
from typing import Any

import mafia_engine as me

from ..features import aliases
from ..features.base import Feature, Step, ViewParts
from ..protocol.quoting import tidy
from ..protocol.server_frames import ErrorFrame, encode
from . import substitutes
from .change import Context, Effects
from .lifecycle import running

# The tasks whose phase passing by counts as a miss, per preset (docs/rules.md, "Idle seats").
REQUIRED: dict[str, frozenset[str]] = {
    "classic": frozenset({"vote"}),
    "city": frozenset({"vote", "sleep", "mafiaTarget", "investigate", "heal"}),
    "original": frozenset({"vote", "nominate"}),
}
ROOM_KEYS = ("afk", "substituted", "vacant")  # what a step may change in the room document


def limit(state: Any) -> int:
    """The room's `afkLimit` (0: off)."""
    return int((state or {}).get("options", {}).get("afkLimit") or 0) if state else 0


def replace_with(state: Any, room: dict | None = None) -> str:
    """`bot`, or `substitute` when the room asks for it and takes substitutes at all. An
    anonymous game that takes substitutes always opens the seat first (a bot comes at a
    private moment if nobody does): a seat handed to a bot at once, with no open window
    before its notice, would be named a bot by it (docs/rules.md, "Idle seats")."""
    wanted = (state.get("options") or {}).get("afkReplace", "bot")
    if room is not None and aliases.masked(room):
        wanted = "substitute"
    return "substitute" if wanted == "substitute" and substitutes.enabled(state) else "bot"


def _pending(state: Any, pid: str, required: frozenset[str]) -> bool:
    """Whether the phase still asks seat `pid` for a required action: its task is required and
    it has made no choice yet (classic's ballot stays `vote` with its `choice` until the close)."""
    private = (me.view(state, pid) or {}).get("private") or {}
    return private.get("task") in required and private.get("choice") is None


def _counted(room: dict, state: Any) -> list[str]:
    """The seats whose misses count: living, a person's, not open to a substitute."""
    out_of_play = {p["id"] for p in room["players"] if p.get("bot") or p.get("left")} | set(
        room.get("vacant") or {}
    )
    return [p["id"] for p in state["players"] if p["alive"] and p["id"] not in out_of_play]


def _set(room: dict, pid: str, misses: int) -> None:
    counts = room.setdefault("afk", {})
    if misses:
        counts[pid] = misses
    else:
        counts.pop(pid, None)
    if not counts:
        room.pop("afk", None)


def step(c: Context, before: Any, after: Any, actor: str | None = None) -> tuple[Any, Effects]:
    """Count what `before` -> `after` (one request's step) says about each seat: the `actor`
    who performed its required task starts again from 0; on a phase change every other
    counted seat whose task was required misses once. A seat at the limit is replaced (the
    returned state and effects: its sockets told `afk_replaced` and closed)."""
    n = limit(after)
    if not n or before is None or after is None or not running(c.room, after) or before is after:
        return after, Effects()
    required = REQUIRED.get(after.get("preset"), frozenset())
    counted = _counted(c.room, before)
    moved = me.phase_seq(before) != me.phase_seq(after)
    if actor in counted and _pending(before, actor, required):
        if moved or not _pending(after, actor, required):
            _set(c.room, actor, 0)  # the seat did what the phase asked of it
    if not moved:
        return after, Effects()
    effects = Effects()
    for pid in counted:
        if pid == actor or not _pending(before, pid, required):
            continue
        misses = int((c.room.get("afk") or {}).get(pid, 0)) + 1
        _set(c.room, pid, misses)
        if misses >= n and _alive(after, pid):
            after, closed = replace(c, after, pid)
            effects = effects + closed
    return after, effects


def _alive(state: Any, pid: str) -> bool:
    return any(p["id"] == pid and p["alive"] for p in state["players"])


def replace(c: Context, state: Any, pid: str) -> tuple[Any, Effects]:
    """Seat `pid` reached the limit: its token stops working and its sockets close
    (`afk_replaced`); then a bot plays it at once, or (`afkReplace: substitute`, with
    substitutes on) it is open to a substitute for `VACANCY_SECONDS` and a bot takes it if
    nobody does (`substitutes.expire`, `substitutes.bot_takes`)."""
    seat = next(s for s in c.room["players"] if s["id"] == pid)
    _set(c.room, pid, 0)
    if c.room.get("host") == pid:  # the room passes to the next person, as on a leave (never a bot)
        others = [
            p["id"] for p in c.room["players"] if p["id"] != pid and not p.get("left") and not p.get("bot")
        ]
        if others:
            c.room["host"] = others[0]
    substitutes.retire_token(seat)
    conns = tuple(k for k, v in c.snap.conns.items() if v == pid)
    farewell = encode(
        ErrorFrame(
            id=None, code="afk_replaced", message=tidy("you missed too many turns: your seat was handed on")
        )
    )
    closed = Effects(deletes=conns, closes=conns, replies={k: farewell for k in conns})
    if replace_with(state, c.room) == "substitute" and not seat.get("sub"):
        return substitutes.vacate(c, state, pid, "afk"), closed
    return substitutes.bot_takes(c.room, state, pid, c.now), closed


def reset(room: dict) -> None:
    """A new game: nobody has missed anything of it."""
    room.pop("afk", None)


def mark(view: dict, room: dict, state: Any, viewer: str | None) -> dict:
    """`viewer`'s own view with its warning as `you.afk = {misses, limit}` once one more miss
    would hand the seat on (absent for everyone else, and before that)."""
    n = limit(state)
    misses = int((room.get("afk") or {}).get(viewer, 0)) if viewer else 0
    if not n or not misses or misses < n - 1 or not view.get("you"):
        return view
    view["you"] = {**view["you"], "afk": {"misses": misses, "limit": n}}
    return view


# ---------------------------------------------------------------- the feature (features/base.py)
def _passed_step(c: Context) -> Step:
    """Before the command: the phases the bots' ticks and the open seats' ends passed."""
    state, effects = step(c, c.before, c.state)
    return Step(state, effects)


def _acted_step(c: Context, state: Any, actor: str | None) -> Step:
    """After the command: what it did to each seat's count; a count moved or a seat handed on
    (in either step) writes the room."""
    state, effects = step(c, c.state, state, actor)
    moved = any(c.room.get(k) != c.snap.room.get(k) for k in ROOM_KEYS)
    return Step(state, effects, writes=moved)


def _own_fact(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """A game view's `you.afk` (its own seat's warning alone)."""
    if state is None:
        return parts
    return _replace(parts, view=mark(parts.view, room, state, viewer))


FEATURE = Feature("afk", before=_passed_step, after=_acted_step, view=_own_fact)
