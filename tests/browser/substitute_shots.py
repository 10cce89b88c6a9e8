"""Screenshots of substitutes in Korean, Russian and English (phone, 390x844), into
docs/screenshots/ as `substitute-offer-<lang>.png` (a spectator sees "Take seat N" after a
player left), `substitute-request-<lang>.png` (the host lets the newcomer in with one tap) and
`substitute-seated-<lang>.png` (the substitute's inherited role card), played
as tests/browser/test_substitutes.py plays it.

    .venv/bin/python -m tests.browser.substitute_shots [--out docs/screenshots]
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import shots
from .stack import REPO, Stack

sys.path.insert(0, str(REPO / "layers" / "engine"))  # the engine, as round2_shots.py reads it

from .test_substitutes import play_substitution  # noqa: E402


def one_language(browser, stack: Stack, lang: str, out: Path, errors: list[str]) -> None:
    def shoot(stage: str, pl) -> None:
        pl.page.screenshot(path=str(out / f"substitute-{stage}-{lang}.png"))

    for pl in play_substitution(browser, stack, lang, errors, shoot):
        pl.close()


def main() -> int:
    return shots.run(__doc__, one_language, time_scale=5)


if __name__ == "__main__":
    raise SystemExit(main())
