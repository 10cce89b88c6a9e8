"""Pushing frames to WebSocket connections.

`Gateway` is the small interface the rooms layer pushes through; `ApiGateway` implements it
with the `apigatewaymanagementapi` client (endpoint from WS_MANAGEMENT_ENDPOINT), tests use a
fake that records pushes and can answer Gone. `push_all` sends in parallel and returns the
connections that are gone (410), which the caller drops.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from .telemetry import count, logger

# Clients send a heartbeat (`ping`) every HEARTBEAT_SECONDS (real seconds, web/js/connection.js);
# a socket with no message for SILENT_SECONDS is taken for vanished.
HEARTBEAT_SECONDS = 60
SILENT_SECONDS = 150  # two and a half heartbeats: one late or lost ping is forgiven
_POOL = ThreadPoolExecutor(max_workers=16, thread_name_prefix="fanout")


class Gateway(Protocol):
    def post(self, connection_id: str, data: bytes) -> bool:
        """Send one frame; False if the connection is gone (410)."""

    def close(self, connection_id: str) -> None:
        """Close a connection (kick); a gone connection is not an error."""

    def alive(self, connection_id: str) -> bool:
        """Whether the socket is still there (GetConnection: 410 or silent too long -> False)."""


class ApiGateway:
    """The API Gateway management API (`@connections`). `now` is the real clock (epoch seconds)
    that `LastActiveAt` is compared with; tests inject their own."""

    def __init__(self, client: Any, now: Callable[[], float] = time.time) -> None:
        self.client = client
        self.now = now

    def post(self, connection_id: str, data: bytes) -> bool:
        try:
            self.client.post_to_connection(ConnectionId=connection_id, Data=data)
            return True
        except self.client.exceptions.GoneException:
            return False

    def close(self, connection_id: str) -> None:
        try:
            self.client.delete_connection(ConnectionId=connection_id)
        except self.client.exceptions.GoneException:
            pass

    def alive(self, connection_id: str) -> bool:
        """GetConnection: gone (410) -> False; a socket silent for longer than
        `SILENT_SECONDS` (no heartbeat: the client vanished, API Gateway has not noticed) is
        closed and counts as gone."""
        try:
            out = self.client.get_connection(ConnectionId=connection_id)
        except self.client.exceptions.GoneException:
            return False
        last = out.get("LastActiveAt")
        if last is not None and self.now() - last.timestamp() > SILENT_SECONDS:
            self.close(connection_id)
            return False
        return True


def push_all(gateway: Gateway, frames: dict[str, bytes]) -> list[str]:
    """Post `frames` ({connection id: bytes}) in parallel; returns the gone connection ids."""
    if not frames:
        return []

    def one(item: tuple[str, bytes]) -> str | None:
        conn_id, data = item
        try:
            return None if gateway.post(conn_id, data) else conn_id
        except Exception:  # noqa: BLE001 - one bad connection must not stop the others
            logger.exception("push failed", extra={"connection": conn_id})
            return None

    items = list(frames.items())
    results = [one(items[0])] if len(items) == 1 else list(_POOL.map(one, items))
    count("BytesPushed", sum(len(d) for d in frames.values()), "Bytes")
    count("Pushes", len(frames))
    gone = [c for c in results if c]
    if gone:
        count("GoneDropped", len(gone))
    return gone
