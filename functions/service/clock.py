"""The server's game clock.

`now() = origin + (time.time() - origin) * rate`. On AWS the rate is 1 (plain epoch seconds);
the offline stack sets MAFIA_CLOCK_RATE / MAFIA_CLOCK_ORIGIN so a whole game runs faster.
Every game clock (engine `now`, deadlines, schedules, TTL) reads this one function.
"""

from __future__ import annotations

import os
import time


def rate() -> float:
    """The clock rate (game seconds per real second)."""
    return float(os.environ.get("MAFIA_CLOCK_RATE") or 1.0)


def origin() -> float:
    """The real epoch second at which the scaled clock equals real time."""
    return float(os.environ.get("MAFIA_CLOCK_ORIGIN") or 0.0)


def now() -> float:
    """Current game time in (scaled) epoch seconds."""
    o = origin()
    return o + (time.time() - o) * rate()
