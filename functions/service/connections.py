"""The socket life cycle: admitting a connection ($connect), forgetting it ($disconnect),
and finding a connection's room (a warm cache, then the CONN# lookup item)."""

from __future__ import annotations

import os
import zlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from . import auth, clock, lifecycle
from .errors import ServiceError

if TYPE_CHECKING:
    from .fanout import Gateway
    from .storage import Store
    from .unitofwork import Change, ChangeFn

CACHE_SIZE = 20000
# Spectator sockets per room: each gets every public change, and API Gateway bills every
# message (docs/operations.md, "Spectators"). MAFIA_MAX_SPECTATORS overrides the default.
MAX_SPECTATORS = int(os.environ.get("MAFIA_MAX_SPECTATORS", "20"))
# Sockets per seat (a phone, a laptop, a few tabs): each gets every push of the seat, so a
# token must not open them without end. The next one replaces the oldest (docs/operations.md,
# "Sockets per player"); MAFIA_MAX_SOCKETS_PER_PLAYER overrides the default.
MAX_SOCKETS_PER_PLAYER = int(os.environ.get("MAFIA_MAX_SOCKETS_PER_PLAYER", "4"))


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


def admit(conn_id: str, token: str | None, gateway: Gateway | None = None, patches: bool = False) -> ChangeFn:
    """A change that stores a connection: a player's (token of this room) or a spectator's.
    A seat at `MAX_SOCKETS_PER_PLAYER` makes room for the new socket (`make_room`). `patches`:
    it asked for patches (service/patches.py)."""

    def change(c: Change) -> None:
        pid = None
        if token:
            pid = auth.find_player(c.room["players"], token)
            if pid is None and auth.was_kicked(c.room["players"], token):
                raise ServiceError("kicked", "the host removed this player from the game", 403)
            if pid is None:
                raise ServiceError("bad_token", "token not valid for this room", 403)
        else:
            c.slots[spectator_place(c, conn_id)] = conn_id
        if pid is not None:
            make_room(c, pid, gateway)
        c.conn_puts[conn_id] = pid
        if patches:
            c.conn_patches.add(conn_id)
        c.exclude.add(conn_id)  # API Gateway can't post to it before $connect returns
        if pid is None:
            c.bump = False
        elif pid not in c.snap.conns.values():
            lifecycle.presence(c, pid, True)
        c.result = pid

    return change


def spectator_place(c: Change, conn_id: str) -> int:
    """The free place (0 .. MAX_SPECTATORS-1) a new spectator claims, or ServiceError
    (`too_many_spectators`). A place is a conditional write of its own (storage.py,
    `SLOT_PREFIX`): a counted snapshot alone let a burst of connects all pass on one version.
    A place whose connection has left the room is free; the place tried is spread by the
    connection id, so a burst collides less (a collision reloads and tries again)."""
    spectators = {k for k, p in c.snap.conns.items() if p is None}
    held = {slot for slot, k in c.snap.slots.items() if k in spectators}
    free = [slot for slot in range(MAX_SPECTATORS) if slot not in held]
    # spectators admitted before places existed hold none; they count all the same
    if not free or len(spectators) >= MAX_SPECTATORS:
        raise ServiceError("too_many_spectators", f"this room already has {MAX_SPECTATORS} spectators", 403)
    return free[zlib.crc32(conn_id.encode()) % len(free)]


def make_room(c: Change, pid: str, gateway: Gateway | None) -> None:
    """Before a seat's next socket: at the cap, forget the seat's sockets that vanished
    (GetConnection, oldest first), then replace the oldest live ones. A reload or a new
    device always gets in; the replaced socket is told (`replaced`) and closed, and its
    client does not reconnect by itself (no two tabs taking the seat from each other)."""
    mine = sorted(
        (k for k, p in c.snap.conns.items() if p == pid), key=lambda k: (c.snap.conn_since.get(k, 0.0), k)
    )
    keep = max(MAX_SOCKETS_PER_PLAYER - 1, 0)
    if len(mine) <= keep:
        return
    gone = vanished(c, gateway, mine, stop_at_live=False) if gateway else []
    live = [k for k in mine if k not in gone]
    evicted = live[: max(len(live) - keep, 0)]
    c.conn_deletes.extend(gone + evicted)
    for k in evicted:
        c.replies[k] = _replaced_frame()
        c.close.append(k)


def _replaced_frame() -> bytes:
    from .views import error_frame

    return error_frame(
        None,
        "replaced",
        f"this seat opened a newer connection; at most {MAX_SOCKETS_PER_PLAYER} are kept, the oldest is closed",
    )


def pong(frame_id: Any) -> bytes:
    """The answer to `ping` (`server_frames.Pong`)."""
    from .server_frames import Pong, encode

    return encode(Pong(id=frame_id))


def __getattr__(name: str) -> Any:
    # the frames answered here (`route = "heartbeat"` in frames.py), derived on first use: the
    # frame models are not needed on the other handlers' cold starts
    if name == "CONNECTION_ACTIONS":
        from .frames import actions_routed

        return actions_routed("heartbeat")
    raise AttributeError(name)


def _young(c: Change, conn_id: str) -> bool:
    """Connected a moment ago: API Gateway may answer 410 until its `$connect` returned."""
    from .unitofwork import CONNECT_GRACE_SECONDS

    return c.snap.conn_since.get(conn_id, 0.0) >= c.now - CONNECT_GRACE_SECONDS * clock.rate()


def vanished(c: Change, gateway: Gateway, conn_ids: list[str], stop_at_live: bool = True) -> list[str]:
    """The connections among `conn_ids` whose socket is gone (GetConnection), checked in
    order (until the first live one with `stop_at_live`: a run of vanished sockets is found
    at once). Young connections count as live."""
    gone = []
    for k in conn_ids:
        if _young(c, k) or gateway.alive(k):
            if stop_at_live:
                break
            continue
        gone.append(k)
    return gone


def _drop_or_nothing(c: Change, gone: list[str]) -> None:
    if gone:
        lifecycle.drop_connections(gone)(c)
    else:
        c.write = False


def check_host(gateway: Gateway) -> ChangeFn:
    """Before `takeHost`: ask API Gateway whether the host's sockets are still there, and
    drop those that vanished without `$disconnect` (the host's away clock starts then)."""

    def change(c: Change) -> None:
        host = c.room.get("host")
        mine = sorted(k for k, p in c.snap.conns.items() if host and p == host)
        _drop_or_nothing(c, vanished(c, gateway, mine, stop_at_live=False))

    return change


def heartbeat(gateway: Gateway, conn_id: str) -> ChangeFn:
    """`ping` (the caller answers `pong` after it): no write, unless the sender's successor in the ring of
    the room's connections (sorted ids) has vanished without a `$disconnect`: then those
    connections are dropped (lobby marks, presence, the host's away clock follow).

    Each connection is checked by the one before it at every heartbeat, so a vanished socket
    is found within one heartbeat interval (plus the silent bound where API Gateway still
    answers GetConnection); one Query and one GetConnection per heartbeat."""

    def change(c: Change) -> None:
        if conn_id not in c.snap.conns:
            raise ServiceError("not_connected", "this connection is not in the room")
        ring = sorted(c.snap.conns)
        i = ring.index(conn_id)
        after = ring[i + 1 :] + ring[:i]
        _drop_or_nothing(c, vanished(c, gateway, after))

    return change
