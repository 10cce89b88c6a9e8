"""The unit of work: the one read, one conditional write and one fan-out of every room change.

`UnitOfWork.run(code, change)` loads the room (one Query), runs the life-cycle steps and the
change function over a `Change`, writes it conditionally on the version read, and on a
conflict sleeps a jittered, doubling moment and starts again (at most `MAX_ATTEMPTS`). After
the write it pushes the changed views, closes what the change closed, arms the phase timer
and drops connections that answered 410. docs/architecture.md ("Data", "Fan-out") says why.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import chat_archive, clock, lifecycle, viewdiff
from .connections import ConnectionRooms
from .errors import ServiceError, quote
from .fanout import Gateway, push_all
from .storage import Conflict, Snapshot, Store
from .telemetry import count, logger
from .timers import Timers

MAX_ATTEMPTS = 8
BACKOFF_BASE_SECONDS = 0.01  # full jitter, doubling: racing writers of one room spread out
CONNECT_GRACE_SECONDS = 2.0  # real seconds a new connection is not dropped for a 410


@dataclass
class Change:
    """What a change function produced; the unit of work writes and pushes it."""

    snap: Snapshot
    room: dict
    state: Any  # engine state (its JSON dump) or None in the lobby
    now: float
    write: bool = True
    bump: bool = True
    conn_puts: dict[str, str | None] = field(default_factory=dict)
    conn_patches: set[str] = field(default_factory=set)  # of conn_puts: those that asked for patches
    conn_deletes: list[str] = field(default_factory=list)
    exclude: set[str] = field(default_factory=set)  # connections not to push to
    replies: dict[str, bytes] = field(default_factory=dict)  # direct frames (errors, sync)
    close: list[str] = field(default_factory=list)  # connections to close after the write
    sync_to: str | None = None  # connection that gets its full view whatever changed
    result: Any = None
    before: Any = None  # the engine state as read (for views with no stored digest)
    drained: bool = False  # bot actions were applied before the request's own change
    wrote: str | None = None  # the chat channel the request's own frame wrote to (chat_archive.collect)
    slots: dict[int, str] = field(default_factory=dict)  # spectator places claimed (connections.admit)


ChangeFn = Callable[[Change], None]


class UnitOfWork:
    """Runs change functions against one room with optimistic locking."""

    def __init__(self, store: Store, gateway: Gateway, timers: Timers, rooms: ConnectionRooms) -> None:
        self.store = store
        self.gateway = gateway
        self.timers = timers
        self.rooms = rooms

    def load(self, code: str) -> Snapshot:
        """The room's snapshot, or ServiceError("room_not_found")."""
        snap = self.store.load(code)
        if snap is None:
            raise ServiceError("room_not_found", f"no room {quote(code)}", 404)
        return snap

    def run(self, code: str, fn: ChangeFn) -> Any:
        """Load, apply `fn`, write conditionally (retry on conflict), push; returns `Change.result`."""
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                # A burst of frames to one room (everyone presses ready) would otherwise
                # collide again on every immediate retry and end in `busy`.
                time.sleep(random.uniform(0, BACKOFF_BASE_SECONDS * 2**attempt))
            done, result = self._attempt(code, fn)
            if done:
                return result
            count("Conflicts")
        raise ServiceError("busy", "the room is busy, try again", 503)

    def _attempt(self, code: str, fn: ChangeFn) -> tuple[bool, Any]:
        snap = self.load(code)
        # The stored dump was just decoded and belongs to this request alone, and the engine
        # never changes the state it is given: no defensive copies of the state.
        c = Change(
            snap=snap, room=copy.deepcopy(snap.room), state=snap.state, now=clock.now(), before=snap.state
        )
        lifecycle.drain_bots(c)
        fn(c)
        if c.drained:
            c.write, c.bump = True, True  # the bots' actions are stored and pushed anyway
        lifecycle.plan_bots(c)
        if not c.write:
            if c.sync_to:
                c.replies[c.sync_to] = viewdiff.full_view(c, c.snap.conns)
            if c.replies:
                push_all(self.gateway, c.replies)
            return True, c.result
        conns = {k: v for k, v in snap.conns.items() if k not in c.conn_deletes}
        conns.update(c.conn_puts)
        lifecycle.end_game_if_decided(c)
        lifecycle.track_host_presence(c, conns)
        frames = viewdiff.changed_frames(c, conns)
        arm = lifecycle.timer_to_arm(c)
        chat_items = chat_archive.collect(c.room, snap.state, c.state, c.wrote)
        try:
            version = self.store.save(
                snap,
                c.room,
                c.state,
                bump=c.bump,
                conn_puts=c.conn_puts,
                conn_deletes=c.conn_deletes,
                chat_items=chat_items,
                slot_claims=c.slots,
                conn_patches=c.conn_patches,
            )
        except Conflict:
            return False, None
        self._after_write(code, c, conns, frames, version, arm)
        return True, c.result

    def _after_write(
        self, code: str, c: Change, conns: dict, frames: dict[str, bytes], version: int, arm: tuple | None
    ) -> None:
        for k in c.conn_deletes:
            self.rooms.pop(k, None)
        frames = {k: v for k, v in frames.items() if k not in c.exclude}
        if c.sync_to and c.sync_to not in frames:
            c.replies[c.sync_to] = viewdiff.full_view(c, conns)
        frames.update(c.replies)
        gone = push_all(self.gateway, frames)
        for k in c.close:
            self.gateway.close(k)
        if arm:
            self.timers.arm(code, *arm)
        # A push can reach a connection whose $connect is stored but not yet returned: API
        # Gateway answers 410 until it does. Dropping it then would lose a live socket, so a
        # young connection is kept; $disconnect or a later 410 still cleans up a dead one.
        young = c.now - CONNECT_GRACE_SECONDS * clock.rate()
        gone = [g for g in gone if g in conns and c.snap.conn_since.get(g, 0.0) < young]
        if gone:
            try:
                self.run(code, lifecycle.drop_connections(gone))
            except ServiceError:
                logger.warning("dropping gone connections failed", extra={"room": code})
