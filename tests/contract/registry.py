"""Every registered preset for the contract suite: the built-in ones
(``mafia_engine.presets.BUILT_IN``) and the test-only ones (``tests/*/*preset.py`` modules with
``register`` / ``unregister``, like tests/unit/tinypreset.py), which are registered only while
a contract test runs (tests/contract/conftest.py), so the other tiers in the same process see
the registry they expect.

Imported after the handlers' environment is set (``harness.env``): it reads the room layer.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from mafia_engine.presets import BUILT_IN, PRESETS
from service.protocol import views

TESTS = Path(__file__).resolve().parents[1]


def _load(path: Path) -> ModuleType | None:
    spec = importlib.util.spec_from_file_location(f"contract_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module if callable(getattr(module, "register", None)) and hasattr(module, "unregister") else None


# every test-only preset module once per process (re-executing one would build a second Preset)
TEST_ONLY: tuple[ModuleType, ...] = tuple(
    m
    for m in (_load(p) for p in sorted(TESTS.glob("*/*preset.py")) if not p.name.startswith("test_"))
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


def names() -> list[str]:
    """Every preset the suite covers, in the registry's order."""
    with test_only_presets():
        return list(PRESETS)


def rejoin_test_only() -> None:
    """Take the test-only presets out and back in, after the room layer has described a
    built-in one: a warm handler process that served rooms before a preset was registered
    (what a room of a newly registered preset meets, whatever ran before in this process)."""
    for m in TEST_ONLY:
        m.unregister()
    views.preset_info(next(iter(BUILT_IN)))
    for m in TEST_ONLY:
        m.register()
