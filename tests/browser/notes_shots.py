"""Screenshots of notes on tiles (docs/rules.md, "Notes on tiles") in Korean, Russian and
English: the tiles with marks, the note sheet open, and the vote list with a mark, on a phone
(390x844), plus the tiles on a desktop (1280x800), into docs/screenshots/ as
`notes-<screen>-<lang>-<mobile|desktop>.png`. A room of a person and bots on the offline stack
(manual clock) at day 2's defense, as tests/browser/test_notes.py opens it.

    .venv/bin/python -m tests.browser.notes_shots [--out docs/screenshots]
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from . import shots
from .live import goto_seat
from .round2_shots import shoot
from .stack import Stack
from .test_notes import LOCALES, NAMES, NOTES, mark, notes_room
from .ui import DESKTOP, MOBILE, Player

PHONE = (("mobile", MOBILE),)
SECOND = {"ko": "말 바꿈", "ru": "врёт?", "en": "changed story"}


def one_language(browser, stack: Stack, lang: str, out: Path) -> None:
    pl = Player(browser, stack.url, NAMES[lang], viewport=MOBILE, locale=LOCALES[lang])
    page = pl.page
    room, _ = notes_room(stack, lang)
    goto_seat(pl, stack, room)
    expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    others = [t.get_attribute("data-pid") for t in page.locator(".tile:not(.me)").all()]
    mark(pl, others[0], "role:mafia", NOTES[lang])
    mark(pl, others[1], "colour:red", None)
    mark(pl, others[2], "side:town", SECOND[lang])
    page.evaluate("document.activeElement && document.activeElement.blur()")
    shoot(pl, out, f"notes-tiles-{lang}", "#player-grid", sizes=(("mobile", MOBILE), ("desktop", DESKTOP)))
    page.click(f'[data-note-btn="{others[3]}"]')
    expect(page.locator("#note-dialog")).to_be_visible()
    page.locator('#note-dialog input[value="role:police"]').check()
    page.fill("#note-text", SECOND[lang])
    shoot(pl, out, f"notes-sheet-{lang}", sizes=PHONE)
    page.click("#note-cancel")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    shoot(pl, out, f"notes-votes-{lang}", ".votes", sizes=PHONE)  # the accused (others[0]) marked
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
