"""The request pipeline: every room change, read top to bottom in `Pipeline.run`.

load (one Query) → the features' `before` hooks (featureset.py: the bots' due actions, the open
seats' ends, the idle seats' counts, a lobby's countdown) → who may act (a client frame's
sender) → the command (an `Outcome`: new engine state, what to write, effects) → the features'
`after` hooks (the idle seats' counts, the bots' plan) → the life-cycle steps and the features'
`on_write` hooks → one conditional write with the features' items (the chat archive's, a public
game's leaves), retried on a conflict with jittered, doubling back-off, at most `MAX_ATTEMPTS` →
the effects: pushes, closes, the phase timer and the features' timers, the clean-up of
connections that answered 410. No feature is named here: docs/architecture.md ("Request path",
"Room features", "Data") says why.
"""

from __future__ import annotations

import copy
import marshal
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..infra import clock
from ..infra.errors import ServiceError, quote
from ..infra.fanout import Gateway, push_all
from ..infra.storage import Conflict, Snapshot, Store
from ..infra.telemetry import count, logger
from ..infra.timers import Timers
from . import access, connections, featureset, lifecycle, viewframes
from .change import NO_EFFECTS, ChangeFn, Context, Effects, Outcome, Ports, Request, Write
from .connections import ConnectionRooms

MAX_ATTEMPTS = 8
BACKOFF_BASE_SECONDS = 0.01  # full jitter, doubling: racing writers of one room spread out

Command = Callable[[Context, Request], Outcome]


def own_copy(room: dict) -> dict:
    """The attempt's own deep copy of the stored room document (plain data as `storage.decode`
    read it: dicts, lists, strings, numbers, flags, nulls): written and read back by `marshal`,
    in C, which rebuilds exactly those types (True, 1 and 1.0 each as itself, a float to the
    bit) about five times faster than `copy.deepcopy` walks them in Python (docs/operations.md,
    "Handler CPU and latency"); never kept, never read back from anywhere else.
    `copy.deepcopy` for what `marshal` refuses (an object of any other class)."""
    try:
        return marshal.loads(marshal.dumps(room))
    except ValueError:
        return copy.deepcopy(room)


class Pipeline:
    """Runs commands against one room with optimistic locking."""

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

    def frame(self, code: str, conn_id: str, frame: Any, command: Command, addr: str = "") -> Any:
        """Run `command` for a client frame sent on `conn_id` (its sender checked first) from
        the address whose digest is `addr` (`public.address_digest`, "" unknown)."""
        if frame.asks_gateway:
            # the host's sockets may have vanished without $disconnect: ask API Gateway first
            # (that alone: the features' due steps wait for the frame's own run, so a frame
            # refused there leaves the room as it was)
            self.run(code, connections.check_host(self.gateway), features_first=False)
        return self.run(code, command, Request(conn_id, frame, Ports(self.store, self.gateway), addr=addr))

    def run(
        self, code: str, command: ChangeFn | Command, request: Request | None = None, *, features_first: bool = True
    ) -> Any:
        """load → command → outcome + effects → conditional write → effects; returns the
        outcome's `result`. `request` is a client frame's (then `command` takes it, with its
        sender checked by `access.actor`); without one, `command` is a server-side change.
        `features_first=False`: without the features' `before` hooks (a check made ahead of a
        frame's own run, which runs them)."""
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                # A burst of frames to one room (everyone presses ready) would otherwise
                # collide again on every immediate retry and end in `busy`.
                time.sleep(random.uniform(0, BACKOFF_BASE_SECONDS * 2**attempt))
            # load: the stored dump was just decoded and belongs to this attempt alone, and
            # the engine never changes the state it is given: only the room document is copied
            snap = self.load(code)
            room = own_copy(snap.room)
            # the features before the command (featureset.py): the bots' due actions, the open
            # seats' ends, the idle seats' counts of what they passed, a lobby's countdown;
            # `now` to the millisecond, as the bots' drawn moments are (a line's `at` and a
            # phase's start read alike whoever caused them: features/botplay.py)
            now = round(clock.now(), 3)
            c = Context(snap, room, snap.state, now)
            c, lead, trail, forced = featureset.before(c) if features_first else (c, NO_EFFECTS, NO_EFFECTS, False)
            # command: who may act, then what it decides (ServiceError: nothing is written)
            actor = None
            try:
                if request is None:
                    out = command(c)
                else:
                    actor = access.actor(c, request.conn_id, request.frame)
                    out = command(c, replace(request, actor=actor))
            except ServiceError as exc:
                raise featureset.refuse(room, exc) from None  # an anonymous game's errors: the one gate
            # the features after it (the idle seats' counts, the bots' plan), innermost first;
            # only a seat's own game action makes it the one that acted (a nudge, a ping, a sync
            # are a page's automatic frames: docs/rules.md, "Idle seats")
            acted = actor if request is not None and request.frame.route == "engine" else None
            state, after, moved = featureset.after(c, out.state, acted)
            out = replace(out, state=state)
            effects = lead + out.effects + trail + after
            # a feature's own change (a bot's action, a count moved) is stored and pushed anyway
            write = Write.ROOM if forced or moved else out.write
            writes = write is not Write.NOTHING
            conns = snap.conns
            if writes:  # the room to write: its end, the host's presence, the features' last word
                conns = {k: v for k, v in conns.items() if k not in effects.deletes} | dict(effects.puts)
                lifecycle.end_game_if_decided(room, state, c.now)
                lifecycle.track_host_presence(room, conns, c.now)
                featureset.on_write(c, state, {p for p in conns.values() if p})
            # every view or patch frame of this change: viewframes.py, where a connection's frame is made
            frames = viewframes.frames_for(c, state, conns, effects.full_view, write=writes)
            if not writes:
                self._reply(frames, effects)
                return out.result
            arms = [a for a in (lifecycle.timer_to_arm(room, state), *featureset.timers(c, state)) if a]
            plan = effects.write_plan(bump=write is Write.ROOM, **featureset.items(c, state, out.wrote))
            try:
                self.store.save(snap, room, state, plan)
            except Conflict:
                count("Conflicts")
                continue
            # effects: pushes, closes, the timers, connections gone
            self._after_write(code, c, conns, frames, effects, arms)
            return out.result
        raise ServiceError("busy", "the room is busy, try again", 503)

    def _reply(self, frames: dict[str, bytes], effects: Effects) -> None:
        """A read-only request: its direct replies (and the sender's full view), nothing else."""
        replies = {**effects.replies, **frames}
        if replies:
            push_all(self.gateway, replies)
        self._post_last(effects)

    def _after_write(
        self,
        code: str,
        c: Context,
        conns: dict,
        frames: dict[str, bytes],
        effects: Effects,
        arms: list[tuple[int, float]],
    ) -> None:
        for k in effects.deletes:
            self.rooms.pop(k, None)
        frames = {k: v for k, v in frames.items() if k not in effects.unpushed}
        frames.update(effects.replies)
        gone = push_all(self.gateway, frames)
        for k in effects.closes:
            self.gateway.close(k)
        for arm in arms:
            self.timers.arm(code, *arm)
        # a young connection's 410 means "$connect not returned yet" (connections.young)
        gone = [g for g in gone if g in conns and not connections.young(c.snap, g, c.now)]
        if gone:
            try:
                self.run(code, lifecycle.drop_connections(gone))
            except ServiceError:
                logger.warning("dropping gone connections failed", extra={"room": code})
            else:
                # and closed: a socket whose $connect returned later than the grace answered
                # 410 but opened, and the room has forgotten it; open, it would hear nothing
                # until its next frame. Closed, its client reconnects at once. A socket really
                # gone answers this with one more 410, which `close` takes as done.
                for g in gone:
                    self.gateway.close(g)
        self._post_last(effects)

    def _post_last(self, effects: Effects) -> None:
        for conn_id, data in effects.last.items():
            self.gateway.post(conn_id, data)  # a gone connection is dropped by the next push
