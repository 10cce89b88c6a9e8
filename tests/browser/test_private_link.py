"""A private link ("continue on another device") never silently drops a seat this browser
holds (review, side note): a browser keeps one seat per room, so a link for another open
seat of that room asks first, keeping the seat it has being the first answer; a link for the
same seat, or for a room whose kept seat is closed, seats the browser at once."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from .ui import Player


def kept_seat(pl: Player, code: str) -> dict:
    return pl.page.evaluate(f"() => JSON.parse(localStorage.getItem('mafia.seat.{code}'))")


def link_for(url: str, seat: dict) -> str:
    return f"{url}?room={seat['room']}#seat={seat['room']}.{seat['playerId']}.{seat['token']}"


def open_link(pl: Player, link: str) -> None:
    pl.page.goto("about:blank")
    pl.page.goto(link)


def test_a_link_for_another_seat_asks_before_replacing_the_seat_this_browser_holds(
    browser, stack, console_errors
):
    ann = Player(browser, stack.url, "Ann", errors=console_errors)
    code = ann.create()
    bob = Player(browser, stack.url, "Bob", errors=console_errors)
    bob.join(ann.page.locator("#share-link").input_value())
    ann_seat, bob_seat = kept_seat(ann, code), kept_seat(bob, code)
    ann_link = link_for(stack.url, ann_seat)

    # Ann's link opened in Bob's browser: asked; "keep" keeps Bob's seat and token.
    open_link(bob, ann_link)
    expect(bob.page.locator("#seat-choice")).to_be_visible()
    expect(bob.page.locator("#seat-choice-what")).to_contain_text(
        f"In room {code} this browser already plays as Bob"
    )
    expect(bob.page.locator("#seat-choice-what")).to_contain_text("another seat: Ann")
    assert kept_seat(bob, code)["token"] == bob_seat["token"]  # nothing replaced while asking
    assert "#" not in bob.page.url  # the token left the address bar at once
    bob.page.click("#seat-choice-keep")
    expect(bob.page.locator("#ready-btn")).to_be_visible()  # Bob's seat (Ann's would be the host's)
    expect(bob.page.locator("#start-btn")).to_have_count(0)
    assert kept_seat(bob, code)["token"] == bob_seat["token"]

    # Asked again, "switch" takes the link's seat (the player chose to forget Bob's).
    open_link(bob, ann_link)
    bob.page.click("#seat-choice-switch")
    expect(bob.page.locator("#start-btn")).to_be_visible()
    assert kept_seat(bob, code)["playerId"] == ann_seat["playerId"]

    # A link for the seat this browser already holds: no question.
    open_link(bob, ann_link)
    expect(bob.page.locator("#start-btn")).to_be_visible()
    expect(bob.page.locator("#seat-choice")).to_have_count(0)

    # A kept seat the room no longer has (left, removed): no question either.
    stale = {**bob_seat, "playerId": "p9", "token": "x" * 24}
    bob.page.evaluate(f"() => localStorage.setItem('mafia.seat.{code}', {json.dumps(json.dumps(stale))})")
    open_link(bob, link_for(stack.url, bob_seat))
    expect(bob.page.locator("#ready-btn")).to_be_visible()
    expect(bob.page.locator("#seat-choice")).to_have_count(0)
    assert kept_seat(bob, code)["token"] == bob_seat["token"]
    for pl in (ann, bob):
        assert pl.missing_keys() == [], pl.missing_keys()
        pl.close()
