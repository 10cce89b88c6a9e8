"""Session-wide offline stacks for the e2e tests (subprocesses, real sockets on 127.0.0.1)."""

from __future__ import annotations

import pytest

from .stackproc import FAKE_HANDLERS, start_stack


@pytest.fixture(scope="session")
def game_stack():
    """The real handlers; Scheduler delivers twice one time in three."""
    stack = start_stack("--duplicate-probability", "0.3")
    yield stack
    rc = stack.stop()
    assert rc == 0, stack.log()


@pytest.fixture(scope="session")
def fake_stack():
    """The gateway around tiny fake handlers; every schedule is delivered twice; fast TTL."""
    stack = start_stack(*FAKE_HANDLERS, "--duplicate-probability", "1.0", "--ttl-lag", "20",
                        "--ttl-interval", "10")
    yield stack
    rc = stack.stop()
    assert rc == 0, stack.log()
