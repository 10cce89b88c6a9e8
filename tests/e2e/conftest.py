"""Session-wide offline stacks for the e2e tests (subprocesses, real sockets on 127.0.0.1)."""

from __future__ import annotations

import pytest

from .stackproc import FAKE_HANDLERS, SEED, start_stack


@pytest.fixture(scope="session")
def game_stack():
    """The real handlers on the real scaled clock (the soak: whole games whose phases end by
    the clock, the timing path); Scheduler delivers twice one time in three, seeded."""
    # LOCAL_MOTO_VERIFY: every DynamoDB response is also serialized by moto's own serializer
    # and compared with the fast path of local/moto_fixes.py.
    stack = start_stack("--duplicate-probability", "0.3", env={"LOCAL_MOTO_VERIFY": "1"}, seed=SEED)
    yield stack
    rc = stack.stop()
    assert rc == 0, stack.log()
    log = stack.log_path.read_text(errors="replace")
    assert "fast serializer differs" not in log, log[-4000:]


@pytest.fixture(scope="session")
def manual_stack():
    """The real handlers on a manual clock: tests step game time (``StackProcess.astep``) instead of
    sleeping for it; seeded Scheduler duplicates (one in three)."""
    stack = start_stack("--duplicate-probability", "0.3", manual_clock=True, seed=SEED)
    yield stack
    rc = stack.stop()
    assert rc == 0, stack.log()


@pytest.fixture(scope="session")
def fake_stack():
    """The gateway around tiny fake handlers; every schedule is delivered twice; fast TTL."""
    stack = start_stack(*FAKE_HANDLERS, "--duplicate-probability", "1.0", "--ttl-lag", "20",
                        "--ttl-interval", "10", seed=SEED)
    yield stack
    rc = stack.stop()
    assert rc == 0, stack.log()
