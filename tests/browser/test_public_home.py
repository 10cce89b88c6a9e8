"""Public rooms on the home screen (docs/rules.md, "Public rooms"): Play now first, then the open
rooms of the interface language (words and layout in ko/ru/en at 320 and 430 px); two strangers
press Play now, land in the same room, and it starts by itself with bots filling seats."""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from .ui import Player, foreign_words

LOCALES = {"ko": "ko-KR", "ru": "ru-RU", "en": "en-US"}
HEADINGS = {
    "en": ("Play now", "Open rooms"),
    "ko": ("바로 플레이", "공개 방"),
    "ru": ("Играть сейчас", "Открытые комнаты"),
}


def rest(stack, method: str, path: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(
        stack.url + "api" + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Origin": stack.url.rstrip("/")},
    )
    with urllib.request.urlopen(req, timeout=60) as res:  # noqa: S310 - our own 127.0.0.1 stack
        return json.loads(res.read())


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_home_puts_play_now_first_then_the_open_rooms_of_the_language(stack, browser, console_errors, lang):
    made = rest(
        stack,
        "POST",
        "/rooms",
        {"name": "Hana", "preset": "original", "lang": lang, "options": {"public": True}},
    )
    code = made["roomCode"]
    for width in (320, 430):
        pl = Player(
            browser,
            stack.url,
            "Mina",
            viewport={"width": width, "height": 800},
            locale=LOCALES[lang],
            errors=console_errors,
        )
        try:
            p = pl.page
            pl.open()
            cards = p.locator(".home > .card")
            expect(cards.first).to_have_class("card play-now")
            titles = p.locator(".home h2").all_inner_texts()
            assert titles[:2] == list(HEADINGS[lang]), titles
            row = p.locator(f".public-room[data-room='{code}']")
            expect(row).to_be_visible()
            seats = {"en": "1 of 16 seats", "ko": "16자리 중 1자리", "ru": "1 из 16 мест"}[lang]
            expect(row.locator(".public-seats")).to_have_text(seats)
            # nothing wider than the screen, every word in the language, no key shown
            overflow = p.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 0, (width, overflow)
            assert foreign_words(p, lang) == set()
            assert pl.missing_keys() == []
            assert p.locator("#create-public").is_visible()
            assert pl.unnamed_controls() == []
            p.screenshot(path=f"/tmp/public-home-{lang}-{width}.png", full_page=True)
        finally:
            pl.close()


def test_two_strangers_press_play_now_land_together_and_it_starts_by_itself(stack, browser, console_errors):
    players = [
        Player(browser, stack.url, name, locale="ru-RU", errors=console_errors)
        for name in ("Ann", "Bob", "Cid", "Dan")
    ]
    try:
        codes = []
        for pl in players:
            pl.open()
            pl.page.fill("#play-name", pl.name)
            pl.page.select_option("#play-preset", "city")
            pl.page.click("#play-now-btn")
            expect(pl.page.locator(".lobby-player").first).to_be_visible()
            codes.append(pl.page.locator("#room-chip").inner_text().strip())
        assert len(set(codes)) == 1, codes  # the same room: the fullest open one
        first = players[0].page
        expect(first.locator("#public-note")).to_be_visible()
        expect(first.locator("#auto-start")).to_contain_text("Начнётся сама через")
        assert rest(stack, "GET", "/rooms?public=1&lang=ru&preset=city")["rooms"][0]["roomCode"] == codes[0]
        # the countdown ends; the Scheduler's delivery (or a nudge) starts the game with bots
        stack.step(advance=16)
        for _ in range(4):
            if rest(stack, "GET", f"/rooms/{codes[0]}")["status"] == "running":
                break
            stack.step_on()
        summary = rest(stack, "GET", f"/rooms/{codes[0]}")
        assert summary["status"] == "running"
        assert len(summary["players"]) == 8  # four people, four bots (city needs five or more)
        for pl in players:
            expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
        listed = rest(stack, "GET", "/rooms?public=1&lang=ru&preset=city")["rooms"]
        assert codes[0] not in [r["roomCode"] for r in listed]  # it left the list when it started
    finally:
        for pl in players:
            pl.close()
