"""Screenshots of the screens a table's second round of games changed, in Korean and Russian
(English for the `original` defense), phone (390x844; 320x640 for long names, as
`<screen>-320-<lang>-mobile.png`) and desktop (1280x800), into docs/screenshots/ as
`<screen>-<lang>-<mobile|desktop>.png`.

Screens that need a whole game first (a second tie, the city's revote and ready count, the
yakuza's chat, an `original` defense with two suspects) are drawn from a scripted engine game
by the real client modules, as tests/browser/test_table_round2.py does; the others are played
on the offline stack by a person and bots.

    .venv/bin/python -m tests.browser.round2_shots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO, Stack

sys.path.insert(0, str(REPO / "layers" / "engine"))  # the engine, as review_shots.py reads it

from .scripted import LOCALES, Scripted, draw, page_in  # noqa: E402
from .test_table_round2 import (  # noqa: E402
    CITY_SIX,
    EXPANSION_14,
    LONG,
    ORIGINAL_EIGHT,
    SMALL,
    add_bots,
    city_second_tie,
)
from .ui import DESKTOP, MOBILE, Player, open_fold  # noqa: E402

LANGS = ("ko", "ru")
PHONE_AND_DESKTOP = (("mobile", MOBILE), ("desktop", DESKTOP))
NARROW = (("mobile", SMALL),)  # 320x640, saved as `<screen>-320-<lang>-mobile.png`


def shoot(pl: Player, out: Path, name: str, show: str | None = None, sizes=PHONE_AND_DESKTOP) -> None:
    """One capture per size; `show` is scrolled into view (else the top of the page)."""
    page = pl.page
    for label, size in sizes:
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        if show:
            page.locator(show).first.scroll_into_view_if_needed()
        page.wait_for_timeout(150)  # let the layout settle
        page.screenshot(path=str(out / f"{name}-{label}.png"))
        wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 0:
            print(f"  {name}-{label}: scrolls sideways by {wide} px", flush=True)
    page.set_viewport_size(MOBILE)
    print(f"  {name}", flush=True)


# ---------------------------------------------------------------- drawn from scripted games
def second_tie() -> Scripted:
    g = city_second_tie()
    for voter, target in (("p1", "p4"), ("p2", "p4"), ("p3", "p5"), ("p6", "p5")):
        g.act("vote", voter, target=target)
    g.timeout()
    return g


def city_ready() -> Scripted:
    g = Scripted("city", CITY_SIX + ["citizen"])
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    for pid in ("p2", "p3", "p6"):
        g.act("readyEarly", pid)
    return g


def original_defense() -> Scripted:
    g = Scripted("original", ORIGINAL_EIGHT, expansion=True)
    g.until("speech")
    while g.kind == "speech":
        g.act("endTurn", g.s["phase"]["speaker"])
    g.until("night")
    for pid in g.living():
        if g.kind == "night" and pid not in g.s["phase"]["done"]:
            g.act("sleep", pid)
    g.until("speech")
    noms = {"p4": "p6", "p5": "p7"}
    while g.kind == "speech":
        sp = g.s["phase"]["speaker"]
        g.act("nominate", sp, target=noms.get(sp))
    return g


def drawn(browser, stack, out: Path, errors: list[str]) -> None:
    yakuza = Scripted("original", EXPANSION_14, expansion=True)
    yakuza.until("night")
    games = [
        # (file, game, viewer, element to show, click first)
        ("table2-city-revote", city_second_tie(), "p6", "#actions .votes", None),
        ("second-tie-news", second_tie(), "p6", None, "#chat-tab-system"),
        ("city-ready-count", city_ready(), "p1", "#ready-count", None),
        ("yakuza-chat-tab", yakuza, "p1", "#chat-tab-yakuza", "#chat-tab-yakuza"),
        ("table2-original-defense", original_defense(), "p7", None, None),
    ]
    for lang in (*LANGS, "en"):
        pl = page_in(browser, stack, lang, errors)
        # English for the one the table met in English: the original defense
        for name, g, viewer, show, click in games if lang != "en" else games[-1:]:
            draw(pl.page, "game", g.view(viewer))
            if click:
                pl.page.click(click)
            shoot(pl, out, f"{name}-{lang}", show=show)
        pl.close()


# ---------------------------------------------------------------- played on the offline stack
def lobby_expansion(browser, url: str, out: Path, errors: list[str], lang: str) -> None:
    """`original` with the expansion at 8 seats: the note that it changes nothing; then the
    options unfolded from their <details>."""
    host = Player(browser, url, {"ko": "민준", "ru": "Анна"}[lang], locale=LOCALES[lang], errors=errors)
    page = host.page
    host.open()
    page.fill("#create-name", host.name)
    page.select_option("#create-preset", "original")
    open_fold(page, ".home-details", "#home-opt-expansion")
    page.check("#home-opt-expansion")
    page.click("#create-btn")
    expect(page.locator(".lobby-player")).to_have_count(1, timeout=15_000)
    add_bots(host, 7)
    expect(page.locator('.idle-option[data-option="expansion"]')).to_be_visible()
    shoot(host, out, f"lobby-expansion-note-{lang}", show=".idle-option")
    page.locator("#lobby-options summary").click()
    shoot(host, out, f"lobby-options-open-{lang}", show="#lobby-options")
    host.close()


def greeting_offline_end(browser, url: str, out: Path, errors: list[str], lang: str) -> None:
    """The default classic game: the greeting's hint (no early end), the offline banner, then
    the host ends the game while scrolled down: the end screen opens at its top."""
    host = Player(browser, url, {"ko": "민준", "ru": "Анна"}[lang], locale=LOCALES[lang], errors=errors)
    page = host.page
    host.create({"roleRevealSeconds": "30"})
    add_bots(host, 4)
    page.click("#start-btn")
    host.wait_phase("roleReveal", timeout=15_000)
    page.click("#reveal-role-btn")
    host.wait_phase("greeting", timeout=30_000)
    host.dismiss_cards()
    shoot(host, out, f"greeting-{lang}")
    host.context.set_offline(True)
    page.wait_for_selector('[data-state="offline"]', timeout=15_000)
    shoot(host, out, f"offline-{lang}")
    host.context.set_offline(False)
    expect(page.locator('#conn-banner[data-state="offline"]')).to_be_hidden(timeout=30_000)
    page.locator("#host-tools summary").click()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.click("#end-game-btn")
    page.click("#end-game-btn")
    expect(page.locator("#end-title")).to_be_visible(timeout=15_000)
    page.wait_for_timeout(300)
    # no scrollTo(0, 0) first: the screen as the player meets it
    for label, size in PHONE_AND_DESKTOP:
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(out / f"end-top-{lang}-{label}.png"))
    page.set_viewport_size(MOBILE)
    print(f"  end-top-{lang} (focus on {page.evaluate('document.activeElement.id')})", flush=True)
    host.close()


def long_name(browser, url: str, out: Path, errors: list[str]) -> None:
    """A 20-letter name without spaces: its tile, the host's removal card (the same card as
    an execution's) and the end timeline, at 390 and 320 wide."""
    host = Player(browser, url, "민준", locale="ko-KR", errors=errors)
    page = host.page
    host.create({"firstPhase": "night", "nightSeconds": "180"})
    link = page.locator("#share-link").input_value()
    guest = Player(browser, url, LONG, locale="ko-KR", errors=errors)
    guest.join(link)
    guest.ready()
    add_bots(host, 5)  # seven seats, two mafiosi: removing one does not end the game
    page.click("#start-btn")
    host.wait_phase("night", timeout=30_000)
    host.dismiss_cards()
    shoot(host, out, "long-name-tile-320-ko", show=".tile.me", sizes=NARROW)
    shoot(host, out, "long-name-tile-ko", show=".tile.me")
    page.locator("#host-tools summary").click()
    pid = guest.my_pid()
    page.click(f'[data-key="remove-{pid}"]')
    page.click(f'[data-key="remove-{pid}"]')
    card = page.locator(".event-card")
    expect(card).to_contain_text(LONG[:10])
    # quick: the card closes by itself after a few seconds
    shoot(host, out, "long-name-card-320-ko", show=".event-card", sizes=NARROW)
    shoot(host, out, "long-name-card-ko", show=".event-card", sizes=(("mobile", MOBILE),))
    page.click("#end-game-btn")
    page.click("#end-game-btn")
    expect(page.locator("#timeline")).to_contain_text(LONG[:10], timeout=15_000)
    shoot(host, out, "long-name-timeline-320-ko", show="#timeline", sizes=NARROW)
    shoot(host, out, "long-name-timeline-ko", show="#timeline")
    guest.close()
    host.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--time-scale", type=float, default=5.0)
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(MISSING_CHROMIUM, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    stack = Stack(time_scale=args.time_scale)
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            drawn(browser, stack, args.out, errors)
            for lang in LANGS:
                lobby_expansion(browser, stack.url, args.out, errors, lang)
                greeting_offline_end(browser, stack.url, args.out, errors, lang)
            long_name(browser, stack.url, args.out, errors)
            browser.close()
    finally:
        stack.stop()
    # offline, the requests the network refused are the only console errors expected
    errors = [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e and "Failed to fetch" not in e]
    if errors:
        print("console errors:\n" + "\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
