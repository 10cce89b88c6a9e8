"""Refusals a person meets before a game say what is wrong, in their language: a room code
of the wrong length, an option outside its range (which option, which range)."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import Player


def test_short_room_code_says_a_code_has_five_characters(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Ann", errors=console_errors)
    page = pl.page
    pl.open()
    page.fill("#join-code", "AB")
    page.fill("#join-name", "Ann")
    page.click("#join-btn")
    expect(page.locator("#join-error")).to_have_text("A room code has 5 letters or digits.")
    page.select_option("#lang-select", "ru")
    page.click("#join-btn")
    expect(page.locator("#join-error")).to_have_text("Код комнаты — 5 букв или цифр.")
    page.select_option("#lang-select", "en")
    pl.close()


def test_option_out_of_range_names_the_option_and_its_range(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Ann", errors=console_errors)
    page = pl.page
    pl.create()
    field = page.locator("#lobby-opt-nightSeconds")
    before = field.input_value()
    field.fill("5000")
    field.dispatch_event("change")
    expect(page.locator("#lobby-opt-nightSeconds-error")).to_have_text(
        "Night time: choose a whole number from 15 to 90."
    )
    expect(field).to_have_value(before)  # nothing was sent; the field shows the room's value
    field.fill("60")
    field.dispatch_event("change")
    expect(page.locator("#lobby-opt-nightSeconds-error")).to_have_text("")
    expect(page.locator("#lobby-opt-nightSeconds")).to_have_value("60")
    pl.close()
