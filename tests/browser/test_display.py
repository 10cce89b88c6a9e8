"""The room's screen (`?display=KEY`: web/js/display/): a TV at 1920×1080 and a laptop at
1280×720 in ko/ru/en, drawn from scripted engine states (display_states.py: the spectator's
view, which is the display's: tests/functions/test_display.py); the night shows nothing about
who acts; the stream overlay's background is transparent; the narrator speaks only public
lines; and, on the offline stack, the host's "Show on a screen" card opens a real screen that
the host can revoke."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .axe import audit, blocking
from .display_states import ORIGINAL, states
from .scripted import LOCALES, name
from .test_table_round2 import add_bots
from .ui import DESKTOP, Link, Player

TV = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1280, "height": 720}

DRAW = """async ([view, lang]) => {
  const i18n = await __import('./js/i18n.js');
  await i18n.setLang(lang);
  (await __import('./js/clock.js')).syncClock(view);
  const m = await __import('./js/display/screen.js');
  document.getElementById('d-status').hidden = true;
  const main = document.querySelector('#display');
  const redraw = () => m.drawScreen(main, view, redraw);
  redraw();
}"""
FITS = """() => ({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight,
  iw: innerWidth, ih: innerHeight,
  clipped: [...document.querySelectorAll('.d-seat, .d-side section, .d-night, .d-end')]
    .filter((e) => e.getBoundingClientRect().bottom > innerHeight + 1).length})"""
# Records what speech synthesis is asked to say, instead of speaking.
SPEECH_STUB = """
window.__spoken = [];
window.SpeechSynthesisUtterance = function (text) { this.text = text; this.lang = ''; };
Object.defineProperty(window, 'speechSynthesis', { value: {
  speak(u) { window.__spoken.push({ text: u.text, lang: u.lang }); }, cancel() {} } });
"""


def screen_page(browser, stack, lang: str, viewport: dict, errors: list[str], query: str = "") -> Player:
    pl = Player(browser, stack.url, "TV", viewport=viewport, locale=LOCALES[lang], errors=errors)
    pl.open("?display=none" + query)
    expect(pl.page.locator("body[data-ready='1'] #d-status")).to_be_visible()  # no room: "this link does not work"
    return pl


def draw(pl: Player, view: dict, lang: str) -> None:
    pl.page.evaluate(DRAW, [view, lang])
    fit = pl.page.evaluate(FITS)
    assert fit["w"] <= fit["iw"] and fit["h"] <= fit["ih"] and fit["clipped"] == 0, (
        fit
    )  # no scrolling on a TV


def text_without_clock(pl: Player) -> str:
    return pl.page.evaluate(
        "() => { const m = document.querySelector('#display').cloneNode(true); m.querySelector('#d-clock').remove(); return m.innerText; }"
    )


@pytest.mark.parametrize("viewport", [TV, LAPTOP], ids=["1920x1080", "1280x720"])
@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_screen_draws_every_moment_of_a_game_at_tv_sizes(browser, stack, console_errors, lang, viewport):
    s = states(lang)
    pl = screen_page(browser, stack, lang, viewport, console_errors)
    page = pl.page

    draw(pl, s["speech"], lang)  # the original's turn-based discussion: who speaks now
    expect(page.locator("#d-stage")).to_contain_text(name("p1"))
    expect(page.locator('.d-seat[data-pid="p1"]')).to_have_attribute("aria-current", "true")
    expect(page.locator(".d-seat")).to_have_count(8)
    expect(page.locator("#d-clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
    if viewport is TV:
        assert blocking(audit(page)) == []

    draw(pl, s["night"], lang)  # eyes closed: no seat, no name
    expect(page.locator("#d-night")).to_be_visible()
    expect(page.locator(".d-seat")).to_have_count(0)
    quiet = text_without_clock(pl)
    assert not any(name(pid) in quiet for pid in ("p1", "p2", "p3", "p4"))
    draw(pl, s["nightActed"], lang)  # the mafia and the police acted: the screen is the same
    assert text_without_clock(pl) == quiet
    if viewport is TV:
        assert blocking(audit(page)) == []

    draw(pl, s["dawn"], lang)  # the night's news: Dan was killed
    expect(page.locator('#d-news li[data-kind="death"]')).to_contain_text(name("p4"))
    expect(page.locator('.d-seat[data-pid="p4"]')).to_have_class(re.compile(r"\bout\b"))

    draw(pl, s["defense"], lang)  # the accused defends
    expect(page.locator("#d-stage.accused")).to_contain_text(name("p8"))
    expect(page.locator('.d-seat[data-pid="p8"]')).to_have_attribute("aria-current", "true")

    draw(pl, s["voting"], lang)  # classic: no tally while the vote runs
    expect(page.locator("#d-votes")).to_have_count(0)
    draw(pl, s["vote"], lang)  # its open ballots once it closed: 3 for Ann, 1 for Bob
    expect(page.locator('#d-votes li[data-key="p1"] .d-vote-count')).to_have_text("3")
    expect(page.locator('#d-votes li[data-key="p2"] .d-vote-count')).to_have_text("1")

    draw(pl, s["ended"], lang)  # every role, the winner, the fair-deal check
    expect(page.locator(".d-seat .d-role")).to_have_count(8)
    expect(page.locator("#d-fair")).to_have_attribute("data-status", "verified")
    expect(page.locator("#d-end h2")).not_to_be_empty()
    if viewport is TV:
        assert blocking(audit(page)) == []
        page.screenshot(path=f"/tmp/display-{lang}.png")
    assert pl.missing_keys() == []
    pl.close()


def test_the_stream_overlay_is_transparent_and_compact(browser, stack, console_errors):
    pl = screen_page(browser, stack, "en", TV, console_errors, "&overlay=1")
    draw(pl, states("en")["dawn"], "en")
    bg = pl.page.evaluate(
        "() => [getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).backgroundColor]"
    )
    assert bg == ["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)"], bg
    box = pl.page.locator("#display").bounding_box()
    assert box["y"] + box["height"] >= TV["height"] - 1 and box["height"] < TV["height"] * 0.4, (
        box
    )  # a strip at the bottom
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_narrator_speaks_only_public_lines_in_the_rooms_language(browser, stack, console_errors, lang):
    pl = screen_page(browser, stack, lang, LAPTOP, console_errors)
    pl.page.add_init_script(SPEECH_STUB)
    pl.page.reload()
    pl.page.wait_for_function("() => window.__import")  # booted again: the test hooks are back
    s = states(lang, narrator=True)
    run = [s[k] for k in ("speech", "night", "nightActed", "dawn", "defense")]
    spoken = pl.page.evaluate(
        """async ([views, lang, roleIds]) => {
      const i18n = await __import('./js/i18n.js');
      await i18n.setLang(lang);
      const { narrate } = await __import('./js/display/narrate.js');
      let prev = null;
      const steps = [];
      for (const v of views) {
        const before = window.__spoken.length;
        narrate(prev, v);
        steps.push(window.__spoken.slice(before).map((u) => u.text));
        prev = v;
      }
      const off = { ...views[0], room: { ...views[0].room, narrator: false } };
      narrate(null, off);  // the host's switch off: nothing more is said
      const roles = [...new Set(roleIds)].map((r) => i18n.roleName(r, 'original'));
      return { spoken: window.__spoken, steps, roles };
    }""",
        [run, lang, ORIGINAL],
    )
    lines = [u["text"] for u in spoken["spoken"]]
    assert lines == [line for step in spoken["steps"] for line in step]  # the switched-off call said nothing
    assert {u["lang"] for u in spoken["spoken"]} == {LOCALES[lang]}
    words = {
        "en": ("Night falls", "Morning", f"{name('p1')}, you have the floor", f"{name('p8')} is on trial"),
        "ru": ("Наступает ночь", "Наступило утро", f"{name('p1')}, вам слово", f"{name('p8')} под судом"),
        "ko": (
            "밤이 되었습니다",
            "아침이 밝았습니다",
            f"{name('p1')} 님, 발언하세요",
            f"{name('p8')} 님이 재판에",
        ),
    }[lang]
    for w in words:
        assert any(w in line for line in lines), (w, lines)
    assert any(
        name("p4") in line for line in spoken["steps"][3]
    )  # dawn: the night's death, as the table reads it
    # the mafia and the police acting at night: nothing is said
    assert spoken["steps"][2] == []
    # no role is ever said before the end: the spectator's view holds none
    assert not [line for line in lines for role in spoken["roles"] if role and role in line], lines
    pl.close()


def test_the_hosts_card_opens_a_screen_that_the_host_revokes(browser, stack, console_errors):
    host = Player(browser, stack.url, "Ann", viewport=DESKTOP, errors=console_errors)
    code = host.create()
    host.page.click("#screen-btn")
    link = host.page.locator("#screen-link").input_value()
    assert f"room={code}" in link and "display=" in link
    expect(host.page.locator("#screen-card svg.qr")).to_be_visible()
    tv = Player(browser, stack.url, "TV", viewport=LAPTOP, errors=console_errors)
    tv.page.goto(link)
    expect(tv.page.locator("#d-lobby")).to_contain_text(code)
    expect(tv.page.locator('.d-seat[data-pid="p1"] .d-name')).to_have_text("Ann")
    host.page.check("#screen-narrator")  # the narrator switch reaches the screen's view
    expect(host.page.locator("#screen-narrator")).to_be_checked()
    host.page.click("#screen-revoke")
    expect(tv.page.locator("#d-status")).to_be_visible()
    expect(tv.page.locator(".d-seat")).to_have_count(0)
    expect(host.page.locator("#screen-link")).not_to_have_value(link)  # the new key's link
    tv.close()
    host.close()


def test_a_screen_follows_a_real_game_in_the_rooms_language(browser, stack, console_errors):
    """The offline stack: a Russian host, three bots, a TV opened in English that switches to
    the room's Russian and follows the phases to the first night, which it shows eyes closed."""
    host = Player(browser, stack.url, "Аня", viewport=DESKTOP, locale="ru-RU", errors=console_errors)
    link = Link(host.page)  # the host's page nudges at each deadline, as a page does
    host.create({"roleRevealSeconds": "30"})
    add_bots(host, 3)
    host.page.click("#screen-btn")
    tv = Player(browser, stack.url, "TV", viewport=TV, locale="en-US", errors=console_errors)
    tv.page.goto(host.page.locator("#screen-link").input_value())
    expect(tv.page.locator("html")).to_have_attribute("lang", "ru")
    expect(tv.page.locator("#d-lobby")).to_be_visible()
    host.page.click("#start-btn")
    host.wait_phase("roleReveal", timeout=15_000)
    seen = []
    for _ in range(400):
        kind = host.phase()
        if kind and (not seen or seen[-1] != kind):
            expect(tv.page.locator("body")).to_have_attribute(
                "data-phase", kind
            )  # the TV is on the same phase
            seen.append(kind)
        if kind == "night":
            break
        link.advance(stack)
    assert seen[-1] == "night", seen
    expect(tv.page.locator("#d-night")).to_be_visible()
    expect(tv.page.locator(".d-seat")).to_have_count(0)
    assert tv.missing_keys() == []
    tv.close()
    host.close()
