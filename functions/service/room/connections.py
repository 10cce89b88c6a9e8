"""The socket life cycle: admitting a connection ($connect), forgetting it ($disconnect),
finding a connection's room (a warm cache, then the CONN# lookup item), the heartbeat, and
the connect-grace rule (`young`) every 410 and GetConnection answer is read by."""

from __future__ import annotations

import os
import zlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ..features import away
from ..infra import auth, clock
from ..infra.errors import ServiceError
from ..infra.storage import Snapshot
from ..protocol.server_frames import Pong, encode
from ..protocol.views import error_frame
from . import displays, lifecycle, substitutes
from .change import ChangeFn, Context, Effects, Outcome, Write

if TYPE_CHECKING:
    from ..infra.fanout import Gateway
    from ..infra.storage import Store

CACHE_SIZE = 20000
# Spectator sockets per room: each gets every public change, and API Gateway bills every
# message (docs/operations.md, "Spectators"). MAFIA_MAX_SPECTATORS overrides the default.
MAX_SPECTATORS = int(os.environ.get("MAFIA_MAX_SPECTATORS", "20"))
# Sockets per seat (a phone, a laptop, a few tabs): each gets every push of the seat, so a
# token must not open them without end. The next one replaces the oldest (docs/operations.md,
# "Sockets per player"); MAFIA_MAX_SOCKETS_PER_PLAYER overrides the default.
MAX_SOCKETS_PER_PLAYER = int(os.environ.get("MAFIA_MAX_SOCKETS_PER_PLAYER", "4"))
# API Gateway answers 410 (and GetConnection "gone") for a connection until its $connect has
# returned, so a push racing a fresh connect must not lose a live socket: for this many real
# seconds after its CONN# item's `at` a connection is never taken for gone.
CONNECT_GRACE_SECONDS = 2.0


def young(snap: Snapshot, conn_id: str, now: float) -> bool:
    """Connected a moment ago (`CONNECT_GRACE_SECONDS` real seconds, in game time at the
    clock's rate): API Gateway may answer 410 until its `$connect` returned."""
    return snap.conn_since.get(conn_id, 0.0) >= now - CONNECT_GRACE_SECONDS * clock.rate()


class ConnectionRooms(OrderedDict):
    """Connection id -> room code, kept by a warm container (bounded, oldest out first)."""

    def remember(self, conn_id: str, code: str) -> None:
        self[conn_id] = code
        if len(self) > CACHE_SIZE:
            self.popitem(last=False)

    def room_of(self, store: Store, conn_id: str, hint: Any) -> str:
        """The room of a connection; the frame's `room` hint saves a read on a cold container
        (the connection item in that room's partition still decides)."""
        code = self.get(conn_id)
        if code is None and isinstance(hint, str) and hint:
            code = hint.upper()
        if code is None:
            code = store.lookup_connection(conn_id)
            if code is None:
                raise ServiceError("not_connected", "unknown connection")
            self.remember(conn_id, code)
        return code


def admit(
    conn_id: str,
    token: str | None,
    gateway: Gateway | None = None,
    patches: bool = False,
    device: str | None = None,
    display: str | None = None,
    addr: str = "",
) -> ChangeFn:
    """A change that stores a connection: a player's (token of this room) or a spectator's.
    A seat at `MAX_SOCKETS_PER_PLAYER` makes room for the new socket (`make_room`). `patches`:
    it asked for patches (service/protocol/patches.py). `device`: its device's key, kept (hashed) with
    the seat, so that device takes no other seat of this game (substitutes.note_device).
    `display`: the room's display key: a screen, a spectator with a display place (displays.py)."""

    def change(c: Context) -> Outcome:
        pid = None
        slots: dict[int, str] = {}
        if token:
            pid = auth.find_player(c.room["players"], token)
            if pid is None and auth.was_kicked(c.room["players"], token):
                raise ServiceError("kicked", "the host removed this player from the game", 403)
            if pid is None:
                raise ServiceError("bad_token", "token not valid for this room", 403)
        elif display is not None:
            displays.check_key(c.room, display)
            slots[displays.display_place(c, conn_id)] = conn_id
            displays.count(c, joining=conn_id)  # the public `room.screens` (a room write)
        else:
            slots[spectator_place(c, conn_id)] = conn_id
        room_made = make_room(c, pid, gateway) if pid is not None else Effects()
        # API Gateway can't post to it before $connect returns: no view frame to it
        effects = room_made + Effects(
            puts={conn_id: pid},
            slots=slots,
            unpushed=frozenset({conn_id}),
            patched=frozenset({conn_id}) if patches else frozenset(),
        )
        if pid is None:
            write = Write.ROOM if display is not None else Write.CONNECTIONS
            return Outcome(c.state, write, effects, result=pid)
        state = c.state
        seat = next(p for p in c.room["players"] if p["id"] == pid)
        substitutes.note_device(seat, device)
        substitutes.note_socket_address(seat, addr)  # `addr`: its address's digest (substitutes.py)
        if pid not in c.snap.conns.values():
            state = lifecycle.presence(c.room, state, pid, True, c.now)
            away.back(c.room, state, pid)  # what the seat missed, for its own view (away.py)
        return Outcome(state, Write.ROOM, effects, result=pid)

    return change


def spectator_place(c: Context, conn_id: str) -> int:
    """The free place (0 .. MAX_SPECTATORS-1) a new spectator claims, or ServiceError
    (`too_many_spectators`). A place is a conditional write of its own (storage.py,
    `SLOT_PREFIX`): a counted snapshot alone let a burst of connects all pass on one version.
    A place whose connection has left the room is free; the place tried is spread by the
    connection id, so a burst collides less (a collision reloads and tries again)."""
    screens = set(displays.connected(c))  # displays have places of their own
    spectators = {k for k, p in c.snap.conns.items() if p is None and k not in screens}
    held = {slot for slot, k in c.snap.slots.items() if k in spectators}
    free = [slot for slot in range(MAX_SPECTATORS) if slot not in held]
    # spectators admitted before places existed hold none; they count all the same
    if not free or len(spectators) >= MAX_SPECTATORS:
        raise ServiceError("too_many_spectators", f"this room already has {MAX_SPECTATORS} spectators", 403)
    return free[zlib.crc32(conn_id.encode()) % len(free)]


def make_room(c: Context, pid: str, gateway: Gateway | None) -> Effects:
    """Before a seat's next socket: at the cap, forget the seat's sockets that vanished
    (GetConnection, oldest first), then replace the oldest live ones. A reload or a new
    device always gets in; the replaced socket is told (`replaced`) and closed, and its
    client does not reconnect by itself (no two tabs taking the seat from each other)."""
    mine = sorted(
        (k for k, p in c.snap.conns.items() if p == pid), key=lambda k: (c.snap.conn_since.get(k, 0.0), k)
    )
    keep = max(MAX_SOCKETS_PER_PLAYER - 1, 0)
    if len(mine) <= keep:
        return Effects()
    gone = vanished(c, gateway, mine, stop_at_live=False) if gateway else []
    live = [k for k in mine if k not in gone]
    evicted = live[: max(len(live) - keep, 0)]
    farewell = _replaced_frame()
    return Effects(
        deletes=tuple(gone + evicted), replies={k: farewell for k in evicted}, closes=tuple(evicted)
    )


def _replaced_frame() -> bytes:
    return error_frame(
        None,
        "replaced",
        f"this seat opened a newer connection; at most {MAX_SOCKETS_PER_PLAYER} are kept, the oldest is closed",
    )


def pong(frame_id: Any) -> bytes:
    """The answer to `ping` (`server_frames.Pong`)."""
    return encode(Pong(id=frame_id))


def vanished(c: Context, gateway: Gateway, conn_ids: list[str], stop_at_live: bool = True) -> list[str]:
    """The connections among `conn_ids` whose socket is gone (GetConnection), checked in
    order (until the first live one with `stop_at_live`: a run of vanished sockets is found
    at once). Young connections count as live."""
    gone = []
    for k in conn_ids:
        if young(c.snap, k, c.now) or gateway.alive(k):
            if stop_at_live:
                break
            continue
        gone.append(k)
    return gone


def _drop_or_nothing(c: Context, gone: list[str]) -> Outcome:
    return lifecycle.forget(c, c.state, gone) if gone else c.unchanged()


def check_host(gateway: Gateway) -> ChangeFn:
    """Before `takeHost`: ask API Gateway whether the host's sockets are still there, and
    drop those that vanished without `$disconnect` (the host's away clock starts then)."""

    def change(c: Context) -> Outcome:
        host = c.room.get("host")
        mine = sorted(k for k, p in c.snap.conns.items() if host and p == host)
        return _drop_or_nothing(c, vanished(c, gateway, mine, stop_at_live=False))

    return change


def heartbeat(c: Context, gateway: Gateway, conn_id: str) -> Outcome:
    """`ping`, answered with `pong` after everything else: no write, unless the sender's
    successor in the ring of the room's connections (sorted ids) has vanished without a
    `$disconnect`: then those connections are dropped (lobby marks, presence, the host's
    away clock follow).

    Each connection is checked by the one before it at every heartbeat, so a vanished socket
    is found within one heartbeat interval (plus the silent bound where API Gateway still
    answers GetConnection); one Query and one GetConnection per heartbeat."""
    ring = sorted(c.snap.conns)
    i = ring.index(conn_id)
    after = ring[i + 1 :] + ring[:i]
    return _drop_or_nothing(c, vanished(c, gateway, after))
