"""Screenshots of the voice bar (docs/rules.md, "Voice"; web/js/voice/) in Korean, Russian and
English on a phone (390x844): a classic day drawn from a scripted engine state, the page in
voice (Chromium's fake microphone) with the per-seat volume fold open, one seat turned down
and one muted, into docs/screenshots/ as `voice-bar-<lang>-mobile.png`.

    .venv/bin/python -m tests.browser.voice_shots [--out docs/screenshots]
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import expect

from . import shots
from .stack import CHROMIUM_ARGS, MEDIA_CHROMIUM, REPO

sys.path.insert(0, str(REPO / "layers" / "engine"))  # the engine plays the scripted state

from .scripted import LOCALES, Scripted  # noqa: E402
from .ui import MOBILE, Player  # noqa: E402

FAKE_MEDIA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
# Names in the page's language: the bar shows them in the volume fold.
NAMES = {
    "ko": ["민지", "서준", "하은", "도윤", "지우"],
    "ru": ["Аня", "Боря", "Вера", "Глеб", "Даша"],
    "en": ["Ann", "Bob", "Cat", "Dan", "Eve"],
}

# The game screen for `view`, then the voice bar as a view frame draws it (web/js/voice/index.js).
DRAW = """async ([view, lang]) => {
  const i18n = await __import('./js/i18n.js');
  await i18n.setLang(lang);
  const { state } = await __import('./js/store.js');
  state.view = view;
  (await __import('./js/clock.js')).syncClock(view);
  const m = await __import('./js/screens/game.js');
  const main = document.querySelector('#main');
  main.replaceChildren();
  document.body.dataset.screen = 'game';
  const ctx = {state: {view}, send() {}, rerender() {}, toast() {}, goHome() {}, shareLink: () => ''};
  window.__screen = m.mount(main, ctx);
  window.__screen.update(view);
  (await __import('./js/voice/index.js')).voiceView(view);
}"""


def day_view(lang: str) -> dict:
    """Ann's view of a classic greeting (day 1) at five seats: her voice reaches everyone."""
    g = Scripted("classic", ["citizen", "mafia", "police", "doctor", "citizen"], firstPhase="day")
    g.until("greeting")
    v = g.view("p1")
    for p in v["players"]:
        p["name"] = NAMES[lang][int(p["id"][1:]) - 1]
    return v


def voice_page(browser, stack, lang: str, errors: list[str]) -> Player:
    """A phone page with the day drawn and the voice joined (the fake microphone)."""
    pl = Player(browser, stack.url, "Ann", viewport=MOBILE, locale=LOCALES[lang], errors=errors)
    pl.open()
    pl.page.evaluate(DRAW, [day_view(lang), lang])
    pl.page.click("#voice-join")
    expect(pl.page.locator("#voice-mute")).to_be_visible()
    return pl


def turn_down_and_mute(pl: Player) -> None:
    """Open the fold; the second seat at 40 %, the third muted."""
    page = pl.page
    page.locator("#voice-volumes summary").click()
    page.locator("#voice-vol-p2").fill("40")
    page.click("#voice-mute-p3")
    expect(page.locator("#voice-mute-p3")).to_have_attribute("aria-pressed", "true")


def one_language(browser, stack, lang: str, out: Path, errors: list[str]) -> None:
    pl = voice_page(browser, stack, lang, errors)
    turn_down_and_mute(pl)
    pl.page.locator("#voice-bar").scroll_into_view_if_needed()
    pl.page.wait_for_timeout(150)  # let the layout settle
    pl.page.screenshot(path=str(out / f"voice-bar-{lang}-mobile.png"))
    pl.close()


def main() -> int:
    def shoot_one(browser, stack, lang, out, errors):
        media = browser.browser_type.launch(executable_path=MEDIA_CHROMIUM, args=[*CHROMIUM_ARGS, *FAKE_MEDIA])
        try:
            one_language(media, stack, lang, out, errors)
        finally:
            media.close()

    return shots.run(__doc__, shoot_one, manual_clock=True, seed=22)


if __name__ == "__main__":
    raise SystemExit(main())
