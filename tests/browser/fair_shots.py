"""Screenshots of the end screen's fair-deal card ("deal verified", the commitment, seed and
salt, the verify command unfolded) in Korean, Russian and English, phone (390x844) and desktop
(1280x800), into docs/screenshots/ as `end-fair-deal-<lang>-<mobile|desktop>.png`. A person
plays with four bots on the offline stack and the host ends the game, as
tests/browser/test_fair_deal.py does.

    .venv/bin/python -m tests.browser.fair_shots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO, Stack

sys.path.insert(0, str(REPO / "layers" / "engine"))  # the engine, as round2_shots.py reads it

from .test_fair_deal import play_to_end  # noqa: E402
from .ui import DESKTOP, MOBILE  # noqa: E402

LANGS = ("ko", "ru", "en")


def shoot(browser, stack: Stack, out: Path, lang: str, errors: list[str]) -> None:
    host, _ = play_to_end(browser, stack, lang, errors)
    page = host.page
    expect(page.locator("#fair-status")).to_have_attribute("data-status", "verified", timeout=10_000)
    page.locator(".fair-howto summary").click()
    for label, size in (("mobile", MOBILE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.evaluate("document.querySelector('#fair-deal').scrollIntoView({block: 'start'})")
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / f"end-fair-deal-{lang}-{label}.png"))
        wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 0:
            print(f"  end-fair-deal-{lang}-{label}: scrolls sideways by {wide} px", flush=True)
    print(f"  end-fair-deal-{lang}", flush=True)
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
            for lang in LANGS:
                shoot(browser, stack, args.out, lang, errors)
            browser.close()
    finally:
        stack.stop()
    if errors:
        print("console errors:\n" + "\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
