"""Helpers of the e2e tests: the offline stack as a subprocess (``local.process``) and a
runner for async test bodies."""

from __future__ import annotations

import asyncio
import functools

from local import process

TIME_SCALE = 20.0  # the scaled-clock stacks (the soak); the others step a manual clock
SEED = 22  # the Scheduler's jitter and duplicates: the same deliveries every run

FAKE_HANDLERS = [
    "--containers", "0",  # the fake handlers share module state (a registry of sockets)
    "--handler", "$connect=tests.e2e.fake_handlers:connect",
    "--handler", "$disconnect=tests.e2e.fake_handlers:disconnect",
    "--handler", "$default=tests.e2e.fake_handlers:default",
    "--handler", "timer=tests.e2e.fake_handlers:timer",
    "--handler", "rest=tests.e2e.fake_handlers:rest",
]

StackProcess = process.StackProcess
start_stack = functools.partial(process.start_stack, time_scale=TIME_SCALE)


async def drive(stack: StackProcess, done, pace: float = 0.3) -> int:
    """Step a manual clock to the next Scheduler delivery whenever the players have had
    ``pace`` real seconds to answer the last push, until ``done()``; returns the steps taken.
    The pace is time for the scripted players to act, not game time: no deadline passes
    between two steps."""
    steps = 0
    while not done():
        await asyncio.sleep(pace)
        if not done():
            await stack.astep(to="next")
            steps += 1
    return steps


def run(coro, timeout: float = 120.0):
    """Run one async test body."""
    return asyncio.run(asyncio.wait_for(coro, timeout))
