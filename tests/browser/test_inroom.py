"""Phones in the same room (web/js/game/inroom.js; docs/rules.md, "A screen for the room"): with a screen connected
(`room.screens`, functions/service/room/displays.py `count`), the game screen offers "In the room";
in that mode the phone keeps the role, the task and the vote, and the seat grid and the chat
fold away (one tap brings each back). Drawn from scripted states at 390x844 in ko/ru/en."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .axe import audit, blocking
from .scripted import UPDATE, Scripted, draw, page_in
from .test_table_round2 import CITY_SIX

WORDS = {"en": "In the room", "ko": "같은 방에서", "ru": "В одной комнате"}


def with_screens(view: dict, n: int) -> dict:
    view["room"]["screens"] = n
    return view


def ready(browser, stack, lang: str, errors: list[str]):
    """A page in `lang` whose own first screen has drawn (so it does not draw over ours)."""
    pl = page_in(browser, stack, lang, errors)
    expect(pl.page.locator("#main h1").first).to_be_visible()
    return pl


def city_discussion() -> Scripted:
    g = Scripted("city", CITY_SIX)
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    return g


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_with_a_screen_the_phone_folds_the_table_and_keeps_the_task_and_the_vote(
    browser, stack, console_errors, lang
):
    g = city_discussion()
    pl = ready(browser, stack, lang, console_errors)
    page = pl.page
    page.evaluate("() => localStorage.removeItem('mafia.inroom')")
    draw(page, "game", with_screens(g.view("p4"), 1))
    toggle = page.locator("#in-room-btn")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_text(WORDS[lang])
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator(".players-panel")).to_be_visible()
    expect(page.locator("#chat-log")).to_be_visible()

    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".players-panel")).to_be_hidden()
    expect(page.locator("#chat-log")).to_be_hidden()
    expect(page.locator("#actions")).to_be_visible()
    expect(page.locator("#actions")).not_to_be_empty()
    assert page.evaluate("localStorage.getItem('mafia.inroom')") == "1"  # kept on this device
    assert blocking(audit(page)) == []  # the compact screen, for a screen reader too

    # one tap brings the seats back, one more folds them again
    seats = page.locator("#in-room-players")
    seats.click()
    expect(page.locator(".players-panel")).to_be_visible()
    expect(seats).to_have_attribute("aria-expanded", "true")
    seats.click()
    expect(page.locator(".players-panel")).to_be_hidden()
    page.locator("#in-room-chat").click()
    expect(page.locator("#chat-log")).to_be_visible()
    page.locator("#in-room-chat").click()
    expect(page.locator("#chat-log")).to_be_hidden()

    # the vote: the tiles to tap are this player's vote, so the grid shows in the compact mode
    g.timeout()
    assert g.kind == "vote"
    page.evaluate(UPDATE, with_screens(g.view("p4"), 1))
    expect(page.locator(".players-panel")).to_be_visible()
    expect(page.locator(".tile.selectable").first).to_be_visible()
    expect(page.locator("#chat-log")).to_be_hidden()
    expect(page.locator("#in-room-players")).to_be_hidden()

    # the screen goes: no toggle, the whole table is back (the choice stays on the device)
    page.evaluate(UPDATE, with_screens(g.view("p4"), 0))
    expect(toggle).to_be_hidden()
    expect(page.locator(".players-panel")).to_be_visible()
    expect(page.locator("#chat-log")).to_be_visible()
    # the screen again: the device remembers the mode; a tap on the toggle turns it off
    page.evaluate(UPDATE, with_screens(g.view("p4"), 1))
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#chat-log")).to_be_hidden()
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#chat-log")).to_be_visible()
    expect(page.locator("#in-room-chat")).to_be_hidden()
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_without_a_screen_there_is_no_in_the_room_toggle(browser, stack, console_errors, lang):
    g = city_discussion()
    pl = ready(browser, stack, lang, console_errors)
    page = pl.page
    page.evaluate("() => localStorage.setItem('mafia.inroom', '1')")  # wanted, but no screen
    draw(page, "game", with_screens(g.view("p4"), 0))
    expect(page.locator("#phase-title")).to_be_visible()
    expect(page.locator("#in-room-btn")).to_be_hidden()
    expect(page.locator(".players-panel")).to_be_visible()
    expect(page.locator("#chat-log")).to_be_visible()
    # a view without the fact at all (an older server) reads as no screen
    view = g.view("p4")
    view["room"].pop("screens", None)
    page.evaluate(UPDATE, view)
    expect(page.locator("#in-room-btn")).to_be_hidden()
    pl.close()
