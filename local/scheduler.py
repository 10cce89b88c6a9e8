"""EventBridge Scheduler's delivery, emulated over moto's schedule store (moto keeps
schedules but never fires them).

Like the real service, a one-time ``at()`` schedule fires at a random moment inside its
minute (possibly before the seconds asked for), inside the flexible window if one is set,
and sometimes twice (at-least-once). Times are virtual (see ``local.clock``).

On a manual clock (``--manual-clock``) nothing fires by itself: ``advance`` moves the clock
to each due delivery in order, delivers it (and whatever it arms that is due too), and
returns once the timer handler has answered, so a test steps time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import json
import logging
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

import boto3

from .clock import GameClock, ManualClock
from .lambda_runtime import LambdaRuntime

log = logging.getLogger("local.scheduler")

_AT = re.compile(r"^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$")
MINUTE = 60.0


def parse_at(expression: str, timezone: str | None) -> float | None:
    """Epoch seconds of an ``at(yyyy-mm-ddThh:mm:ss)`` expression; None for rate()/cron()."""
    m = _AT.match(expression.strip())
    if not m:
        return None
    tz = ZoneInfo(timezone or "UTC")
    return datetime.fromisoformat(m.group(1)).replace(tzinfo=tz).timestamp()


def delivery_moment(at: float, armed: float, window: float, rng: random.Random) -> float:
    """When Scheduler first delivers a one-time schedule for second `at`, armed at `armed`: a
    random moment inside `at`'s minute (60 s precision, "Schedule types" in the EventBridge
    Scheduler user guide; `window` widens it for a flexible time window), possibly before
    `at`, never before it was armed (a minute already under way is drawn from what is left of
    it, not delivered at once: a wake armed for a second of the current minute does not land
    on the very request that armed it). The functions tests' model delivers the same way."""
    minute_start = at - at % MINUTE
    end = minute_start + window
    return rng.uniform(max(armed, minute_start), end) if armed < end else armed


@dataclass
class Planned:
    """A schedule version we have planned deliveries for."""

    key: tuple
    schedule: dict
    handles: list[asyncio.TimerHandle] = field(default_factory=list)
    delivered: int = 0
    cancelled: bool = False  # manual clock: its queued deliveries are skipped


class SchedulerEmulator:
    """Discovers schedules in one group and delivers them to the timer handler."""

    def __init__(
        self,
        runtime: LambdaRuntime,
        clock: GameClock,
        group: str,
        *,
        duplicate_probability: float = 0.1,
        window_s: float = MINUTE,
        poll_interval_s: float | None = None,
        retries: int = 2,
        rng: random.Random | None = None,
        handler: str = "timer",
    ) -> None:
        self.runtime = runtime
        self.clock = clock
        self.group = group
        self.duplicate_probability = duplicate_probability
        self.window_s = window_s
        self.manual = isinstance(clock, ManualClock)
        self.poll_interval_s = poll_interval_s or (
            0.5 if self.manual else min(0.5, max(0.05, window_s / clock.rate / 10))
        )
        self.retries = retries
        self.rng = rng or random.Random()
        self.handler = handler
        self.client = boto3.client("scheduler")
        self.planned: dict[str, Planned] = {}
        self.fired: set[tuple] = set()  # versions already delivered and kept (ActionAfterCompletion NONE)
        self.deliveries: list[dict] = []  # for tests: {"name", "virtual_at", "scheduled", "attempt"}
        self._tasks: set[asyncio.Task] = set()
        self._unsupported: set[str] = set()
        self._queue: list[tuple[float, int, Planned]] = []  # manual clock: (virtual_at, n, plan)
        self._order = itertools.count()
        self._poll_lock = asyncio.Lock()
        self._step_lock = asyncio.Lock()

    # -------------------------------------------------------------- discovery

    def _list(self) -> list[dict]:
        out: list[dict] = []
        kwargs: dict = {"GroupName": self.group}
        while True:
            page = self.client.list_schedules(**kwargs)
            out.extend(page.get("Schedules", []))
            if not page.get("NextToken"):
                return out
            kwargs["NextToken"] = page["NextToken"]

    def _get(self, name: str) -> dict | None:
        try:
            return self.client.get_schedule(GroupName=self.group, Name=name)
        except self.client.exceptions.ResourceNotFoundException:
            return None

    async def poll(self) -> None:
        """One discovery pass (the background loop's, or a manual step's)."""
        async with self._poll_lock:
            listed = await asyncio.get_running_loop().run_in_executor(self.runtime.executor, self._list)
            await self._reconcile(listed)

    async def run(self) -> None:
        """Poll forever (cancel to stop)."""
        while True:
            try:
                await self.poll()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - keep polling through a hiccup
                log.exception("scheduler poll failed")
            await asyncio.sleep(self.poll_interval_s)

    async def _reconcile(self, listed: list[dict]) -> None:
        loop = asyncio.get_running_loop()
        seen = set()
        for summary in listed:
            name = summary["Name"]
            seen.add(name)
            key = (name, str(summary.get("LastModificationDate")), summary.get("State"))
            plan = self.planned.get(name)
            if (plan is not None and plan.key == key) or key in self.fired:
                continue
            schedule = await loop.run_in_executor(self.runtime.executor, self._get, name)
            if schedule is None:
                continue
            if plan is not None:
                self._cancel(plan)
            self._plan(key, schedule)
        for name in list(self.planned):
            if name not in seen:
                # Deleted (or replaced) before it fired: pending deliveries never happen.
                self._cancel(self.planned.pop(name))

    def _cancel(self, plan: Planned) -> None:
        if plan.delivered == 0:
            plan.cancelled = True
            for handle in plan.handles:
                handle.cancel()

    def _plan(self, key: tuple, schedule: dict) -> None:
        name = schedule["Name"]
        if schedule.get("State", "ENABLED") != "ENABLED":
            return
        at = parse_at(schedule.get("ScheduleExpression", ""), schedule.get("ScheduleExpressionTimezone"))
        if at is None:
            if name not in self._unsupported:
                self._unsupported.add(name)
                log.warning("schedule %s: only at() expressions are emulated", name)
            return
        window = self.window_s
        flexible = schedule.get("FlexibleTimeWindow") or {}
        if flexible.get("Mode") == "FLEXIBLE":
            window += MINUTE * float(flexible.get("MaximumWindowInMinutes", 0))
        minute_start = at - at % MINUTE
        first = delivery_moment(at, self.clock.now(), window, self.rng)
        times = [first]
        if self.rng.random() < self.duplicate_probability:
            times.append(first + self.rng.uniform(0, max(1.0, minute_start + window - first)))
        plan = Planned(key, schedule)
        loop = asyncio.get_running_loop()
        now_v = self.clock.now()
        for attempt_time in times:
            if self.manual:
                heapq.heappush(self._queue, (attempt_time, next(self._order), plan))
                continue
            delay = max(0.0, self.clock.real_delay(attempt_time - now_v))
            plan.handles.append(loop.call_later(delay, self._due, plan, attempt_time))
        self.planned[name] = plan
        log.debug("planned %s at %s (virtual), %d delivery(ies)", name, times, len(times))

    # -------------------------------------------------------------- delivery

    def _due(self, plan: Planned, virtual_at: float) -> None:
        task = asyncio.get_running_loop().create_task(self._deliver(plan, virtual_at))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _payload(self, schedule: dict, virtual_at: float, attempt: int) -> object:
        raw = (schedule.get("Target") or {}).get("Input") or "{}"
        scheduled = datetime.fromtimestamp(
            parse_at(schedule["ScheduleExpression"], schedule.get("ScheduleExpressionTimezone"))
            or virtual_at,
            ZoneInfo("UTC"),
        ).strftime("%Y-%m-%dT%H:%M:%SZ")
        for attribute, value in (
            ("<aws.scheduler.schedule-arn>", schedule.get("Arn", "")),
            ("<aws.scheduler.scheduled-time>", scheduled),
            ("<aws.scheduler.execution-id>", str(uuid.uuid4())),
            ("<aws.scheduler.attempt-number>", str(attempt)),
        ):
            raw = raw.replace(attribute, value)
        try:
            return json.loads(raw)
        except ValueError:
            return raw

    async def _deliver(self, plan: Planned, virtual_at: float) -> None:
        schedule = plan.schedule
        name = schedule["Name"]
        first = plan.delivered == 0
        plan.delivered += 1
        for attempt in range(1, self.retries + 2):
            event = self._payload(schedule, virtual_at, attempt)
            self.deliveries.append(
                {"name": name, "virtual_at": self.clock.now(), "planned": virtual_at, "attempt": attempt}
            )
            try:
                await self.runtime.invoke(self.handler, event)
                break
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the Lambda async invoke retries, then gives up
                log.exception("timer handler failed for schedule %s (attempt %d)", name, attempt)
                await asyncio.sleep(0.05 if self.manual else self.clock.real_delay(MINUTE))
        if not first:
            return
        if schedule.get("ActionAfterCompletion") == "DELETE":
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self.runtime.executor, self._delete, name)
            if self.planned.get(name) is plan:
                # Keep a duplicate delivery alive even though the schedule is gone.
                self.planned.pop(name, None)
        else:
            self.fired.add(plan.key)
            if self.planned.get(name) is plan:
                self.planned.pop(name, None)

    # -------------------------------------------------------------- manual clock

    def _next_due(self) -> float | None:
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0][0] if self._queue else None

    async def next_due(self) -> float | None:
        """The virtual second of the next planned delivery (after a discovery pass)."""
        await self.poll()
        return self._next_due()

    async def advance(self, *, by: float | None = None, to: float | str | None = None) -> dict:
        """Step a manual clock by `by` seconds, to the second `to`, or ``to="next"`` (the next
        planned delivery), delivering every schedule due on the way in time order. Returns
        when the timer handler has answered each of them: ``{"now", "fired": [names]}``."""
        if not self.manual:
            raise RuntimeError("the clock is not manual (start the stack with --manual-clock)")
        assert isinstance(self.clock, ManualClock)
        async with self._step_lock:
            await self.poll()
            start = self.clock.now()
            if to == "next":
                target = self._next_due()
                target = start if target is None else max(start, target)
            elif to is not None:
                target = max(start, float(to))
            else:
                target = start + max(0.0, float(by or 0.0))
            fired: list[str] = []
            while (at := self._next_due()) is not None and at <= target:
                _, _, plan = heapq.heappop(self._queue)
                self.clock.set(max(self.clock.now(), at))
                await self._deliver(plan, at)
                fired.append(plan.schedule["Name"])
                await self.poll()  # what that delivery armed may be due before the target too
            self.clock.set(max(self.clock.now(), target))
            return {"now": self.clock.now(), "fired": fired, "next": self._next_due()}

    def _delete(self, name: str) -> None:
        with contextlib.suppress(self.client.exceptions.ResourceNotFoundException):
            self.client.delete_schedule(GroupName=self.group, Name=name)

    async def stop(self) -> None:
        for plan in self.planned.values():
            for handle in plan.handles:
                handle.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
