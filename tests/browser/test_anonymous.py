"""Anonymous games as players see them (docs/rules.md, "Anonymous games"): the host ticks the
option, the table plays under aliases in the viewer's language with "you" on their own tile,
no real name is on anyone's screen until the end, and the end screen shows alias and name."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .ui import FAST_OPTIONS, MOBILE, Player, play_classic, start_and_learn_roles

NAMES = ["Annabelle", "Borislav", "Chiaroscuro", "Dmitrievna", "Esmeralda"]
LOCALES = {"en": "en-US", "ko": "ko-KR", "ru": "ru-RU"}
YOU = {"en": "You · ", "ko": "나 · ", "ru": "Вы · "}
SCRIPT = {
    "en": re.compile(r"^[A-Z][a-z]+ [A-Z][a-z]+$"),
    "ko": re.compile(r"^[가-힣 ]+$"),
    "ru": re.compile(r"^[А-ЯЁа-яё ]+$"),
}


def anonymous_table(browser, url: str, lang: str, errors: list[str]) -> list[Player]:
    host = Player(browser, url, NAMES[0], viewport=MOBILE, locale=LOCALES[lang], errors=errors)
    p = host.page
    host.open()
    p.fill("#create-name", host.name)
    p.locator(".home-details summary").click()
    for key, value in FAST_OPTIONS.items():
        control = p.locator(f"#home-opt-{key}")
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)
            control.dispatch_event("change")
    p.locator("#home-opt-anonymous").check()  # the host option, labelled in the viewer's language
    p.click("#create-btn")
    expect(p.locator(".lobby-player")).to_have_count(
        1, timeout=20_000
    )  # 2 shared cores: connecting can be slow
    link = p.locator("#share-link").input_value()
    players = [host]
    for name in NAMES[1:]:
        guest = Player(browser, url, name, locale=LOCALES[lang], errors=errors)
        guest.join(link)
        guest.ready()
        players.append(guest)
    expect(p.locator(".lobby-player.is-ready")).to_have_count(len(NAMES) - 1)
    return players


def check_masked(pl: Player, lang: str) -> None:
    """No real name anywhere on the page; every tile an alias in `lang`, the own one "you"."""
    page = pl.page
    text = page.locator("body").inner_text()
    assert not [n for n in NAMES if n in text], (pl.name, text[:300])
    tiles = page.locator(".tile .tile-name")
    names = [tiles.nth(i).inner_text() for i in range(tiles.count())]
    assert len(names) == len(NAMES)
    mine = page.locator(".tile.me .tile-name").inner_text()
    assert mine.startswith(YOU[lang]), mine
    for name in names:
        alias = name.removeprefix(YOU[lang])
        assert SCRIPT[lang].match(alias), (lang, name)
    assert len(set(names)) == len(NAMES)


@pytest.mark.parametrize("lang", ["ko", "ru"])
def test_an_anonymous_table_sees_aliases_in_its_language(browser, stack, console_errors, lang):
    players = anonymous_table(browser, stack.url, lang, console_errors)
    try:
        players[0].click("#start-btn")
        for pl in players:
            expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
            pl.dismiss_cards()
            check_masked(pl, lang)
    finally:
        for pl in players:
            pl.close()


def test_an_anonymous_game_played_to_the_end_reveals_names_beside_aliases(browser, stack, console_errors):
    players = anonymous_table(browser, stack.url, "en", console_errors)
    try:
        by_role = start_and_learn_roles(players)
        for pl in players:
            check_masked(pl, "en")

        def during(stage: str) -> None:
            if stage in ("day", "vote"):
                for pl in players:
                    text = pl.page.locator("body").inner_text()
                    assert not [n for n in NAMES if n in text], (stage, pl.name)

        play_classic(players, by_role, hook=during, stack=stack)
        for pl in players:
            text = pl.page.locator("body").inner_text()
            for name in NAMES:
                assert re.search(rf"[A-Z][a-z]+ [A-Z][a-z]+ · {name}", text), (pl.name, name)
    finally:
        for pl in players:
            pl.close()
