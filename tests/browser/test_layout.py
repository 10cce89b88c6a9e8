"""Phones from 320 to 430 px wide with the longest name (20 characters): nothing widens the
page, the Send button stays beside the chat input, a message being typed survives the next
phase, and the announcements sit under the phase banner without covering it or the chat.

The home screen is the page as it opens; the lobby and the game's screens come from scripted
states (tests/browser/scripted.py): the service's lobby view, the engine's views of a classic
game, each arriving as the app's frames do (`show`), one after another on the same page where
what a screen keeps across views matters (a draft, the news card)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .scripted import Scripted, lobby_view, show
from .ui import Player, open_fold

# ui.FAST_OPTIONS as the service keeps them once the host has set them (numbers)
FAST_OPTIONS = {
    "firstPhase": "night",
    "discussionMin": 150,
    "voteSeconds": 40,
    "defenseSeconds": 10,
    "confirmSeconds": 20,
    "nightSeconds": 45,
}
BOTS = ("p2", "p3", "p4", "p5")

LONGEST = "Wolfgang Maximiliano"  # 20 characters, the maximum a name may have
assert len(LONGEST) == 20

OVERFLOW_JS = """() => {
  const w = window.innerWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter((e) => e.getClientRects().length && getComputedStyle(e).position !== 'fixed')
    .filter((e) => !e.closest('.sr-only, .skip-link'))
    .filter((e) => e.getBoundingClientRect().right > w + 1)
    .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
  return {scroll: document.documentElement.scrollWidth, width: w, wide: wide.slice(0, 5)};
}"""


def assert_fits(pl: Player, where: str) -> None:
    got = pl.page.evaluate(OVERFLOW_JS)
    assert got["scroll"] <= got["width"] and not got["wide"], f"{where}: wider than the screen: {got}"


def box(pl: Player, selector: str) -> dict:
    b = pl.page.locator(selector).bounding_box()
    assert b, selector
    return b


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("width,height,role", [(320, 640, "mafia"), (390, 844, "citizen")])
def test_longest_name_fits_a_phone_and_the_chat_stays_usable(browser, stack, console_errors, width, height, role):
    """`role`: the person's seat (p1). A mafioso's chat follows the mafia's tab at night, a
    citizen's stays on the town's: the day's draft survives either way."""
    pl = Player(browser, stack.url, LONGEST, viewport={"width": width, "height": height}, errors=console_errors)
    page = pl.page
    pl.open()
    page.fill("#create-name", LONGEST)
    open_fold(page, ".home-details", "#home-opt-nightSeconds")
    page.locator("#home-opt-nightSeconds").fill("20")
    page.locator("#home-opt-nightSeconds").dispatch_event("change")
    assert_fits(pl, "home")
    # Too few players: Start is off and the lobby says why, with the numbers.
    assert show(page, lobby_view("classic", [LONGEST], options={"nightSeconds": 20})) == "lobby"
    expect(page.locator(".lobby-player")).to_have_count(1)
    expect(page.locator("#start-btn")).to_be_disabled()
    expect(page.locator("#setup-error")).to_contain_text("at least")
    assert show(page, lobby_view("classic", [LONGEST], bots=4, options={"nightSeconds": 20})) == "lobby"
    expect(page.locator(".lobby-player")).to_have_count(5)
    expect(page.locator("#start-btn")).to_be_enabled()
    assert_fits(pl, "lobby")
    roles = [role, "police", "doctor", "citizen", "mafia" if role != "mafia" else "citizen"]
    g = Scripted("classic", roles, names=[LONGEST], bots=BOTS, nightSeconds=20)
    show(page, g.view("p1"))
    pl.wait_phase("roleReveal")
    g.until("greeting")  # nobody taps the card: the reveal runs out
    show(page, g.view("p1"), fresh=False)
    pl.wait_phase("greeting")
    expect(page.locator(".tile.me .tile-name")).to_have_attribute("title", LONGEST)
    assert_fits(pl, "greeting")

    # The role dialog fits too.
    page.click("#my-role-btn")
    dialog = box(pl, ".overlay .role-card")
    assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= width, dialog
    page.keyboard.press("Escape")

    # Send sits beside the input, inside the screen.
    page.click("#chat-tab-day")
    field, send = box(pl, "#chat-input"), box(pl, "#chat-send")
    assert abs((field["y"] + field["height"] / 2) - (send["y"] + send["height"] / 2)) < 4, (field, send)
    assert send["x"] >= field["x"] + field["width"] and send["x"] + send["width"] <= width, (field, send)

    # Half a message survives the views the bots push and the fall of night.
    page.fill("#chat-input", "I think the quiet one")
    g.act("chat", "p3", channel="day", text="Good morning, all")
    show(page, g.view("p1"), fresh=False)
    expect(page.locator("#chat-log")).to_contain_text("Good morning, all")
    # the greeting has no early end (docs/rules.md, classic, "Day"): it ends by itself
    g.until("night")
    show(page, g.view("p1"), fresh=False)
    pl.wait_phase("night")
    # A mafioso's chat follows the mafia's tab at night (a draft per channel, game/chat.js):
    # the day's draft is there when its tab is chosen; a citizen never left it.
    if role == "mafia":
        expect(page.locator("#chat-tab-mafia")).to_have_attribute("aria-selected", "true")
    page.click("#chat-tab-day")
    expect(page.locator("#chat-input")).to_have_value("I think the quiet one")
    # Night fall has its sound cue (muted here: browsers under test start muted).
    assert {"cue": "night", "played": False} in page.evaluate("() => window.__cues")
    expect(page.locator(".tile-votes")).to_have_count(0)
    assert_fits(pl, "night")

    # Morning: the news is a card inside the banner, under the title and the clock; it covers
    # neither them nor the chat tabs.
    mafioso = next(p for p in g.ids if g.role_of(p) == "mafia")
    g.act("mafiaTarget", mafioso, target="p4")
    g.until("discussion")
    show(page, g.view("p1"), fresh=False)
    expect(page.locator("#phase-banner")).not_to_have_attribute("data-kind", "night")
    expect(page.locator("#event-slot .event-card")).to_have_count(1)
    c = box(pl, "#event-slot .event-card")
    for part in ("#phase-title", "#countdown"):
        assert not overlaps(c, box(pl, part)), f"the card covers {part}"
    # The chat tabs still take a tap (Playwright fails a click on a covered element).
    page.locator("#chat-tab-day").click(trial=True, timeout=3000)
    page.locator("#chat-tab-system").click(trial=True, timeout=3000)
    assert_fits(pl, "day 2")
    assert pl.missing_keys() == [], pl.missing_keys()
    pl.close()


# Every control of the top bar, when shown.
TOP_BAR_JS = """() => [...document.querySelectorAll(
    '#room-chip, #rules-btn, #my-role-btn, .lang-pick, #sound-btn, .kid-toggle')]
  .filter((e) => e.getClientRects().length)
  .map((e) => { const b = e.getBoundingClientRect();
    return {id: e.id || e.className, x: b.x, y: b.y, right: b.right, bottom: b.bottom, h: b.height}; })"""

# Text that does not fit its box: an element whose content is wider than it and is clipped
# (overflow hidden: cut or an ellipsis) or spills over its neighbours (overflow visible).
# Form fields scroll their own value; the chat log scrolls.
CUT_JS = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getClientRects().length && !e.closest('.sr-only, .skip-link'))
  .filter((e) => !['INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'svg', 'canvas'].includes(e.tagName))
  .filter((e) => !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
  .filter((e) => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)
  .map((e) => `${e.tagName}#${e.id}.${e.className} "${e.textContent.trim().slice(0, 40)}"`)"""

# A field's hint (placeholder) or a select's chosen option wider than the field's text box
# is cut on screen (the field does not scroll it). A select keeps ~24 px for its arrow.
FIELD_CUT_JS = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  const out = [];
  for (const e of document.querySelectorAll('input[placeholder], select')) {
    if (!e.getClientRects().length || getComputedStyle(e).opacity === '0') continue;
    const text = e.tagName === 'SELECT' ? (e.selectedOptions[0] || {}).text || '' : (e.value ? '' : e.placeholder);
    const cs = getComputedStyle(e);
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - (e.tagName === 'SELECT' ? 24 : 0);
    if (ctx.measureText(text).width > room) out.push(`${e.tagName}#${e.id} "${text}"`);
  }
  return out;
}"""


def top_bar_rows(pl: Player) -> list[dict]:
    return pl.page.evaluate(TOP_BAR_JS)


def assert_nothing_cut(pl: Player, where: str) -> None:
    assert_fits(pl, where)
    cut = pl.page.evaluate(CUT_JS)
    assert cut == [], f"{where}: text wider than its box: {cut}"
    fields = pl.page.evaluate(FIELD_CUT_JS)
    assert fields == [], f"{where}: a field's text is cut: {fields}"


def game_with_bots(name: str) -> Scripted:
    """The person (p1, the host) and four bots, classic: the role reveal."""
    return Scripted("classic", ["citizen", "mafia", "police", "doctor", "citizen"], names=[name], bots=BOTS, **FAST_OPTIONS)


def test_top_bar_is_one_line_on_a_390_px_phone_in_every_language(browser, stack, console_errors):
    """The Russian top bar took two lines on a 390x844 phone: room code, Rules, My role, the
    language, sound and kid wording now share one row in English, Korean and Russian."""
    pl = Player(
        browser, stack.url, "Александра", viewport={"width": 390, "height": 844}, errors=console_errors
    )
    pl.open()
    show(pl.page, game_with_bots("Александра").view("p1"))
    expect(pl.page.locator("#my-role-btn")).to_be_visible()
    for lang in ("en", "ko", "ru"):
        pl.page.select_option("#lang-select", lang)
        expect(pl.page.locator("#lang-code")).to_have_text({"en": "Eng", "ko": "한국어", "ru": "Рус"}[lang])
        parts = top_bar_rows(pl)
        assert len(parts) == 6, parts
        tops = [p["y"] for p in parts]
        bottoms = [p["bottom"] for p in parts]
        # one row: every control overlaps the tallest one's band vertically
        assert max(tops) < min(bottoms), f"{lang}: the top bar wraps: {parts}"
        assert all(p["x"] >= 0 and p["right"] <= 390 for p in parts), f"{lang}: {parts}"
        assert pl.page.locator(".topbar").bounding_box()["height"] <= 56, lang
    # the short name stands over the native select: a tap there still opens the list
    pick, select = box(pl, ".lang-pick"), box(pl, "#lang-select")
    assert abs(pick["x"] - select["x"]) < 1 and abs(pick["width"] - select["width"]) < 1, (pick, select)
    pl.close()


@pytest.mark.parametrize("lang", ["ru", "ko", "en"])
def test_nothing_is_cut_on_a_320_px_phone(browser, stack, console_errors, lang):
    """At 320 px: no text wider than its box (top bar, lobby, role card, night), no control
    outside the screen or on top of another, and the read-only chat hint shown whole."""
    pl = Player(
        browser,
        stack.url,
        {"ru": "Александра", "ko": "김민지", "en": "Maximiliano"}[lang],
        viewport={"width": 320, "height": 640},
        locale={"ru": "ru-RU", "ko": "ko-KR", "en": "en-US"}[lang],
        errors=console_errors,
    )
    page = pl.page
    pl.open()
    open_fold(page, ".home-details", ".home-options .hint")
    for preset in page.locator("#create-preset option").all():
        page.select_option("#create-preset", preset.get_attribute("value"))
        assert_nothing_cut(pl, f"home, {preset.get_attribute('value')} rules with their options")
    name = {"ru": "Александра", "ko": "김민지", "en": "Maximiliano"}[lang]
    assert show(page, lobby_view("classic", [name], bots=4, options=FAST_OPTIONS)) == "lobby"
    expect(page.locator(".lobby-player")).to_have_count(5)
    assert_nothing_cut(pl, "lobby")
    g = game_with_bots(name)
    show(page, g.view("p1"))
    expect(page.locator("#my-role-btn")).to_be_visible()
    assert_nothing_cut(pl, "role card")
    parts = top_bar_rows(pl)
    assert all(p["x"] >= 0 and p["right"] <= 320 for p in parts), parts
    for i, a in enumerate(parts):
        for b in parts[i + 1 :]:
            assert not overlaps(
                {"x": a["x"], "y": a["y"], "width": a["right"] - a["x"], "height": a["h"]},
                {"x": b["x"], "y": b["y"], "width": b["right"] - b["x"], "height": b["h"]},
            ), (a, b)
    # The clock stays beside the phase title.
    title, clock = box(pl, "#phase-title"), box(pl, "#countdown")
    assert clock["x"] >= title["x"] + title["width"] and clock["y"] < title["y"] + title["height"], (
        title,
        clock,
    )
    # Night: everyone's chat is read-only; its hint fits the field (Send makes room).
    g.until("night")  # nobody taps the card: the reveal runs out
    show(page, g.view("p1"), fresh=False)
    pl.wait_phase("night")
    page.click("#chat-tab-day")
    expect(page.locator("#chat-input")).to_be_disabled()
    expect(page.locator("#chat-send")).to_be_hidden()
    assert_nothing_cut(pl, "night")  # the read-only hint in the chat field among the rest
    # Day: the chat this player may write in (the town's, or the dead's) with Send beside it,
    # the night's news in the banner.
    g.act("mafiaTarget", "p2", target="p5")
    g.until("discussion")
    show(page, g.view("p1"), fresh=False)
    pl.wait_phase("discussion")
    expect(page.locator("#event-slot .event-card")).to_have_count(1)
    expect(page.locator("#chat-send")).to_be_visible()
    expect(page.locator("#chat-input")).to_be_enabled()
    assert_nothing_cut(pl, "day")
    assert pl.missing_keys() == [], pl.missing_keys()
    pl.close()
