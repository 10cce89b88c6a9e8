"""The server's game clock: `origin + (real - origin) * rate` (docs/architecture.md, "Clock").

One formula for everyone: the handlers read `now()` (rate and origin from MAFIA_CLOCK_RATE /
MAFIA_CLOCK_ORIGIN, rate 1 on AWS), and the offline stack keeps a `ScaledClock` to turn
Scheduler `at()` times and TTL deadlines back into real waiting times.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class ScaledClock:
    """A clock that runs `rate` times faster than real time, from the real epoch second `origin` on."""

    rate: float = 1.0
    origin: float = 0.0

    @classmethod
    def from_env(cls) -> ScaledClock:
        return cls(rate=rate(), origin=origin())

    def now(self) -> float:
        """Game time now, in (scaled) epoch seconds."""
        return self.to_virtual(time.time())

    def to_virtual(self, real: float) -> float:
        return self.origin + (real - self.origin) * self.rate

    def to_real(self, virtual: float) -> float:
        return self.origin + (virtual - self.origin) / self.rate

    def real_delay(self, virtual_seconds: float) -> float:
        """How many real seconds `virtual_seconds` of game time take."""
        return virtual_seconds / self.rate


def rate() -> float:
    """The clock rate (game seconds per real second)."""
    return float(os.environ.get("MAFIA_CLOCK_RATE") or 1.0)


def origin() -> float:
    """The real epoch second at which the scaled clock equals real time."""
    return float(os.environ.get("MAFIA_CLOCK_ORIGIN") or 0.0)


def now() -> float:
    """Current game time in (scaled) epoch seconds."""
    return ScaledClock.from_env().now()
