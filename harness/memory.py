"""The room service without moto: `MemStore` (service/infra/memstore.py) and `MemTimers`, for
the tests of room rules (tests/functions/conftest.py `svc` for a test marked `memstore`, the
contract tier's `api`). The handlers' own tests, storage semantics and the stacks stay on moto."""

from __future__ import annotations

import os
import threading
from typing import Any

from service.infra.memstore import MemStore
from service.infra.timers import fire_minute, fire_second, schedule_name


class MemTimers:
    """Timers that keep what was armed (name -> the schedule's input), as the scheduler would:
    one schedule per (room, phase, minute), a second arming of one is a no-op."""

    def __init__(self) -> None:
        self.armed: dict[str, dict] = {}
        self._lock = threading.Lock()

    def arm(
        self, code: str, seq: int, deadline: float, after: float | None = None, exact: bool = False
    ) -> int | None:
        at = fire_second(deadline) if exact else fire_minute(deadline, after)
        with self._lock:
            self.armed.setdefault(schedule_name(code, seq, at), {"room": code, "phase": seq, "at": at})
        return at


def memory_service(gateway: Any) -> Any:
    """A RoomService on a fresh MemStore and MemTimers, pushing to `gateway`."""
    from service.config import Settings
    from service.room.rooms import RoomService

    s = Settings.from_env() if os.environ.get("TABLE_NAME") else None
    return RoomService(
        MemStore(),
        gateway,
        MemTimers(),
        ws_url=s.ws_url if s else "",
        allowed_origins=s.allowed_origins if s else ("*",),
    )
