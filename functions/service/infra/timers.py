"""Phase timers: one EventBridge Scheduler one-shot `at()` schedule per (room, phase, minute).

Scheduler fires with minute precision (possibly before the seconds asked for) and at least
once, so the schedule is set at the first whole minute after the deadline, carries the phase
it belongs to (`{"room", "phase", "at"}`), deletes itself after completion, and the engine
refuses an early or stale timeout without changing anything. Schedule names are unique per
(room, phase, minute): arming never needs a read, an update or a delete. Clients also nudge
the server at their countdown's end, so phases end on time whenever anyone is connected.

`at()` times are in the server clock (`service.infra.clock.now()`): epoch seconds on AWS; the
offline stack compares them with the same clock.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

from .telemetry import logger


def fire_minute(deadline: float, after: float | None = None) -> int:
    """The first whole minute (epoch seconds) at or after `deadline` (and after `after`)."""
    at = int(math.ceil(deadline / 60.0) * 60)
    if after is not None and at <= after:
        at = int(math.floor(after / 60.0) * 60) + 60
    return at


def fire_second(at: float) -> int:
    """The whole second at or after `at` (a wake's schedule: `Timers.arm`, `exact`)."""
    return int(math.ceil(at - 1e-9))


def schedule_name(code: str, seq: int, at: int) -> str:
    return f"mafia-{code}-{seq}-{at}"


class Timers:
    """Arms schedules through an injected `scheduler` client."""

    def __init__(
        self, client: Any, group: str, role_arn: str, target_arn: str, dead_letter_arn: str = ""
    ) -> None:
        self.client = client
        self.group = group
        self.role_arn = role_arn
        self.target_arn = target_arn
        # An SQS queue for the timeouts Scheduler could not deliver after its retries (a room
        # would otherwise wait for a client's nudge or its TTL): `python -m ops.timers` replays them.
        self.dead_letter_arn = dead_letter_arn

    def arm(
        self, code: str, seq: int, deadline: float, after: float | None = None, exact: bool = False
    ) -> int | None:
        """Create the one-shot schedule for this phase's deadline; returns its `at` second.
        `exact`: at the whole second at or after `deadline`, not its minute (a room's private
        wake for its bots, `features/botplay.py`; Scheduler still delivers inside that minute)."""
        at = fire_second(deadline) if exact else fire_minute(deadline, after)
        when = dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        target = {
            "Arn": self.target_arn,
            "RoleArn": self.role_arn,
            "Input": json.dumps({"room": code, "phase": seq, "at": at}),
            "RetryPolicy": {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 3600},
        }
        if self.dead_letter_arn:
            target["DeadLetterConfig"] = {"Arn": self.dead_letter_arn}
        try:
            self.client.create_schedule(
                Name=schedule_name(code, seq, at),
                GroupName=self.group,
                ScheduleExpression=f"at({when})",
                ScheduleExpressionTimezone="UTC",
                FlexibleTimeWindow={"Mode": "OFF"},
                ActionAfterCompletion="DELETE",
                Target=target,
            )
        except self.client.exceptions.ConflictException:
            pass  # already armed (a retried request): the same schedule will fire
        except Exception:  # noqa: BLE001 - clients' nudges still end the phase
            logger.exception("arming the phase timer failed", extra={"room": code})
            return None
        return at
