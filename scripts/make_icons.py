"""Renders the app icons (web/icons/*.png) from their SVG sources with Debian's Chromium.

Run from the repository root after changing web/icons/icon.svg or maskable.svg:
    .venv/bin/python scripts/make_icons.py
The PNGs are committed (the client has no build step); tests/browser/test_install.py checks
that the manifest names them at their real sizes."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "web" / "icons"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# (source, size, output): the manifest's "any" and "maskable" icons, Apple's touch icon and
# a PNG favicon for browsers without SVG favicons.
RENDERS = [
    ("icon.svg", 192, "icon-192.png"),
    ("icon.svg", 512, "icon-512.png"),
    ("icon.svg", 48, "icon-48.png"),
    ("maskable.svg", 192, "maskable-192.png"),
    ("maskable.svg", 512, "maskable-512.png"),
    ("maskable.svg", 180, "apple-touch-icon.png"),
]


def main() -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for source, size, out in RENDERS:
            page = browser.new_page(viewport={"width": size, "height": size})
            svg = (ICONS / source).read_text()
            page.set_content(
                "<style>html,body{margin:0;background:transparent}svg{display:block;width:100vw;height:100vh}</style>"
                + svg
            )
            page.screenshot(path=str(ICONS / out), omit_background=True)
            page.close()
            print(f"{out}: {size}x{size}")
        browser.close()


if __name__ == "__main__":
    main()
