"""Browser tests: Playwright (Python) driving Debian's Chromium against the real offline stack.

A missing Chromium is a failure with the command that installs it, never a skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from . import shards
from .scripted import pooled_pages
from .stack import CHROMIUM, CHROMIUM_ARGS, MEDIA_CHROMIUM, MISSING_CHROMIUM, Stack

# A page's wait for a push (5 s by default): the tiers run side by side on two shared cores
# (Makefile `test`), where one write and its fan-out took over 5 s under load.
expect.set_options(timeout=10_000)

# Every browser test but one runs on `stack`, a manual clock: game time moves only when the
# test steps it, so a loaded machine makes a test slower, never its game different. The one
# (`timed_stack`, test_game.py) plays on a scaled clock, where the page's own countdown and
# nudge end a phase: the timing path stays covered (as the e2e soak covers it for bots).
TIME_SCALE = float(os.environ.get("BROWSER_TIME_SCALE", "5"))


def pytest_collection_modifyitems(config, items):
    """BROWSER_SHARD=k/n (`make test`): only the files of shard k (tests/browser/shards.py)."""
    from tests.shards import select

    select(config, items, "BROWSER_SHARD", shards.SECONDS, shards.DEFAULT_PER_TEST)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report carries the end of each offline stack's log it used (a page stuck
    at "Connecting…" is told apart from one whose push was slow by what the stack said)."""
    report = yield
    if report.failed:
        for name, value in getattr(item, "funcargs", {}).items():
            if isinstance(value, Stack):
                try:
                    said = value.log()
                except OSError as exc:
                    said = f"unreadable: {exc}"
                if said.strip():  # a quiet stack logs nothing: no empty section
                    report.sections.append((f"stack log ({name}, its end)", said))
    return report


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    return CHROMIUM


@pytest.fixture(scope="session")
def media_chromium_path() -> str:
    """The full Chromium, for the pages whose voice goes through the TURN relay (test_voice_turn.py:
    its candidate gathering is a phone's; the other voice pages run in the headless shell)."""
    if not Path(MEDIA_CHROMIUM).exists():
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    return MEDIA_CHROMIUM


@pytest.fixture(scope="session")
def stack():
    """The stack on a manual clock: game time moves only by ``stack.step(advance=N)`` or
    ``step(to="next")`` (the next Scheduler delivery); seeded Scheduler jitter."""
    s = Stack(manual_clock=True, seed=22)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def timed_stack():
    """The stack on a clock running TIME_SCALE times real time (test_game.py only); seeded
    Scheduler jitter."""
    s = Stack(time_scale=TIME_SCALE, seed=22)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def browser(chromium_path):
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module", autouse=True)
def page_pool():
    """A module's scripted-state tests reuse its booted pages (scripted.py, `page_in`)."""
    with pooled_pages():
        yield


@pytest.fixture
def console_errors():
    """Every console error and uncaught exception of the test's pages; must stay empty."""
    errors: list[str] = []
    yield errors
    assert errors == [], "console errors:\n" + "\n".join(errors)
