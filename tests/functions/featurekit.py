"""A room feature that lives in the tests alone: proof that a feature is one declaration.

"Bell": the room counts its writes (`room.bell`), every view (each viewer's alike, lobby and
game) carries the fact `room.bell = {viewer, writes, rung}`, the first write arms a Scheduler
delivery `RING_SECONDS` later (phase `BELL_PHASE`, no phase of any game), the pipeline run of
that delivery (or of any request after it) rings the bell, and every write stores a side item
(kind `bell`, owned by the room) in the room's one transaction.

Nothing outside this file and its tests knows it: `register()` adds it to the room's features
(`service.room.featureset`), and the pipeline and the view fold run its hooks.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.features.base import Feature, Step, ViewParts
from service.infra.storage import SideItem
from service.room import featureset

NAME = "bell"
KIND = "bell"  # its side items' family
BELL_PHASE = -7  # its Scheduler deliveries carry this "phase": no game's, never the lobby's (-1)
RING_SECONDS = 300
KEEP_SECONDS = 3600


def _bell(room: dict) -> dict:
    return room.get("bell") or {"writes": 0, "ringAt": None, "armed": False, "rung": False}


def ring_due(c: Any) -> Step:
    """Before the command: the bell rings once its time has come (and the request writes)."""
    bell = _bell(c.room)
    if bell["ringAt"] is None or bell["rung"] or c.now < bell["ringAt"]:
        return Step(c.state)
    c.room["bell"] = {**bell, "rung": True}
    return Step(c.state, writes=True)


def count_write(c: Any, state: Any, present: set[str]) -> None:
    """On every write: one more; the first one sets when the bell rings."""
    bell = _bell(c.room)
    at = bell["ringAt"] if bell["ringAt"] is not None else c.now + RING_SECONDS
    c.room["bell"] = {**bell, "writes": bell["writes"] + 1, "ringAt": at}


def arm(c: Any, state: Any) -> tuple[int, float] | None:
    """The ring's delivery, armed once."""
    bell = _bell(c.room)
    if bell["ringAt"] is None or bell["armed"]:
        return None
    c.room["bell"] = {**bell, "armed": True}
    return BELL_PHASE, bell["ringAt"]


def fact(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """Every view's `room.bell`, naming its own viewer."""
    bell = _bell(room)
    seen = {"viewer": viewer or "*", "writes": bell["writes"], "rung": bell["rung"]}
    return replace(parts, block={**parts.block, "bell": seen})


def items(c: Any, state: Any, wrote: str | None) -> dict:
    """One side item per write of the room, committed with it."""
    n = _bell(c.room)["writes"]
    code = c.room["code"]
    return {"side_items": (SideItem(KIND, code, f"{n:06d}", {"writes": n}, int(c.now + KEEP_SECONDS)),)}


FEATURE = Feature(NAME, before=ring_due, on_write=count_write, view=fact, timer=arm, items=items)


def register() -> Feature:
    return featureset.register(FEATURE)


def unregister() -> None:
    featureset.unregister(NAME)
