"""The server's game clock (docs/architecture.md, "Clock").

Two kinds, chosen by the environment, read the same way by every handler:

- scaled: `origin + (real - origin) * rate` (rate and origin from MAFIA_CLOCK_RATE /
  MAFIA_CLOCK_ORIGIN; rate 1 and plain epoch seconds on AWS, where neither is set);
- manual: MAFIA_CLOCK_FILE names a file holding the game time, which moves only when the
  offline stack is told to step it (`python -m local --manual-clock`, `POST /_local/clock`).
  Its rate is 0: game time does not pass by itself.

The offline stack keeps the same objects (`ScaledClock`, `ManualClock`) to turn Scheduler
`at()` times and TTL deadlines into waits, so the handlers and the emulators cannot disagree.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ScaledClock:
    """A clock that runs `rate` times faster than real time, from the real epoch second `origin` on."""

    rate: float = 1.0
    origin: float = 0.0

    @classmethod
    def from_env(cls) -> ScaledClock:
        return cls(rate=_scaled_rate(), origin=origin())

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


@dataclass(frozen=True)
class ManualClock:
    """Game time kept in a file: every process that reads `path` sees the same second, and
    it changes only through `set` (atomic replace, so a reader never sees half a number)."""

    path: str
    rate: float = 0.0

    @classmethod
    def create(cls, start: float, directory: str | None = None) -> ManualClock:
        fd, path = tempfile.mkstemp(prefix="mafia-clock-", suffix=".txt", dir=directory)
        os.close(fd)
        clock = cls(path)
        clock.set(start)
        return clock

    def now(self) -> float:
        return float(Path(self.path).read_text())

    def set(self, value: float) -> None:
        tmp = f"{self.path}.{os.getpid()}.tmp"
        Path(tmp).write_text(repr(float(value)))
        os.replace(tmp, self.path)

    def real_delay(self, virtual_seconds: float) -> float:
        """Never by itself: only a step moves this clock."""
        return math.inf if virtual_seconds > 0 else 0.0


def clock_file() -> str | None:
    return os.environ.get("MAFIA_CLOCK_FILE") or None


def _scaled_rate() -> float:
    return float(os.environ.get("MAFIA_CLOCK_RATE") or 1.0)


def rate() -> float:
    """Game seconds per real second: 0 for a manual clock (views carry it as `clockRate`)."""
    return 0.0 if clock_file() else _scaled_rate()


def origin() -> float:
    """The real epoch second at which the scaled clock equals real time."""
    return float(os.environ.get("MAFIA_CLOCK_ORIGIN") or 0.0)


def now() -> float:
    """Current game time in (scaled) epoch seconds."""
    path = clock_file()
    if path:
        return ManualClock(path).now()
    return ScaledClock.from_env().now()
