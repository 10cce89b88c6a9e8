"""A screen for the room (a TV or a laptop on HDMI): a *display* connection.

A display is a spectator by rights: it connects holding no seat, so the view gate gives it the
spectator's view, byte for byte (tests/functions/test_display.py). It is admitted by the room's
display key instead of a token: the key is drawn with `secrets` (192 bits) when the host first
asks for it (the `display` frame), kept in the room document only, and sent to the host's
connection alone (`DisplayFrame`); it is in no view, no other frame and no log line. The link
the host shows as a QR code carries it (`?room=CODE&display=KEY`), so nothing is typed on the TV.

Displays do not take the spectators' places (`connections.spectator_place`) but have places of
their own (`DISPLAY_PLACE0` .. + `MAX_DISPLAYS`), claimed by the same conditional write. The
host revokes them all at once (`revoke: true`): the key is drawn again, and every display's
socket is told `display_revoked` and closed.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import zlib
from dataclasses import replace
from typing import Any

from ..features.base import Feature, ViewParts
from ..infra.errors import ServiceError
from ..protocol.server_frames import DisplayFrame, encode
from ..protocol.views import error_frame
from .change import Context, Effects, Outcome

# Screens per room (a TV and a stream's browser source): each gets every public change.
# MAFIA_MAX_DISPLAYS overrides the default (docs/operations.md, "A screen for the room").
MAX_DISPLAYS = int(os.environ.get("MAFIA_MAX_DISPLAYS", "2"))
# The displays' places follow the spectators' far above them (storage.py, `SLOT_PREFIX`).
DISPLAY_PLACE0 = 900
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{32}")  # `new_key`: 24 random bytes, URL-safe


def new_key() -> str:
    """A fresh display key (192 bits), URL-safe."""
    return secrets.token_urlsafe(24)


def key_shaped(key: str) -> bool:
    return KEY_PATTERN.fullmatch(key) is not None


def is_display_place(slot: int) -> bool:
    return DISPLAY_PLACE0 <= slot < DISPLAY_PLACE0 + 100


def connected(c: Context) -> list[str]:
    """The room's display connections (those holding a display place), sorted."""
    return sorted(
        k
        for slot, k in c.snap.slots.items()
        if is_display_place(slot) and k in c.snap.conns and c.snap.conns[k] is None
    )


def count(c: Context, joining: str | None = None, leaving: tuple[str, ...] = ()) -> int:
    """Stores and returns the room's public `screens` fact (views' `room.screens`): how many
    displays are connected once `joining` has come and `leaving` have gone. It is written
    only when a display connects or leaves, so a player's phone learns a screen is in the room."""
    held = set(connected(c)) - set(leaving)
    if joining is not None:
        held.add(joining)
    c.room["screens"] = len(held)
    return len(held)


def generation(room: dict) -> int:
    """How many times the host revoked the room's screens (0 in rooms stored before it was
    counted). A `display` frame carries the count its key belongs to, and every view the
    room's (`room.displayGen`), so a host's page knows an older answer from a newer one (two
    answers may arrive out of order) and that another of the host's devices revoked."""
    return int(room.get("displayGen") or 0)


def check_key(room: dict, key: str) -> None:
    """ServiceError `bad_display_key` unless `key` is the room's current display key."""
    held = room.get("displayKey")
    if not held or not hmac.compare_digest(held.encode(), key.encode()):
        raise ServiceError(
            "bad_display_key", "this screen link is not valid (the host may have revoked it)", 403
        )


def display_place(c: Context, conn_id: str) -> int:
    """The free display place a new display claims, or ServiceError `too_many_displays`."""
    held = {slot for slot, k in c.snap.slots.items() if is_display_place(slot) and k in c.snap.conns}
    free = [DISPLAY_PLACE0 + i for i in range(MAX_DISPLAYS) if DISPLAY_PLACE0 + i not in held]
    if not free:
        raise ServiceError("too_many_displays", f"this room already has {MAX_DISPLAYS} screens", 403)
    return free[zlib.crc32(conn_id.encode()) % len(free)]


def answer(c: Context, conn_id: str, frame_id, revoke: bool, narrator: bool | None) -> Outcome:
    """The host's `display` frame: the key (drawn on first use, drawn again with `revoke`,
    which also closes every display), and the narrator switch (`narrator`, public: the
    views' `room.narrator`). Answered with a `display` frame to the host's connection only."""
    room = c.room
    changed = False
    effects = Effects()
    if revoke or not room.get("displayKey"):
        room["displayKey"] = new_key()
        changed = True
    if revoke:
        room["displayGen"] = generation(room) + 1
        gone = tuple(connected(c))
        farewell = error_frame(None, "display_revoked", "the host stopped showing the room on this screen")
        effects = Effects(deletes=gone, closes=gone, replies={k: farewell for k in gone})
        count(c, leaving=gone)
    if narrator is not None and bool(room.get("narrator")) != narrator:
        room["narrator"] = narrator
        changed = True
    screens = 0 if revoke else len(connected(c))
    reply = encode(
        DisplayFrame(
            id=frame_id,
            room=room["code"],
            key=room["displayKey"],
            gen=generation(room),
            screens=screens,
            narrator=bool(room.get("narrator")),
        )
    )
    effects = effects + Effects(last={conn_id: reply})
    return c.changed(effects=effects) if changed else c.unchanged(effects)


# ---------------------------------------------------------------- the feature (features/base.py)
def _screen_facts(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """Every view's `room.narrator` (the host's switch for the screens' narrator),
    `room.screens` (displays connected now, `count`) and `room.displayGen` (the host's revokes,
    `generation`): public, the same for everyone."""
    facts = {
        "narrator": bool(room.get("narrator")),
        "screens": int(room.get("screens") or 0),
        "displayGen": generation(room),
    }
    return replace(parts, block={**parts.block, **facts})


FEATURE = Feature("displays", view=_screen_facts)
