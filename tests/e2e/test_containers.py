"""A stack's handler containers never outlive its gateway: one killed outright (SIGKILL, as a
bench stopped by a timeout is) cannot stop them, so each exits once its parent is gone
(local/lambda_runtime.py `_exit_with_parent`)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from pathlib import Path

from local import process
from local.lambda_runtime import DEFAULT_HANDLERS, LambdaRuntime

from .stackproc import start_stack


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie is not running: it waits only to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_gateway_killed_outright_leaves_no_handler_container_running():
    stack = start_stack("--containers", "2", manual_clock=True)
    containers = process._children(stack.proc.pid)
    assert len(containers) >= 2, containers  # the two containers (and spawn's resource tracker)
    os.kill(stack.proc.pid, signal.SIGKILL)  # not stack.stop: that would kill them itself
    stack.proc.wait(10)
    deadline = time.monotonic() + 30  # each container looks for its parent every half second
    while any(alive(pid) for pid in containers) and time.monotonic() < deadline:
        time.sleep(0.2)
    running = [pid for pid in containers if alive(pid)]
    for pid in running:  # leave nothing behind if the check fails
        os.kill(pid, signal.SIGKILL)
    assert running == [], f"handler containers still running after their gateway was killed: {running}"


def stuck(event, _context):
    """A handler that never finishes in time: it says it began, then sleeps."""
    Path(event["began"]).touch()
    time.sleep(event["seconds"])


def test_a_stopping_runtime_ends_a_container_stuck_in_an_invocation(tmp_path):
    """A stop waits for a container's running invocation only so long (`SHUTDOWN_GRACE_S`),
    then terminates it, as Lambda ends an environment after its shutdown phase: one invocation
    stuck on a post to a gateway that is going away cannot hold a stack's stop."""
    spec = f"{__name__}:stuck"
    runtime = LambdaRuntime({name: spec for name in (*DEFAULT_HANDLERS, "stuck")}, containers=1,
                            code_paths=[str(process.REPO)], timeout_s=900)
    runtime.preload()
    containers = multiprocessing.active_children()
    assert len(containers) == 1, containers
    began = tmp_path / "began"

    async def stop_while_stuck() -> BaseException | None:
        call = asyncio.ensure_future(runtime.invoke("stuck", {"began": str(began), "seconds": 900}))
        while not began.exists():  # the container has taken the invocation up
            await asyncio.sleep(0.05)
        runtime.shutdown(grace_s=0.5)
        done = await asyncio.gather(call, return_exceptions=True)
        return done[0]

    ended = asyncio.run(stop_while_stuck())
    assert not containers[0].is_alive(), "the stuck container outlived the stop"
    assert isinstance(ended, BaseException), ended  # the invocation did not finish: it was ended
