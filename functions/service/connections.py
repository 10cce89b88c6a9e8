"""The socket life cycle: admitting a connection ($connect), forgetting it ($disconnect),
and finding a connection's room (a warm cache, then the CONN# lookup item)."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from . import auth, lifecycle
from .errors import ServiceError

if TYPE_CHECKING:
    from .storage import Store
    from .unitofwork import Change, ChangeFn

CACHE_SIZE = 20000


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


def admit(conn_id: str, token: str | None) -> ChangeFn:
    """A change that stores a connection: a player's (token of this room) or a spectator's."""

    def change(c: Change) -> None:
        pid = None
        if token:
            pid = auth.find_player(c.room["players"], token)
            if pid is None and auth.was_kicked(c.room["players"], token):
                raise ServiceError("kicked", "the host removed this player from the game", 403)
            if pid is None:
                raise ServiceError("bad_token", "token not valid for this room", 403)
        c.conn_puts[conn_id] = pid
        c.exclude.add(conn_id)  # API Gateway can't post to it before $connect returns
        if pid is None:
            c.bump = False
        elif pid not in c.snap.conns.values():
            lifecycle.presence(c, pid, True)
        c.result = pid

    return change
