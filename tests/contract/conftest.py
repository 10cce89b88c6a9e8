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
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from mafia_engine.presets import PRESETS

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
