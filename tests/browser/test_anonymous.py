"""Anonymous games as players see them (docs/rules.md, "Anonymous games"): the host ticks the
option, the table plays under aliases in the viewer's language with "you" on their own tile,
no real name is on anyone's screen until the end, and the end screen shows alias and name.
The tables are live rooms written by the stack (`POST /_local/rooms`: tests/browser/live.py),
each person on their seat's private link: at the deal, and at day 2 for the game played to
its end; the host's option itself is ticked on the home page."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from .live import live_room, open_seat, seat
from .scripted import LOCALES
from .ui import FAST_OPTIONS, MOBILE, Player, end_phase, open_fold

NAMES = ["Annabelle", "Borislav", "Chiaroscuro", "Dmitrievna", "Esmeralda"]
YOU = {"en": "You · ", "ko": "나 · ", "ru": "Вы · "}
SCRIPT = {
    "en": re.compile(r"^[A-Z][a-z]+ [A-Z][a-z]+$"),
    "ko": re.compile(r"^[가-힣 ]+$"),
    "ru": re.compile(r"^[А-ЯЁа-яё ]+$"),
}


def host_ticks_the_option(browser, url: str, lang: str, errors: list[str]) -> None:
    """The host ticks the option on the home page (labelled in the viewer's language) and
    creates the room: the room's public summary has it on."""
    host = Player(browser, url, NAMES[0], viewport=MOBILE, locale=LOCALES[lang], errors=errors)
    host.open()
    host.page.fill("#create-name", host.name)
    open_fold(host.page, ".home-details", "#home-opt-anonymous")
    box = host.page.locator("#home-opt-anonymous")
    box.check()
    expect(box).to_be_checked()
    host.page.click("#create-btn")
    expect(host.page.locator(".lobby-player")).to_have_count(1, timeout=20_000)
    code = host.page.locator("#room-chip").inner_text().strip()
    with urllib.request.urlopen(f"{url}api/rooms/{code}", timeout=60) as res:  # noqa: S310 - our 127.0.0.1 stack
        assert json.load(res)["options"]["anonymous"] is True
    host.close()


def anonymous_table(browser, stack, lang: str, errors: list[str], **spec) -> tuple[dict, list[Player]]:
    """A live anonymous classic room of NAMES (the first the host) as `spec` has it, every
    person on their seat in `lang`: (the room, the players)."""
    room = live_room(
        stack,
        lang=lang,
        options={**{k: int(v) if v.isdigit() else v for k, v in FAST_OPTIONS.items()}, "anonymous": True},
        **spec,
    )
    players = [
        open_seat(
            browser,
            stack,
            room,
            name,
            viewport=MOBILE if i == 0 else None,
            locale=LOCALES[lang],
            errors=errors,
        )
        for i, name in enumerate(NAMES)
    ]
    return room, players


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
    host_ticks_the_option(browser, stack.url, lang, console_errors)
    _, players = anonymous_table(browser, stack, lang, console_errors, seats=[{"name": n} for n in NAMES])
    try:
        for pl in players:
            expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
            pl.dismiss_cards()
            check_masked(pl, lang)
    finally:
        for pl in players:
            pl.close()


# Day 2 of a classic game of five: the mafioso (Borislav) killed Esmeralda in the night.
ROLES = {
    "Annabelle": "citizen",
    "Borislav": "mafia",
    "Chiaroscuro": "police",
    "Dmitrievna": "doctor",
    "Esmeralda": "citizen",
}
DAY_TWO = {
    "seats": [{"name": n, "role": ROLES[n]} for n in NAMES],
    "steps": [
        {"until": {"phase": "night"}},
        {"type": "mafiaTarget", "player": "Borislav", "target": "Esmeralda"},
    ],
    "until": {"phase": "discussion", "day": 2},
}


def play_to_the_end(stack, room: dict, players: list[Player], during=lambda stage: None) -> None:
    """Day 2 (DAY_TWO) to the end: everyone alive is ready, votes the mafioso (who votes
    Annabelle), and confirms; `during(stage)` at "day", "vote", "confirm" and "end"."""
    mafioso = seat(room, "Borislav")["playerId"]
    alive = [pl for pl in players if pl.name != "Esmeralda"]
    for pl in players:
        pl.wait_phase("discussion")
    during("day")
    for pl in alive:
        pl.click("#ready-early-btn")
    for pl in alive:
        pl.wait_phase("vote")
    during("vote")
    for pl in alive:
        pl.tap(seat(room, "Annabelle")["playerId"] if pl.name == "Borislav" else mafioso)
    end_phase(stack, alive[0], "vote")
    end_phase(stack, alive[0], "defense")
    for pl in alive:
        pl.wait_phase("confirm")
    during("confirm")
    for pl in alive:
        if pl.name != "Borislav":
            pl.click("#yes-btn")
            expect(pl.page.locator("#yes-btn")).to_have_attribute("aria-pressed", "true")
    end_phase(stack, alive[0], "confirm")
    for pl in players:
        expect(pl.page.locator("#end-title")).to_be_visible(timeout=30_000)
    during("end")


def test_an_anonymous_game_played_to_the_end_reveals_names_beside_aliases(browser, stack, console_errors):
    room, players = anonymous_table(browser, stack, "en", console_errors, **DAY_TWO)

    def during(stage: str) -> None:
        for pl in players:
            if stage == "day":
                check_masked(pl, "en")
            text = pl.page.locator("body").inner_text()
            if stage == "end":
                for name in NAMES:
                    assert re.search(rf"[A-Z][a-z]+ [A-Z][a-z]+ · {name}", text), (pl.name, name)
            else:
                assert not [n for n in NAMES if n in text], (stage, pl.name)

    try:
        play_to_the_end(stack, room, players, during)
    finally:
        for pl in players:
            pl.close()
