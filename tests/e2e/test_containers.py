"""A stack's handler containers never outlive its gateway: one killed outright (SIGKILL, as a
bench stopped by a timeout is) cannot stop them, so each exits once its parent is gone
(local/lambda_runtime.py `_exit_with_parent`)."""

from __future__ import annotations

import os
import signal
import time

from local import process

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
