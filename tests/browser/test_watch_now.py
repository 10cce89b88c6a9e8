"""Watch now on the home screen (docs/rules.md, "Public rooms"): under Play now, the running public
games of the interface language; a watcher taps one and the page opens its spectator view, which
shows the game's aliases, never a real name (ko/ru/en). The game is a live one on the stack
(local/rooms.py); the list's answer is scripted (its rules are tests/functions/test_watch_now.py's),
so the row shows whatever game the test names, without a second page keeping a seat connected."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from .live import bots, live_room
from .scripted import LOCALES
from .ui import Player, foreign_words

TITLES = {"en": "Watch now", "ko": "지금 관전하기", "ru": "Смотреть сейчас"}
PLAYERS = {"en": "Players: 5", "ko": "참가자 5명", "ru": "Игроков: 5"}
REAL_NAME = "Zenobia"


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_a_watcher_opens_a_live_game_from_watch_now(stack, browser, console_errors, lang):
    room = live_room(
        stack,
        preset="classic",
        lang=lang,
        options={"public": True},
        seats=[{"name": REAL_NAME}, *bots(4, lang=lang)],
    )
    code = room["roomCode"]
    answer = {
        "rooms": [{"roomCode": code, "lang": lang, "preset": "classic", "seats": 5, "maxPlayers": 12, "status": "running"}],
        "cursor": None,
    }
    asked: list[str] = []
    pl = Player(browser, stack.url, "Watcher", locale=LOCALES[lang], errors=console_errors)
    try:
        p = pl.page

        def scripted(route):
            asked.append(route.request.url)
            route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))

        p.route("**/api/rooms?public=1&watch=1*", scripted)
        pl.open()
        titles = p.locator(".home h2:visible").all_inner_texts()  # what the player sees (the ranked card waits for a sign-in)
        # Play now first, then the open rooms, then Watch now
        assert titles.index(TITLES[lang]) == 2, titles
        row = p.locator(f".watch-game[data-room='{code}']")
        expect(row).to_be_visible()
        expect(row.locator(".public-seats")).to_have_text(PLAYERS[lang])
        assert f"lang={lang}" in asked[0]
        assert foreign_words(p, lang) == set() and pl.missing_keys() == [] and pl.unnamed_controls() == []
        row.locator("button").click()
        # the spectator view of that game: its phase, no seat of one's own, aliases only
        expect(p.locator("#phase-banner")).to_be_visible(timeout=15_000)
        assert code in p.url
        expect(p.locator("#my-role-btn")).to_be_hidden()  # a spectator holds no seat, no role
        expect(p.locator(".tile")).to_have_count(5)
        assert REAL_NAME not in p.locator("body").inner_text()
        assert foreign_words(p, lang) == set() and pl.missing_keys() == []
    finally:
        pl.close()
