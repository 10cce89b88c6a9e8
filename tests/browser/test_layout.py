"""Phones from 320 to 430 px wide with the longest name (20 characters): nothing widens the
page, the Send button stays beside the chat input, a message being typed survives the next
phase, and the announcements sit under the phase banner without covering it or the chat."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .ui import Player

LONGEST = "Wolfgang Maximiliano"  # 20 characters, the maximum a name may have
assert len(LONGEST) == 20

OVERFLOW_JS = """() => {
  const w = window.innerWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter((e) => e.getClientRects().length && getComputedStyle(e).position !== 'fixed')
    .filter((e) => !e.closest('.sr-only, .skip-link'))
    .filter((e) => e.getBoundingClientRect().right > w + 1)
    .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
  return {scroll: document.documentElement.scrollWidth, width: w, wide: wide.slice(0, 5)};
}"""


def assert_fits(pl: Player, where: str) -> None:
    got = pl.page.evaluate(OVERFLOW_JS)
    assert got["scroll"] <= got["width"] and not got["wide"], f"{where}: wider than the screen: {got}"


def box(pl: Player, selector: str) -> dict:
    b = pl.page.locator(selector).bounding_box()
    assert b, selector
    return b


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("width,height", [(320, 640), (390, 844)])
def test_longest_name_fits_a_phone_and_the_chat_stays_usable(browser, stack, console_errors, width, height):
    pl = Player(
        browser, stack.url, LONGEST, viewport={"width": width, "height": height}, errors=console_errors
    )
    page = pl.page
    pl.open()
    page.fill("#create-name", LONGEST)
    page.locator(".home-details summary").click()
    page.locator("#home-opt-nightSeconds").fill("20")
    page.locator("#home-opt-nightSeconds").dispatch_event("change")
    assert_fits(pl, "home")
    page.click("#create-btn")
    expect(page.locator(".lobby-player")).to_have_count(1)
    # Too few players: Start is off and the lobby says why, with the numbers.
    expect(page.locator("#start-btn")).to_be_disabled()
    expect(page.locator("#setup-error")).to_contain_text("at least")
    for n in range(4):
        page.click("#add-bot-btn")
        expect(page.locator(".lobby-player")).to_have_count(n + 2)
    expect(page.locator("#start-btn")).to_be_enabled()
    assert_fits(pl, "lobby")
    page.click("#start-btn")
    pl.wait_phase("greeting", timeout=15_000)
    expect(page.locator(".tile.me .tile-name")).to_have_attribute("title", LONGEST)
    assert_fits(pl, "greeting")

    # The role dialog fits too.
    page.click("#my-role-btn")
    dialog = box(pl, ".overlay .role-card")
    assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= width, dialog
    page.keyboard.press("Escape")

    # Send sits beside the input, inside the screen.
    page.click("#chat-tab-day")
    field, send = box(pl, "#chat-input"), box(pl, "#chat-send")
    assert abs((field["y"] + field["height"] / 2) - (send["y"] + send["height"] / 2)) < 4, (field, send)
    assert send["x"] >= field["x"] + field["width"] and send["x"] + send["width"] <= width, (field, send)

    # Half a message survives the views the bots push and the fall of night.
    page.fill("#chat-input", "I think the quiet one")
    pl.click("#ready-early-btn")
    pl.wait_phase("night", timeout=30_000)
    expect(page.locator("#chat-input")).to_have_value("I think the quiet one")
    # Night fall has its sound cue (muted here: browsers under test start muted).
    assert {"cue": "night", "played": False} in page.evaluate("() => window.__cues")
    expect(page.locator(".tile-votes")).to_have_count(0)
    assert_fits(pl, "night")

    # Morning: the news is a card inside the banner, under the title and the clock; it covers
    # neither them nor the chat tabs.
    expect(page.locator("#phase-banner")).not_to_have_attribute("data-kind", "night", timeout=30_000)
    card = page.locator("#event-slot .event-card")
    if card.count():
        c = box(pl, "#event-slot .event-card")
        for part in ("#phase-title", "#countdown"):
            assert not overlaps(c, box(pl, part)), f"the card covers {part}"
        # The chat tabs still take a tap (Playwright fails a click on a covered element).
        page.locator("#chat-tab-day").click(trial=True, timeout=3000)
        page.locator("#chat-tab-system").click(trial=True, timeout=3000)
    assert_fits(pl, "day 2")
    assert pl.missing_keys() == [], pl.missing_keys()
    pl.close()
