"""The host's request card (web/js/game/substitute.js `seatRequestsBox`; docs/rules.md, "Public
rooms": one person, one seat) says when a newcomer shares a network with a seat of the room: the
server's boolean `sharesAddress`, never an address (ko/ru/en). From a scripted state: the
offline stack's every browser comes from 127.0.0.1, an address no seat keeps."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .scripted import Scripted, page_in, show
from .ui import foreign_words

SHARED = {
    "en": "Same network as a seat at this table",
    "ko": "이 테이블의 자리와 같은 네트워크",
    "ru": "Та же сеть, что и у одного из мест за этим столом",
}

NEWCOMERS = {"en": ("Twin", "Stranger"), "ko": ("민지", "준호"), "ru": ("Аня", "Борис")}


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_request_card_says_when_a_newcomer_shares_a_seats_network(browser, stack, console_errors, lang):
    g = Scripted("classic", ["mafia", "police", "doctor", "citizen", "citizen"], substitutes=True)
    view = g.view("p1")
    twin, stranger = NEWCOMERS[lang]
    view["room"].update(
        lang=lang,
        openSeats=[{"player": "p3", "seat": 3, "until": None}],
        substituted=[],
        seatRequests=[
            {"request": "r1", "player": "p3", "seat": 3, "name": twin, "at": 0.0, "sharesAddress": True},
            {"request": "r2", "player": "p3", "seat": 3, "name": stranger, "at": 0.0, "sharesAddress": False},
        ],
    )
    pl = page_in(browser, stack, lang, console_errors)
    try:
        page = pl.page
        assert show(page, view) == "game"
        shared = page.locator(".sub-request[data-request='r1'] .sub-shared")
        expect(shared).to_have_text(SHARED[lang])
        expect(page.locator(".sub-request[data-request='r2'] .sub-shared")).to_have_count(0)
        assert foreign_words(page, lang) == set() and pl.missing_keys() == []
    finally:
        pl.close()
