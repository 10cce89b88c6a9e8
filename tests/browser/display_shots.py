"""Screenshots of the room's screen (`?display=KEY`: web/js/display/) for the README: the scripted states of
`display_states.py` (the spectator's view, which is the display's), drawn by the real client
modules in Chromium at a TV's 1920×1080 and a laptop's 1280×720, and the stream overlay.

    .venv/bin/python -m tests.browser.display_shots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO

sys.path.insert(0, str(REPO / "layers" / "engine"))

from local import webbuild  # noqa: E402

from .display_states import states  # noqa: E402
from .display_story import MOMENTS, stories  # noqa: E402
from .review_shots import serve  # noqa: E402
from .test_display import DRAW, LAPTOP, TV  # noqa: E402

SHOTS = (  # (state, language, viewport, overlay)
    ("dawn", "ko", TV, False),
    ("defense", "ru", TV, False),
    ("night", "en", LAPTOP, False),
    ("vote", "en", LAPTOP, False),
    ("ended", "ko", TV, False),
    ("dawn", "en", TV, True),
)
# each rulebook's day, defense, vote and end at both sizes (#48), a language each
STORY_LANGS = {"original": "en", "classic": "ru", "city": "ko"}
STORY = tuple(
    (f"{book}/{moment}", lang, viewport, False)
    for book, lang in STORY_LANGS.items()
    for moment in MOMENTS
    for viewport in (TV, LAPTOP)
)


def view_of(state: str, lang: str) -> dict:
    if "/" in state:
        book, moment = state.split("/")
        return stories(lang)[book][moment]
    return states(lang)[state]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--only", choices=("story", "all"), default="all")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(MISSING_CHROMIUM, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    # the built client (the bundle has the page's test hooks, `__import`), with a config.json
    site = Path(tempfile.mkdtemp(prefix="display-shots-"))
    shutil.copytree(webbuild.built(), site, dirs_exist_ok=True)
    shutil.copy(REPO / "web" / "config.json", site / "config.json")
    httpd, url = serve(site)
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for state, lang, viewport, overlay in STORY if args.only == "story" else SHOTS + STORY:
                page = browser.new_page(viewport=viewport)
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(url + "?display=none" + ("&overlay=1" if overlay else ""))
                page.wait_for_selector("body[data-ready='1'] #d-status")
                page.evaluate(DRAW, [view_of(state, lang), lang])
                page.wait_for_timeout(300)  # the fair-deal hash, the transitions
                kind = "overlay" if overlay else state.replace("/", "-")
                out = args.out / f"display-{kind}-{lang}-{viewport['width']}x{viewport['height']}.png"
                page.screenshot(path=str(out), omit_background=overlay)
                print(out.relative_to(REPO))
                page.close()
            browser.close()
    finally:
        httpd.shutdown()
    if errors:
        print("page errors:", errors, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
