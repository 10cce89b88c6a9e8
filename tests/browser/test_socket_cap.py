"""A seat keeps at most 4 sockets (review 7, docs/operations.md "Sockets per player"): the
fifth tab of the same seat gets in, the oldest tab is told so and waits for a tap instead of
reconnecting (it would push out another tab in turn); the tap takes the seat back there."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import Player


def test_a_fifth_tab_of_a_seat_replaces_the_oldest_which_waits_for_a_tap(browser, stack, console_errors):
    ann = Player(browser, stack.url, "Ann", errors=console_errors)
    code = ann.create()
    tabs = [ann.page]
    for i in range(4):
        stack.step(advance=1)  # each tab a game second after the last: "oldest" is well defined
        page = ann.context.new_page()
        page.on("pageerror", lambda e, i=i: console_errors.append(f"tab {i}: {e}"))
        page.goto(f"{stack.url}?room={code}")  # the seat kept in this browser
        expect(page.locator(".lobby-player")).to_have_count(1)
        tabs.append(page)

    oldest = tabs[0]
    use_here = oldest.locator("#conn-use-here")
    expect(use_here).to_be_visible()
    expect(oldest.locator("#conn-banner")).to_contain_text("too many tabs or devices")
    for page in tabs[1:]:
        expect(page.locator("#conn-banner")).to_be_hidden()

    # The tap takes the seat back here; now the second tab is the oldest and waits.
    use_here.click()
    expect(oldest.locator("#conn-banner")).to_be_hidden(timeout=15_000)
    expect(oldest.locator(".lobby-player")).to_have_count(1)
    expect(tabs[1].locator("#conn-use-here")).to_be_visible()
    for page in tabs[2:]:
        expect(page.locator("#conn-banner")).to_be_hidden()
    # The seat still works from the tab that came back.
    oldest.click("#add-bot-btn")
    for page in (oldest, tabs[2]):
        expect(page.locator(".lobby-player")).to_have_count(2)
    assert ann.missing_keys() == []
    ann.close()
