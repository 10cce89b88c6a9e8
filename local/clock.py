"""The offline stack's game clock is the handlers' own (``service.infra.clock``): ``ScaledClock``
turns Scheduler ``at()`` times and TTL deadlines (game time) into real waiting times;
``ManualClock`` (``--manual-clock``) does not move until ``POST /_local/clock`` steps it."""

from __future__ import annotations

import sys
from pathlib import Path

_FUNCTIONS = str(Path(__file__).resolve().parents[1] / "functions")
if _FUNCTIONS not in sys.path:
    sys.path.append(_FUNCTIONS)  # appended: start() still puts the code paths first

from service.infra.clock import ManualClock  # noqa: E402
from service.infra.clock import ScaledClock as VirtualClock  # noqa: E402

GameClock = VirtualClock | ManualClock

__all__ = ["GameClock", "ManualClock", "VirtualClock"]
