"""The city and original rulebooks through the client: one person and bots play until the end
(or a time limit), answering whatever the action panel asks. No console errors, no missing
translation keys, and every phase kind gets a title."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from .stack import Stack
from .ui import Player

# Caps on real time (the suite stays under four minutes): a city game often ends within
# them; the original one is longer, so it plays its first night and day and stops.
PLAY_SECONDS = {"city": 40, "original": 35}


@pytest.fixture(scope="module")
def fast_stack():
    """Bots and one quick person: game clocks ten times faster."""
    s = Stack(time_scale=10.0)
    yield s
    s.stop()


def try_click(loc) -> bool:
    """Click if it is still there: the next view may redraw the panel at any moment."""
    try:
        loc.click(timeout=1500)
        return True
    except PlaywrightError:
        return False


def answer_once(pl: Player) -> str | None:
    """Do the first thing the screen asks for; returns what was done."""
    page = pl.page
    pl.dismiss_cards()
    for selector in ("#reveal-role-btn", "#end-turn-btn", "#yes-btn", "#no-nomination-btn"):
        loc = page.locator(f"{selector}:enabled:not([aria-pressed=true])")
        if loc.count() and try_click(loc.first):
            return selector
    tiles = page.locator(".tile.selectable:not(.chosen)")
    if tiles.count() and try_click(tiles.first):
        return "tile"
    for selector in ("#sleep-btn", "#ready-early-btn"):
        loc = page.locator(f"{selector}:enabled")
        if loc.count() and try_click(loc.first):
            return selector
    return None


@pytest.mark.parametrize(("preset", "bots"), [("city", 4), ("original", 7)])
def test_one_person_and_bots_play_a_preset(browser, fast_stack, console_errors, preset, bots):
    pl = Player(browser, fast_stack.url, "Ann", errors=console_errors)
    pl.open()
    pl.page.fill("#create-name", pl.name)
    pl.page.select_option("#create-preset", preset)
    pl.page.click("#create-btn")
    expect(pl.page.locator(".lobby-player")).to_have_count(1)
    for n in range(bots):
        pl.page.click("#add-bot-btn")
        expect(pl.page.locator(".lobby-player")).to_have_count(n + 2)
    pl.page.click("#start-btn")
    expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)

    kinds: set[str] = set()
    deadline = time.monotonic() + PLAY_SECONDS[preset]
    while time.monotonic() < deadline:
        if pl.page.locator("#end-title").count():
            break
        kind = pl.phase()
        if kind:
            kinds.add(kind)
            title = pl.page.locator("#phase-title").inner_text()
            assert title and title != "Next step", f"{preset}: no title for phase {kind!r}"
        if answer_once(pl) is None:
            pl.page.wait_for_timeout(200)
    assert {"roleReveal", "night"} <= kinds, kinds
    if preset == "original":
        assert "speech" in kinds, kinds
    assert pl.missing_keys() == [], pl.missing_keys()
    if pl.page.locator("#end-title").count():
        expect(pl.page.locator("#end-roles li")).to_have_count(bots + 1)
    pl.close()
