"""Screenshots of substitutes in Korean, Russian and English (phone, 390x844), into
docs/screenshots/ as `substitute-offer-<lang>.png` (a spectator sees "Take seat N" after a
player left) and `substitute-seated-<lang>.png` (the substitute's inherited role card), played
as tests/browser/test_substitutes.py plays it.

    .venv/bin/python -m tests.browser.substitute_shots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, Stack
from .test_substitutes import play_substitution

LANGS = ("ko", "ru", "en")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="docs/screenshots")
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    stack = Stack(time_scale=5)
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for lang in LANGS:

                def shoot(stage: str, pl, lang: str = lang) -> None:
                    pl.page.screenshot(path=str(out / f"substitute-{stage}-{lang}.png"))

                for pl in play_substitution(browser, stack, lang, errors, shoot):
                    pl.close()
            browser.close()
    finally:
        stack.stop()
    if errors:
        raise SystemExit("console errors:\n" + "\n".join(errors))


if __name__ == "__main__":
    main()
