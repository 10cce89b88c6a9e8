"""The virtual game clock, mirrored from ``service.clock`` (docs/architecture.md, Clock).

``virtual = origin + (real - origin) * rate``. The handlers read the same formula from
``MAFIA_CLOCK_ORIGIN`` / ``MAFIA_CLOCK_RATE``; the stack uses it to turn Scheduler ``at()``
times and TTL deadlines (virtual) back into real waiting times.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class VirtualClock:
    """A clock that runs ``rate`` times faster than real time, from ``origin`` on."""

    rate: float = 1.0
    origin: float = field(default_factory=time.time)

    def now(self) -> float:
        """Virtual epoch seconds now."""
        return self.to_virtual(time.time())

    def to_virtual(self, real: float) -> float:
        return self.origin + (real - self.origin) * self.rate

    def to_real(self, virtual: float) -> float:
        return self.origin + (virtual - self.origin) / self.rate

    def real_delay(self, virtual_seconds: float) -> float:
        """How many real seconds ``virtual_seconds`` of game time take."""
        return virtual_seconds / self.rate
