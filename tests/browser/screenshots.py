"""Regenerate docs/screenshots/: a real five-player game on the offline stack, each main
screen captured at phone (390x844) and desktop (1280x800) size.

    .venv/bin/python -m tests.browser.screenshots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO, Stack
from .ui import DESKTOP, MOBILE, Player, play_classic, seat_everyone, start_and_learn_roles

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve"]


def shoot(player: Player, out: Path, name: str, show: str | None = None) -> None:
    """Phone and desktop captures; `show` is scrolled into view (else the top of the page)."""
    page = player.page
    for label, size in (("mobile", MOBILE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        if show:
            page.locator(show).scroll_into_view_if_needed()
        page.wait_for_timeout(150)  # let the layout settle
        page.screenshot(path=str(out / f"{name}-{label}.png"))
    page.set_viewport_size(MOBILE)
    print(f"  {name}", flush=True)


def city_night(browser, url: str, out: Path, errors: list[str]) -> None:
    """The city rules: one person and four bots; at night everyone confirms (sleep or skip)."""
    pl = Player(browser, url, "Ann", errors=errors)
    pl.open()
    pl.page.fill("#create-name", pl.name)
    pl.page.select_option("#create-preset", "city")
    pl.page.click("#create-btn")
    for n in range(4):
        pl.page.click("#add-bot-btn")
        expect(pl.page.locator(".lobby-player")).to_have_count(n + 2)
    shoot(pl, out, "lobby-city")
    pl.page.click("#start-btn")
    pl.wait_phase("night", timeout=60_000)
    expect(pl.page.locator("#sleep-btn")).to_be_visible()
    shoot(pl, out, "night-city")
    pl.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--time-scale", type=float, default=4.0)
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

            def lobby_hook(stage: str, players: list[Player]) -> None:
                shoot(players[0], args.out, stage)
                if stage == "lobby":
                    # The invite: link, share and QR code, in Russian.
                    page = players[0].page
                    page.select_option("#lang-select", "ru")
                    shoot(players[0], args.out, "lobby-qr-ru", show=".qr-box")
                    page.select_option("#lang-select", "en")
                    shoot(players[0], args.out, "lobby-qr", show=".qr-box")
                    # The rules sheet, in English and Korean.
                    page.click("#rules-btn")
                    expect(page.locator("#rules-roles li").first).to_be_visible()
                    shoot(players[0], args.out, "rules")
                    page.select_option("#lang-select", "ko")
                    shoot(players[0], args.out, "rules-ko")
                    page.keyboard.press("Escape")
                    page.select_option("#lang-select", "en")

            players = seat_everyone(browser, stack.url, NAMES, errors, hook=lobby_hook)
            by_role = start_and_learn_roles(players)
            host = players[0]
            host.page.click("#my-role-btn")
            expect(host.page.locator(".overlay .role-name")).to_be_visible()
            shoot(host, args.out, "role")
            host.page.locator(".overlay .btn").click()

            mafia, citizen = by_role["mafia"][0], by_role["citizen"][1]
            police = by_role["police"][0]

            def hook(stage: str) -> None:
                if stage == "night":
                    mafia.say("mafia", "Let's take the quiet one.")
                    shoot(citizen, args.out, "night-citizen")
                elif stage == "night-chosen":
                    shoot(mafia, args.out, "night-mafia")
                elif stage == "day":
                    # The police's finding after the night: panel, tile mark, private log line.
                    expect(police.page.locator("#my-results")).to_be_visible()
                    police.page.click("#chat-tab-system")
                    shoot(police, args.out, "police-result", show="#my-results")
                    police.page.select_option("#lang-select", "ko")
                    shoot(police, args.out, "police-result-ko", show="#my-results")
                    police.page.select_option("#lang-select", "en")
                    citizen.say("day", "Who did the police check?")
                    shoot(citizen, args.out, "day")
                    citizen.page.select_option("#lang-select", "ko")
                    shoot(citizen, args.out, "day-ko")
                    citizen.page.select_option("#lang-select", "ru")
                    shoot(citizen, args.out, "day-ru")
                    citizen.page.select_option("#lang-select", "en")
                elif stage == "voted":
                    shoot(citizen, args.out, "vote")
                elif stage == "confirm":
                    shoot(citizen, args.out, "confirm")
                elif stage == "end":
                    shoot(host, args.out, "end")
                    host.page.select_option("#lang-select", "ru")
                    shoot(host, args.out, "end-ru")
                    host.page.select_option("#lang-select", "en")

            play_classic(players, by_role, hook)
            for pl in players:
                pl.close()
            city_night(browser, stack.url, args.out, errors)
            browser.close()
    finally:
        stack.stop()
    if errors:
        print("console errors:\n" + "\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
