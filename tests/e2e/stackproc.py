"""Helpers of the e2e tests: the offline stack as a subprocess (``local.process``) and a
runner for async test bodies."""

from __future__ import annotations

import asyncio
import functools

from local import process

TIME_SCALE = 20.0

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


def run(coro, timeout: float = 120.0):
    """Run one async test body."""
    return asyncio.run(asyncio.wait_for(coro, timeout))
