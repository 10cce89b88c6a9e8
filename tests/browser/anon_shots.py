"""Screenshots of an anonymous game (docs/rules.md, "Anonymous games"): the table under aliases
in Korean, Russian and English (phone, 390x844), and the English end screen with aliases beside
names, into docs/screenshots/ as `anonymous-<lang>-mobile.png` and `anonymous-end-en-mobile.png`.

    .venv/bin/python -m tests.browser.anon_shots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO, Stack
from .test_anonymous import DAY_TWO, NAMES, anonymous_table, check_masked, play_to_the_end


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(MISSING_CHROMIUM, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    expect.set_options(timeout=20_000)  # a script, not a test: a loaded machine only waits longer
    stack = Stack(manual_clock=True, seed=22)
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for lang in ("ko", "ru", "en"):
                if lang != "en":
                    _, players = anonymous_table(browser, stack, lang, errors, seats=[{"name": n} for n in NAMES])
                    pl = players[1]
                    expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
                    pl.dismiss_cards()
                    check_masked(pl, lang)
                    pl.page.screenshot(path=str(args.out / f"anonymous-{lang}-mobile.png"))
                else:
                    room, players = anonymous_table(browser, stack, lang, errors, **DAY_TWO)

                    def shot(stage: str, players=players) -> None:
                        if stage == "day":
                            players[1].dismiss_cards()
                            players[1].page.screenshot(path=str(args.out / "anonymous-en-mobile.png"))

                    play_to_the_end(stack, room, players, shot)
                    players[1].page.screenshot(
                        path=str(args.out / "anonymous-end-en-mobile.png"), full_page=True
                    )
                print(f"  anonymous {lang}", flush=True)
                for pl in players:
                    pl.close()
            browser.close()
    finally:
        stack.stop()
    if errors:
        print("console errors:\n" + "\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
