"""Screenshots of "while you were away" (docs/rules.md, "While you were away") in Korean,
Russian and English: the digest a police player finds after missing a night, on a phone
(390x844) and a desktop (1280x800), into docs/screenshots/ as
`away-digest-<lang>-<mobile|desktop>.png`. Played on the offline stack (manual clock) by a
person and bots, as tests/browser/test_away.py plays it.

    .venv/bin/python -m tests.browser.away_shots [--out docs/screenshots]
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from . import shots
from .round2_shots import shoot
from .stack import Stack
from .test_away import away_for_a_night, police_seat
from .ui import DESKTOP, MOBILE


def one_language(browser, stack: Stack, lang: str, out: Path) -> None:
    pl, code, _, others = police_seat(browser, stack, lang, [])
    away_for_a_night(stack, pl, code, others)
    expect(pl.page.locator("#away-digest")).to_be_visible(timeout=15_000)
    pl.dismiss_cards()
    shoot(pl, out, f"away-digest-{lang}", "#away-digest", sizes=(("mobile", MOBILE), ("desktop", DESKTOP)))
    pl.close()


def main() -> int:
    return shots.run(
        __doc__,
        lambda browser, stack, lang, out, errors: one_language(browser, stack, lang, out),
        manual_clock=True,
        seed=22,
    )


if __name__ == "__main__":
    raise SystemExit(main())
