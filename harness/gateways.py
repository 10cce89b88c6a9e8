"""Stand-ins for the API Gateway management API (`service.fanout` calls `post`, `close`,
`alive`): moto's cannot answer 410 Gone, and tests and benches want to see what was sent."""

from __future__ import annotations

import json
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
    """Also records every push decoded; connections in `gone` answer 410 like a closed socket."""

    sent: list[tuple[str, dict]] = field(default_factory=list)

    def post(self, connection_id: str, data: bytes) -> bool:
        if not super().post(connection_id, data):
            return False
        self.sent.append((connection_id, json.loads(data)))
        return True

    def to(self, connection_id: str) -> list[dict]:
        return [f for c, f in self.sent if c == connection_id]

    def last(self, connection_id: str, kind: str = "view") -> dict | None:
        frames = [f for f in self.to(connection_id) if f["type"] == kind]
        return frames[-1] if frames else None

    def clear(self) -> None:
        self.sent.clear()
        self.sizes.clear()
