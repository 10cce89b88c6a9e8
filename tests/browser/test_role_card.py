"""The role card stays closed until its owner taps it, and "my role" opens it again.

Runs on the manual-clock stack: game time stands still, so the reveal (up to
roleRevealSeconds, 60 s) can only end the way these tests check, when every player has tapped
their card: the greeting starts when the last one does (docs/rules.md, "Room rules")."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import seat_everyone


def test_role_card_hidden_until_tapped(browser, stack, console_errors):
    players = seat_everyone(
        browser, stack.url, ["Ann", "Bob", "Cat", "Dan"], console_errors, options={}
    )
    players[0].click("#start-btn")
    pl = players[1]
    pl.wait_phase("roleReveal")
    page = pl.page
    expect(page.locator("#reveal-role-btn")).to_be_visible()
    expect(page.locator(".role-name")).to_have_count(0)  # nothing in the page until the tap
    page.click("#reveal-role-btn")
    expect(page.locator(".role-card .role-name")).to_be_visible()
    role = page.locator(".role-card .role-name").get_attribute("data-role")
    assert role in {"mafia", "police", "doctor", "citizen"}
    # Peek again from the top bar, close with Escape; focus returns to the button.
    page.click("#my-role-btn")
    expect(page.get_by_role("dialog")).to_be_visible()
    expect(page.locator(".overlay .role-name")).to_have_attribute("data-role", role)
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.locator("#my-role-btn")).to_be_focused()
    # Nobody else has tapped yet: the reveal waits for them, then ends at the last tap.
    expect(page.locator("#phase-banner")).to_have_attribute("data-kind", "roleReveal")
    for other in [p for p in players if p is not pl]:
        other.page.click("#reveal-role-btn")
    # Greeting day (firstPhase day): the same players, discussion tools for the living.
    pl.wait_phase("greeting")
    expect(page.locator("#phase-title")).to_have_text("Greetings")
    for p in players:
        p.close()


def test_team_mates_stay_hidden_until_the_role_card_is_tapped(browser, stack, console_errors):
    """Two mafiosi: before the tap no page shows a badge or a mafia mark on any tile; after
    it, each mafioso sees the other one's badge."""
    names = ["Ann", "Bob", "Cat", "Dan", "Eve"]
    players = seat_everyone(browser, stack.url, names, console_errors, options={"mafiaCount": "2"})
    players[0].click("#start-btn")
    for pl in players:
        pl.wait_phase("roleReveal")
        expect(pl.page.locator("#reveal-role-btn")).to_be_visible()
        expect(pl.page.locator(".tile-badge, .tile.rev-mafia, .tile-team")).to_have_count(0)
    mafiosi = 0
    for pl in players:
        # Tap and read in one step: the last tap ends the reveal, and the card goes with it.
        role = pl.page.evaluate(
            """() => {
                document.getElementById("reveal-role-btn").click();
                return document.querySelector(".role-card .role-name")?.getAttribute("data-role");
            }"""
        )
        if role == "mafia":
            mafiosi += 1
            expect(pl.page.locator(".tile.rev-mafia .tile-badge")).to_have_count(1)
        else:
            expect(pl.page.locator(".tile-badge")).to_have_count(0)
    assert mafiosi == 2
    for p in players:
        p.close()
