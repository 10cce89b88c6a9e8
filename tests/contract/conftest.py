"""The contract suite runs every registered preset through the same checks
(tests/contract/registry.py says which): a test that takes the ``preset`` argument runs once
per name in the engine's registry, read at collection with the test-only presets registered,
so a new preset joins the suite with no test code.

The room layer's fixture is the functions tier's for room rules (tests/functions/conftest.py,
`memstore`): the real handlers over the in-memory store and timers (harness/memory.py), a fake
gateway that records pushes, a step clock.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import env

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functions"))
env.apply()  # before boto3 and the handlers are imported

import registry  # noqa: E402
from fnkit import Api, Clock, FakeGateway  # noqa: E402

from harness import wiring  # noqa: E402
from harness.memory import memory_service  # noqa: E402
from service.features import fairness  # noqa: E402
from service.infra import clock  # noqa: E402


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "preset" in metafunc.fixturenames:
        metafunc.parametrize("preset", registry.names())


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    with registry.test_only_presets():
        yield


@pytest.fixture(autouse=True)
def room_seeds(monkeypatch, request):
    """Rooms draw each game's 256-bit secret with `fairness.new_secret` (the OS's CSPRNG);
    here each test draws them from its own fixed sequence (the injected-secret test mode), so
    a test whose course depends on the deal passes or fails every time."""
    drawn = random.Random(request.node.nodeid)
    monkeypatch.setattr(fairness, "new_secret", lambda: f"{drawn.getrandbits(256):064x}")


@pytest.fixture
def api(monkeypatch) -> Iterator[Api]:
    """A room-level driver over the real handlers, on the in-memory store, a fake gateway and a
    step clock."""
    c = Clock()
    monkeypatch.setattr(clock, "now", c)
    gateway = FakeGateway()
    service = memory_service(gateway)
    undo = wiring.inject(service)  # in place of the handlers' own (harness/wiring.py)
    try:
        yield Api(service, gateway, c)
    finally:
        undo()


def pytest_configure(config):
    # A request that only reads (sync, a refused frame) has no metric to publish.
    config.addinivalue_line("filterwarnings", "ignore:No application metrics to publish")
