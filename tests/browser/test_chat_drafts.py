"""The chat keeps one draft per channel: text half-typed in the mafia tab at night never goes
to the day chat the screen switches to at dawn, and it is back in the mafia tab (review 4)."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import FAST_OPTIONS, end_phase, seat_everyone, start_and_learn_roles

NAMES = ["Ann", "Bob", "Cat", "Dan"]

# The active tab and the input's text, read together: a push may switch the tab between reads.
CHAT_STATE_JS = """() => ({
  phase: document.querySelector('#phase-banner')?.dataset.kind || null,
  tab: document.querySelector('.chat-tab.active')?.dataset.channel || null,
  text: document.querySelector('#chat-input')?.value ?? null,
  disabled: document.querySelector('#chat-input')?.disabled ?? null,
})"""


def test_a_half_typed_mafia_line_stays_in_the_mafia_tab_when_day_comes(browser, stack, console_errors):
    # the manual clock: the night lasts until the test ends it, however slow the machine
    players = seat_everyone(browser, stack.url, NAMES, console_errors, options=FAST_OPTIONS)
    by_role = start_and_learn_roles(players)
    mafia = by_role["mafia"][0]
    other = next(pl for pl in players if pl is not mafia)
    secret = "they suspect Cat, kill Dan"
    end_phase(stack, players[0], "roleReveal")  # the cards were read, not all tapped
    for pl in players:
        pl.wait_phase("night")
    mafia.dismiss_cards()
    page = mafia.page
    expect(page.locator("#chat-tab-mafia")).to_have_attribute("aria-selected", "true")
    page.fill("#chat-input", secret)  # typed, not sent
    state = page.evaluate(CHAT_STATE_JS)
    assert state == {"phase": "night", "tab": "mafia", "text": secret, "disabled": False}, state

    # Dawn: the screen follows the day chat, with its own (empty) draft.
    end_phase(stack, mafia, "night")
    mafia.wait_phase("discussion")
    expect(page.locator("#chat-tab-day")).to_have_attribute("aria-selected", "true")
    state = page.evaluate(CHAT_STATE_JS)
    assert state == {"phase": "discussion", "tab": "day", "text": "", "disabled": False}, state
    page.focus("#chat-input")
    page.press("#chat-input", "Enter")  # nothing to send here
    marker = "good morning"
    mafia.say("day", marker)
    other.wait_phase("discussion")
    other.dismiss_cards()
    other.page.click("#chat-tab-day")
    log = other.page.locator("#chat-log")
    expect(log).to_contain_text(marker)  # sent after the Enter: anything from it came first
    assert secret not in log.inner_text()
    expect(page.locator("#chat-log")).not_to_contain_text(secret)

    # The mafia tab gives the draft back; the day tab keeps its own (empty after sending).
    page.click("#chat-tab-mafia")
    state = page.evaluate(CHAT_STATE_JS)
    assert state["tab"] == "mafia" and state["text"] == secret, state
    page.click("#chat-tab-day")
    page.fill("#chat-input", "half a day line")
    page.click("#chat-tab-mafia")
    assert page.evaluate(CHAT_STATE_JS)["text"] == secret
    page.click("#chat-tab-day")
    assert page.evaluate(CHAT_STATE_JS)["text"] == "half a day line"
    for pl in players:
        pl.close()
