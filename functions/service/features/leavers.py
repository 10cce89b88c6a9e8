"""Leavers' cool-down: a device that left `LEAVES_BEFORE_WAIT` public games mid-game in the
last hour waits before quick play seats it again (docs/rules.md, "Leaving public games").

Kept in the room table, one short-lived side item per leave (`storage.SideItem`, kind
`leaver`): its owner the device digest, its key `<room>#<seat>` (a retried request writes the
same item again), `at` the game time of the leave, expiring an hour later plus the longest
wait; `leaver_wait` reads them back with one Query (`Store.side_items`). Only storage knows
how the item is keyed. The device is the random key the web client keeps (`mafia.deviceKey`,
web/js/session.js), stored only as its hash (`auth.hash_token`); nothing else about the person.
The room functions' table policy (Query, TransactWriteItems' Put) covers both.

A leave is written in the room's write that made it, in the same transaction (the feature's
`items` hook, `FEATURE`: the room and its leaves commit together or not at all): a seat whose
player left a running game (`leave`), or that was handed on for idling
(functions/service/room/afk.py; closing the tab is how most people leave), in a room that
counts (`counts`: a public room). The device is the seat's newest (`devices[-1]`, what its
last connect or join sent).

`leaver_wait(device)` is what quick play asks before seating a device; `refusal(seconds)` is
its answer when the device must wait: `429 leaver_cooldown`, with `retryAfter`.
"""

from __future__ import annotations

import math
from typing import Any

from ..infra import auth, clock
from ..infra.storage import LEAVER_KIND, SideItem, Store
from .base import Feature
from .limits import RateLimited

WINDOW_SECONDS = 3600  # leaves counted: the last hour
LEAVES_BEFORE_WAIT = 2  # the second leave in an hour starts a wait
WAIT_SECONDS = 300  # per leave from the second on: 5 min, then 10, 15, ...
LEAVES_KEPT = 12  # the longest wait: this many leaves' worth (WAIT_SECONDS each)


def counts(room: dict) -> bool:
    """Whether leaving this room counts towards the cool-down: a public room (the host option
    `public`, which quick play's rooms carry; a room made with a link between friends never
    counts)."""
    return bool(room.get("options", {}).get("public"))


def _leaves(store: Store, digest: str, now: float) -> list[float]:
    """The device's leaves in the last hour, oldest first (one Query of its partition)."""
    times = [float(i.data["at"]) for i in store.side_items(LEAVER_KIND, digest, LEAVES_KEPT * 4)]
    return sorted(t for t in times if now - WINDOW_SECONDS < t <= now)


def wait_for(times: list[float], now: float) -> int:
    """Seconds a device with leaves at `times` (the last hour's) waits from `now`: 0 below
    `LEAVES_BEFORE_WAIT`, else `WAIT_SECONDS` per leave from that one on, from the last leave."""
    over = len(times) - LEAVES_BEFORE_WAIT + 1
    if over <= 0:
        return 0
    return max(0, math.ceil(times[-1] + over * WAIT_SECONDS - now))


def leaver_wait(store: Store, device: str | None, now: float | None = None) -> int:
    """Seconds before quick play may seat the device with key `device` again (0: now)."""
    if not device:
        return 0
    now = clock.now() if now is None else now
    return wait_for(_leaves(store, auth.hash_token(device), now), now)


def refusal(seconds: int) -> RateLimited:
    """Quick play's answer to a device that must wait (`429 leaver_cooldown`)."""
    minutes = max(1, math.ceil(seconds / 60))
    return RateLimited(
        "leaver_cooldown",
        f"you left games before they ended: you can play with strangers again in {minutes} min",
        seconds,
    )


def require_no_wait(store: Store, device: str | None, now: float | None = None) -> None:
    """Raise `refusal` if the device must wait (quick play calls this before seating it)."""
    seconds = leaver_wait(store, device, now)
    if seconds > 0:
        raise refusal(seconds)


def mark(digest: str, key: str, now: float) -> SideItem:
    """The item saying that the device with hash `digest` left game seat `key`
    (`<room>#<seat>`) at `now`."""
    return SideItem(
        LEAVER_KIND, digest, key, {"at": float(now)}, int(now + WINDOW_SECONDS + LEAVES_KEPT * WAIT_SECONDS)
    )


def gone(before: dict, after: dict, state: Any) -> list[dict]:
    """The seats of `after` (the room document as written) whose player left the running game
    in this write: `left` newly set, or handed on for idling (newly a bot, or newly open with
    reason `afk`)."""
    if state is None or before.get("status") != "running":
        return []
    old = {p["id"]: p for p in before.get("players", [])}
    vacant_before = before.get("vacant") or {}
    out = []
    for seat in after.get("players", []):
        prev = old.get(seat["id"])
        if prev is None or prev.get("bot"):
            continue
        # a player who left (the host's removal is no leave of theirs)
        newly_left = seat.get("left") and not prev.get("left") and not seat.get("kicked")
        newly_bot = seat.get("bot")
        newly_idle = (after.get("vacant") or {}).get(seat["id"], {}).get("reason") == "afk" and seat[
            "id"
        ] not in vacant_before
        if newly_left or newly_bot or newly_idle:
            out.append(prev)
    return out


def marks(before: dict, after: dict, state: Any, now: float) -> list[SideItem]:
    """The leaves a room's write makes (`before`: the room as read, `after`: as written), each
    under the seat's newest device."""
    if not counts(after):
        return []
    out = []
    for seat in gone(before, after, state):
        devices = seat.get("devices") or []
        if devices:
            out.append(mark(devices[-1], f"{after['code']}#{seat['id']}", now))
    return out


# ---------------------------------------------------------------- the feature (features/base.py)
def _leave_items(c: Any, state: Any, wrote: str | None) -> dict:
    """The leaves this write makes, committed with the room (`WritePlan.side_items`)."""
    return {"side_items": tuple(marks(c.snap.room, c.room, state, c.now))}


FEATURE = Feature("leavers", items=_leave_items)
