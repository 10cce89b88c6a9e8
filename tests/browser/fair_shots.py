"""Screenshots of the end screen's fair-deal card ("deal verified", the commitment, seed and
salt, the verify command unfolded) in Korean, Russian and English, phone (390x844) and desktop
(1280x800), into docs/screenshots/ as `end-fair-deal-<lang>-<mobile|desktop>.png`. A person
plays with four bots on the offline stack and the host ends the game, as
tests/browser/test_fair_deal.py does.

    .venv/bin/python -m tests.browser.fair_shots [--out docs/screenshots]
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import expect

from . import shots
from .stack import REPO, Stack

sys.path.insert(0, str(REPO / "layers" / "engine"))  # the engine, as round2_shots.py reads it

from .test_fair_deal import play_to_end  # noqa: E402
from .ui import DESKTOP, MOBILE  # noqa: E402


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
    return shots.run(
        __doc__,
        lambda browser, stack, lang, out, errors: shoot(browser, stack, out, lang, errors),
        argv,
        time_scale=5.0,
    )


if __name__ == "__main__":
    raise SystemExit(main())
