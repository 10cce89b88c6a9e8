"""Room documents saved by earlier releases, brought to this release's shape when read.

The room item's document is `{"room": {...}, "state": engine state | null}` (storage.py).
Both halves carry their version: the engine state its `v` (the engine migrates it:
`mafia_engine.migrate`, layers/engine/mafia_engine/migrations.py), the room data its own `v`
(`ROOM_VERSION`; a room saved before room versions existed, release b208b0a and earlier,
carries none and has version 1's shape). Unlike the engine's, a room step may draw from the
operating system's generator (a fresh secret), never from the clock. A release that changes the room data's shape bumps
`ROOM_VERSION` and appends a step to `STEPS` (version n -> n + 1, on a copy). `Store.load`
runs `upgrade` on every read, so a game in flight during a deploy plays on under the new
handlers, and the next write stores the new shape (tests/functions/test_room_upgrades.py plays
golden room items of the previous release to their end over the handlers).

A document saved by a newer release than this one (a rollback while its games run) is
refused with `state_too_new`, 503, and left as it is: nothing is written in a shape this
code does not know, and the room plays on when the newer handlers are back.

Here and not in room/: `Store.load` (infra) applies it, and imports run down the layers.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

import mafia_engine as me

from .errors import ServiceError

ROOM_VERSION = 3
SECRET_BYTES = 32  # a game's secret, as features/fairness.py draws it (that layer is above this one)
SALT_BYTES = 32  # the salt of its commitment, likewise


def _v1_to_v2(room: dict) -> None:
    """Before 3718119 a room's game secret (`seed`) was a 31-bit integer, few enough that
    trying every one finds the deal from the commitment. A lobby's has served no game yet:
    it gets a fresh 256-bit one (the OS's CSPRNG, as `fairness.new_secret`). A running or
    ended game keeps its own: its deal was made with it and its commitment names it (the
    next `newGame` draws a fresh one)."""
    if room.get("status") == "lobby" and not isinstance(room.get("seed"), str):
        room["seed"] = secrets.token_hex(SECRET_BYTES)


def _v2_to_v3(room: dict) -> None:
    """Since version 3 a lobby publishes a commitment to its secret and takes the phones'
    commitments to values of their own for the deal (`room["deal"]`, as `fairness.new_deal`
    makes it: docs/rules.md, "Randomness"). A lobby saved before gets its salt now and takes
    commitments from its next view on; a running or ended game was dealt already (the next
    `newGame` draws its own)."""
    if room.get("status") == "lobby" and "deal" not in room:
        room["deal"] = {
            "salt": secrets.token_hex(SALT_BYTES),
            "commitments": {},
            "reveals": {},
            "revealUntil": None,
        }


# STEPS[n - 1] takes room data of version n to n + 1 (in place, on a copy `upgrade` made)
STEPS: tuple[Callable[[dict], None], ...] = (_v1_to_v2, _v2_to_v3)
assert len(STEPS) == ROOM_VERSION - 1, "one step per version bump"


def too_new(what: str, v: int, mine: int) -> ServiceError:
    return ServiceError(
        "state_too_new",
        f"this room was saved by a newer release ({what} version {v}; this one reads up to {mine}): "
        "try again in a minute",
        503,
    )


def upgrade(doc: dict) -> dict:
    """The stored document `{"room", "state"}` in this release's shape: `doc` itself when it
    already is (no copy on the common read), else a new document (`doc` is not changed)."""
    room, state = doc["room"], doc.get("state")
    v = room.get("v", 1)
    if v > ROOM_VERSION:
        raise too_new("room", v, ROOM_VERSION)
    if v < ROOM_VERSION or "v" not in room:
        room = dict(room)
        for step in STEPS[v - 1 :]:
            step(room)
        room["v"] = ROOM_VERSION
    if state is not None:
        try:
            state = me.migrate(state)
        except me.InvalidAction as exc:
            if exc.code == "state_too_new":
                raise too_new("state", state.get("v"), me.STATE_VERSION) from None
            raise
    if room is doc["room"] and state is doc.get("state"):
        return doc
    return {**doc, "room": room, "state": state}
