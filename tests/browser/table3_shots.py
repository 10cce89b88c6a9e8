"""Screenshots of the screens a table's third round of games changed, in Korean, Russian and
English, phone (390x844), into docs/screenshots/ as

- `leave-substitutes-<lang>.png`: the leave dialog when the game takes substitutes;
- `substitute-landed-<lang>.png`: a substitute's first screen (the role card opens by itself);
- `role-goal-<lang>.png`: a role card with its side's goal;
- `end-cause-<lang>.png`: an end screen with the winner and the cause (parity after the vote).

The leave dialog, the role card and the end are drawn from a scripted engine game by the real
client modules, as tests/browser/test_table_round3.py does; the substitute is played on the
offline stack as tests/browser/test_substitutes.py plays it (a late "Join").

    .venv/bin/python -m tests.browser.table3_shots [--out docs/screenshots] [--lang ko]
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import shots
from .stack import REPO, Stack

sys.path.insert(0, str(REPO / "layers" / "engine"))  # the engine, as round2_shots.py reads it

from .scripted import UPDATE, Scripted, draw, page_in  # noqa: E402
from .test_substitutes import play_substitution  # noqa: E402
from .test_table_round3 import CLASSIC_SIX, classic_parity_by_vote  # noqa: E402


def one_language(browser, stack: Stack, lang: str, out: Path, errors: list[str]) -> None:
    pl = page_in(browser, stack, lang, errors)
    page = pl.page

    def save(name: str) -> None:
        page.wait_for_timeout(150)  # let the layout settle
        page.screenshot(path=str(out / f"{name}-{lang}.png"))

    # the leave dialog, city with substitutes
    g = Scripted("city", CLASSIC_SIX, substitutes=True)
    g.until("night")
    draw(page, "game", g.view("p5"), seated=True)
    page.evaluate("() => { document.querySelector('#seat-tools').open = true; }")
    page.click("#leave-game-btn")
    page.locator("#leave-expiry").wait_for()
    save("leave-substitutes")
    page.click("#leave-cancel")

    # a role card with its goal (classic, the mafia)
    g = Scripted("classic", CLASSIC_SIX)
    view = g.view("p1")
    page.evaluate("() => __import('./js/game/phases.js').then((m) => m.resetPhaseMemory())")
    draw(page, "game", view)
    page.click("#reveal-role-btn")
    page.evaluate(UPDATE, view)
    page.locator("#role-goal").scroll_into_view_if_needed()
    save("role-goal")

    # the end: the winner and the cause
    draw(page, "end", classic_parity_by_vote().view("p3"))
    page.evaluate("window.scrollTo(0, 0)")
    save("end-cause")
    pl.close()

    # a substitute's first screen, after a late "Join"
    def shoot(stage: str, player) -> None:
        if stage == "landed":
            player.page.screenshot(path=str(out / f"substitute-landed-{lang}.png"))

    for player in play_substitution(browser, stack, lang, errors, shoot, via="join"):
        player.close()


def main() -> int:
    return shots.run(__doc__, one_language, time_scale=5)


if __name__ == "__main__":
    raise SystemExit(main())
