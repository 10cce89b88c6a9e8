"""The contract suite runs every registered preset through the same checks: the built-in ones
(``mafia_engine.presets.BUILT_IN``) and the test-only ones (``tests/*/*preset.py`` modules with
``register`` / ``unregister``, like tests/unit/tinypreset.py).

A test takes the ``preset`` argument and is run once per name in the engine's registry, read at
collection with the test-only presets registered: a new preset joins the suite with no test code.
The test-only presets are registered around each test and removed after it, so the other tiers
(which run in the same process, see the Makefile's ``test``) see the registry they expect.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from harness import env
from mafia_engine.presets import BUILT_IN, PRESETS

TESTS = Path(__file__).resolve().parents[1]


def _load(path: Path) -> ModuleType | None:
    spec = importlib.util.spec_from_file_location(f"contract_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module if callable(getattr(module, "register", None)) and hasattr(module, "unregister") else None


# every test-only preset module once per process (re-executing one would build a second Preset)
TEST_ONLY: tuple[ModuleType, ...] = tuple(
    m for m in (_load(p) for p in sorted(TESTS.glob("*/*preset.py")) if not p.name.startswith("test_"))
    if m is not None
)


@contextlib.contextmanager
def test_only_presets() -> Iterator[None]:
    """The test-only presets registered for the duration (and none of them after)."""
    added = [m for m in TEST_ONLY if m.NAME not in PRESETS]
    for m in added:
        m.register()
    try:
        yield
    finally:
        for m in added:
            m.unregister()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "preset" in metafunc.fixturenames:
        with test_only_presets():
            names = list(PRESETS)
        metafunc.parametrize("preset", names)


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    with test_only_presets():
        yield


def rejoin_test_only() -> None:
    """Take the test-only presets out and back in, after the room layer has described a
    built-in one: a warm handler process that served rooms before a preset was registered
    (what a room of a newly registered preset meets, whatever ran before in this process)."""
    from service import views  # the room layer, once its environment is set (below)

    for m in TEST_ONLY:
        m.unregister()
    views.preset_info(next(iter(BUILT_IN)))
    for m in TEST_ONLY:
        m.register()


# --- the room layer: the functions tier's real handlers on moto (as tests/functions/conftest.py)
sys.path.insert(0, str(TESTS / "functions"))
env.apply()  # before boto3 and the handlers are imported

import boto3  # noqa: E402
from fnkit import Api, Clock, FakeGateway  # noqa: E402
from moto import mock_aws  # noqa: E402

from local import template  # noqa: E402
from service import clock, config  # noqa: E402


@pytest.fixture(autouse=True)
def room_seeds(monkeypatch, request):
    """A fixed sequence of game seeds per test (rooms draw theirs with ``secrets.randbits``)."""
    monkeypatch.setattr(secrets, "randbits", random.Random(request.node.nodeid).getrandbits)


@pytest.fixture
def api(monkeypatch) -> Iterator[Api]:
    """A room-level driver over the real handlers, on moto, a fake gateway and a step clock."""
    c = Clock()
    monkeypatch.setattr(clock, "now", c)
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, os.environ["TABLE_NAME"])
        boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
        gateway = FakeGateway()
        service = config.build_service(gateway=gateway)
        config.set_service(service)
        try:
            yield Api(service, gateway, c)
        finally:
            config.set_service(None)


def pytest_configure(config):
    # A request that only reads (sync, a refused frame) has no metric to publish.
    config.addinivalue_line("filterwarnings", "ignore:No application metrics to publish")
