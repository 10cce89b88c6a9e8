"""Who may act: the one check of a frame's sender, from what its model declares (`frames.py`).

A room frame's model says who may send it (`needs`: any connection of the room, a player, or
the host); an engine action's says it through the engine model's `sender` (player, host,
server, room: mafia_engine/actions.py). The pipeline calls `actor` once per frame, before
the command, so no command checks its sender again.
"""

from __future__ import annotations

from typing import Any

from ..infra.errors import ServiceError
from ..protocol.frames import Need
from .change import Context


def actor(c: Context, conn_id: str, frame: Any) -> str | None:
    """The sender's player id (None for a spectator), or ServiceError when this sender may
    not send `frame`: `not_connected`, `spectator`, `forbidden_action`, `not_host`."""
    if conn_id not in c.snap.conns:
        raise ServiceError("not_connected", "this connection is not in the room")
    pid = c.snap.conns[conn_id]
    engine_model = getattr(frame, "model", None)  # an engine action's own model (frames.EngineFrame)
    need: Need = frame.needs
    if need == "connection":
        return pid
    if pid is None:
        raise ServiceError("spectator", "spectators cannot act")
    if engine_model is not None:
        kind, sent_by = frame.action, engine_model.sender
        if sent_by == "server":
            raise ServiceError("forbidden_action", f"'{kind}' is sent by the server only")
        if sent_by == "room":  # applied by the room layer for a room operation: `player` would be the sender
            raise ServiceError("forbidden_action", engine_model.hint)
        if sent_by == "host" and pid != c.room["host"]:
            raise ServiceError("not_host", f"only the host can {kind}")
        return pid
    if need == "host" and pid != c.room["host"]:
        raise ServiceError("not_host", "only the host can do that")
    return pid
