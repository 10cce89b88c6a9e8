"""The one `main` of the screenshot scripts (`*_shots.py`): `--out` and `--lang`, Chromium
checked, one offline stack and one browser for every language, and the pages' console errors
reported at the end. A script gives what it draws per language:
`shoot_one(browser, stack, lang, out, errors)`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO, Stack

LANGS = ("ko", "ru", "en")
ShootOne = Callable[[object, Stack, str, Path, list[str]], None]


def run(doc: str, shoot_one: ShootOne, argv: list[str] | None = None, **stack_options) -> int:
    """Parse the command line (`doc` is the script's docstring), shoot every language asked
    for on one stack (`stack_options`: `Stack`'s, e.g. `manual_clock=True, seed=22`); 0, or 1
    when a page logged console errors, 2 without Chromium."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--lang", action="append", choices=LANGS, help="one language (repeatable; default all)")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(MISSING_CHROMIUM, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    stack = Stack(**stack_options)
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for lang in args.lang or LANGS:
                shoot_one(browser, stack, lang, args.out, errors)
                print(f"  {lang}", flush=True)
            browser.close()
    finally:
        stack.stop()
    if errors:
        print("console errors:\n" + "\n".join(errors), file=sys.stderr)
        return 1
    return 0
