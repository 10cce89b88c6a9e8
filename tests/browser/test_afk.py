"""Idle seats (docs/rules.md, "Idle seats"): the warning a seat one miss short of the room's
`afkLimit` reads at the top of its action panel, in ko/ru/en, drawn from a scripted view (the
rule itself, counted and applied, is tested at the functions tier: tests/functions/test_afk.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .scripted import Scripted, draw, page_in
from .test_table_round2 import CITY_SIX

WORDS = {
    "en": "Turns missed in a row: 2. Miss one more and someone else will play your seat.",
    "ru": "Вы пропустили ходов подряд: 2. Пропустите ещё один — и за ваше место будет играть другой.",
    "ko": "연속으로 2번 차례를 놓쳤습니다. 한 번 더 놓치면 다른 사람이 내 자리를 맡습니다.",
}


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_an_idle_seat_reads_the_warning_in_its_language_and_nobody_else_does(
    browser, stack, console_errors, lang
):
    g = Scripted("city", CITY_SIX, afkLimit=3)
    g.until("vote")
    warned = g.view("p2")
    warned["you"] = {**warned["you"], "afk": {"misses": 2, "limit": 3}}
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", warned)
    expect(pl.page.locator("#afk-warning")).to_have_text(WORDS[lang])
    draw(pl.page, "game", g.view("p1"))  # a seat without the mark: no warning
    expect(pl.page.locator("#actions")).to_be_visible()
    expect(pl.page.locator("#afk-warning")).to_have_count(0)
    pl.close()
