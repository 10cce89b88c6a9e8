"""Fixtures for the handler tests: moto (`mock_aws`), the table from template.yaml, a fake
gateway that records pushes (moto's management API cannot answer Gone), a controllable clock.
A test of room rules marked `memstore` gets its service on the in-memory store and timers
(harness/memory.py) instead of moto: storage semantics are the store contract's
(test_store_contract.py, both stores), the handlers' own tests and the stacks stay on moto.
"""

from __future__ import annotations

import random

import pytest

from harness import env  # noqa: E402 - stdlib only: before boto3 and the handlers

env.apply()

from fnkit import Api, Clock, FakeGateway  # noqa: E402

from harness import wiring  # noqa: E402
from harness.emulator import with_fixes  # noqa: E402
from harness.memory import memory_service  # noqa: E402
from service import config  # noqa: E402
from service.features import fairness  # noqa: E402
from service.infra import clock  # noqa: E402


@pytest.fixture(autouse=True)
def room_seeds(monkeypatch, request):
    """Rooms draw each game's 256-bit secret with `fairness.new_secret` (the OS's CSPRNG);
    here each test draws them from its own fixed sequence (the injected-secret test mode), so
    a test whose course depends on the deal passes or fails every time."""
    drawn = random.Random(request.node.nodeid)
    monkeypatch.setattr(fairness, "new_secret", lambda: f"{drawn.getrandbits(256):064x}")


@pytest.fixture
def fake_clock(monkeypatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(clock, "now", c)
    return c


@pytest.fixture
def aws(request, monkeypatch, account):
    """moto with the offline stack's fixes (local/moto_fixes.py: emulator only, the handlers
    are untouched; `make dev` runs on the same), about twice as fast; a test marked
    `plain_moto` gets moto as released, one marked `fresh_aws` an account of its own (an
    empty table and schedule group, no queues)."""
    if request.node.get_closest_marker("plain_moto") is None:
        with_fixes(monkeypatch)  # plain moto again after the test
    if request.node.get_closest_marker("fresh_aws") is not None:
        account.restart()
    yield account.ddb
    account.forget_connections()


@pytest.fixture
def gateway() -> FakeGateway:
    return FakeGateway()


@pytest.fixture
def svc(request, gateway, fake_clock):
    mark = request.node.get_closest_marker("memstore")  # `memstore(False)`: this test on moto
    if mark is not None and (not mark.args or mark.args[0]):
        service = memory_service(gateway)  # a room-rule test: no moto
    else:
        request.getfixturevalue("aws")
        service = config.build_service(gateway=gateway)
    undo = wiring.inject(service)  # in place of the handlers' own (harness/wiring.py)
    yield service
    undo()


@pytest.fixture
def api(svc, gateway, fake_clock):
    return Api(svc, gateway, fake_clock)


def pytest_collection_modifyitems(config, items):
    """HANDLERS_SHARD=k/n (`make test`, `make check`): only the files of shard k
    (tests/functions/shards.py; `make check`'s tests without `whole_game` by their own figures)."""
    from tests.functions import shards
    from tests.shards import select

    if "not whole_game" in (config.getoption("markexpr") or ""):
        select(config, items, "HANDLERS_SHARD", shards.QUICK_SECONDS, shards.QUICK_DEFAULT_PER_TEST)
    else:
        select(config, items, "HANDLERS_SHARD", shards.SECONDS, shards.DEFAULT_PER_TEST)


def pytest_configure(config):
    # A request that only reads (sync, a refused frame) has no metric to publish.
    config.addinivalue_line("filterwarnings", "ignore:No application metrics to publish")
