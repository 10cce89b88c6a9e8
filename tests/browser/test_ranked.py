"""Ranked play's screens from scripted states (docs/rules.md, "Ranked play"; web/js/screens/
ranked.js): the end's tier move and the ladder sheet, and a ranked lobby's widening band, in
ko, ru and en. The rules themselves are the functions tier's (tests/functions/test_ranked.py)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from .scripted import Scripted, draw, lobby_view, page_in, show

MOVED_UP = {"en": "Up to", "ko": "승급", "ru": "Повышение"}
GOLD = {"en": "Gold", "ko": "골드", "ru": "Золото"}
BAND = {"en": "±", "ko": "±", "ru": "±"}


def ended_ranked_view() -> dict:
    """An ended classic game's view for p1 (the town won), with the end's `room.ranked`."""
    g = Scripted("classic", ["mafia", "citizen", "citizen", "citizen", "citizen"])
    v = g.view("p1")
    sides = {"p1": "mafia", "p2": "town", "p3": "town", "p4": "town", "p5": "town"}
    v["phase"] = {**v["phase"], "kind": "ended", "endsAt": None}
    v["result"] = {
        "winner": "town",
        "cause": "vote",
        "days": 2,
        "players": [
            {"id": pid, "role": "mafia" if side == "mafia" else "citizen", "team": side, "alive": side == "town",
             "diedDay": 2 if side == "mafia" else None, "diedBy": "vote" if side == "mafia" else None, "won": side == "town"}
            for pid, side in sides.items()
        ],
        "ranking": ["p2", "p3", "p4", "p5", "p1"],
        "summary": "",
        "mvp": None,
    }  # fmt: skip
    v["room"]["status"] = "ended"
    before = {"points": 1430, "tier": "silver", "placementLeft": 0, "games": 9}
    after = {"points": 1462, "tier": "gold", "placementLeft": 0, "games": 10}
    row = {"seat": "p2", "handle": "0123456789abcdef", "after": after, "delta": 32, "won": True}
    v["room"]["ranked"] = {"season": "2026-12", "table": [row], "you": {**row, "before": before}}
    v["you"] = {**(v.get("you") or {}), "id": "p2"}
    return v


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_end_of_a_ranked_game_shows_the_tier_move_and_opens_the_ladder(
    browser, stack, console_errors, lang
):
    pl = page_in(browser, stack, lang, console_errors)
    page = pl.page
    draw(page, "end", ended_ranked_view())
    move = page.locator("#ranked-move")
    expect(move).to_be_visible()
    expect(move).to_have_attribute("data-delta", "32")
    text = move.inner_text()
    assert MOVED_UP[lang] in text and GOLD[lang] in text and "+32" in text and "ranked." not in text
    # the season's ladder, read from the stack: empty (its one line says so) or holding the
    # people of a ranked game another test of the session played (test_ranked_game.py)
    page.click("#ranked-ladder-btn")
    expect(page.locator("#ladder-season")).to_contain_text("20")
    expect(page.locator("#ladder-rows li").first).to_be_visible()
    assert "ranked." not in page.locator("#ladder-sheet").inner_text()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_a_ranked_lobby_states_its_band_as_it_widens(browser, stack, console_errors, lang):
    pl = page_in(browser, stack, lang, console_errors)
    page = pl.page
    view = lobby_view("classic", ["Ann", "Bob"], "p1", options={"public": True}, lang=lang)
    # the band as the server states it: 100 points, 10 more a second, at most 1000; since 30 s ago
    view["room"]["ranked"] = {"band": {"since": time.time() - 30, "start": 100, "perSecond": 10, "max": 1000}}
    draw(page, "lobby", view, seated=True)
    band = page.locator("#ranked-band")
    expect(band).to_be_visible()
    width = int(band.get_attribute("data-band"))
    assert 390 <= width <= 1000  # 100 + 10 x (30 s and the page's own seconds), never past the cap
    assert BAND[lang] in band.inner_text() and "ranked." not in band.inner_text()


def test_play_ranked_shows_on_the_home_screen_when_signed_in(browser, stack, console_errors):
    pl = page_in(browser, stack, "ko", console_errors)
    page = pl.page
    expect(page.locator("#ranked-card")).to_be_hidden()  # not signed in: no "Play ranked"
    kept = {"session": "s", "person": "x", "expires": time.time() + 3600}  # as screens/account.js keeps it
    page.evaluate("(v) => localStorage.setItem('mafia.signIn', JSON.stringify(v))", kept)
    show(page, None)  # the home screen drawn again
    expect(page.locator("#ranked-btn")).to_have_text("랭크 게임 하기")
    expect(page.locator("#ladder-btn")).to_have_text("순위표")
    page.evaluate("() => localStorage.removeItem('mafia.signIn')")
    show(page, None)
    expect(page.locator("#ranked-card")).to_be_hidden()
