"""Stand-ins for the API Gateway management API (`service.infra.fanout` calls `post`, `close`,
`alive`): moto's cannot answer 410 Gone, and tests and benches want to see what was sent."""

from __future__ import annotations

import copy
import json
import threading
from dataclasses import dataclass, field


@dataclass
class CountingGateway:
    """Accepts every push and keeps only its size (the bench: no decoding on the timed path)."""

    sizes: list[int] = field(default_factory=list)
    gone: set[str] = field(default_factory=set)
    closed: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # GetConnection calls

    def post(self, connection_id: str, data: bytes) -> bool:
        if connection_id in self.gone:
            return False
        self.sizes.append(len(data))
        return True

    def close(self, connection_id: str) -> None:
        self.closed.append(connection_id)

    def alive(self, connection_id: str) -> bool:
        """GetConnection: a connection in `gone` answers 410."""
        self.checked.append(connection_id)
        return connection_id not in self.gone


@dataclass
class FakeGateway(CountingGateway):
    """Also records every push decoded; connections in `gone` answer 410 like a closed socket.

    Like a client, it applies a `patch` frame to the connection's last view (docs/protocol.md,
    "Patches"): `sent` holds the view frame the client then has (tests read views whatever
    travelled), `wire` the frames as sent (`sizes` their bytes). A patch that does not follow
    the view held stays a `patch` frame in `sent`, where a client would ask for `sync`."""

    sent: list[tuple[str, dict]] = field(default_factory=list)
    wire: list[tuple[str, dict]] = field(default_factory=list)
    views: dict[str, dict] = field(default_factory=dict)  # connection -> its last view frame
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def post(self, connection_id: str, data: bytes) -> bool:
        if connection_id in self.gone:
            return False
        wire = json.loads(data)
        with self.lock:  # pushes run in parallel: keep `sent`, `wire` and `sizes` in step
            frame = patched(self.views.get(connection_id), wire) if wire.get("type") == "patch" else wire
            if frame.get("type") == "view":
                self.views[connection_id] = frame
            self.sizes.append(len(data))
            self.wire.append((connection_id, wire))
            self.sent.append((connection_id, frame))
        return True

    def checkpoint(self) -> None:
        """Remember every connection's view (tests that put a stored room item back)."""
        self.saved = copy.deepcopy(self.views)

    def rewind(self) -> None:
        """The views as at the last `checkpoint`: the clients of the room item put back."""
        self.views = copy.deepcopy(getattr(self, "saved", {}))

    def to(self, connection_id: str) -> list[dict]:
        return [f for c, f in self.sent if c == connection_id]

    def last(self, connection_id: str, kind: str = "view") -> dict | None:
        frames = [f for f in self.to(connection_id) if f["type"] == kind]
        return frames[-1] if frames else None

    def clear(self) -> None:
        self.sent.clear()
        self.wire.clear()
        self.sizes.clear()


def patched(last: dict | None, patch: dict) -> dict:
    """The view frame `patch` makes of `last` (both frames as received, applied by the
    `jsonpatch` library as local/client.py does), or `patch` itself when it does not follow."""
    import jsonpatch  # the tests' and the local client's (requirements-dev.txt), not the Lambda's

    if last is None or patch["version"] != last["version"] + 1:
        return patch
    view = {k: v for k, v in last["view"].items() if k not in ("serverNow", "clockRate")}
    view = jsonpatch.apply_patch(view, patch["ops"])
    view.update(serverNow=patch["serverNow"], clockRate=patch["clockRate"])
    return {"type": "view", "version": patch["version"], "view": view}
