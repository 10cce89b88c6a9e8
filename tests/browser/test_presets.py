"""Every rulebook through the client: one person and bots play until the end screen,
answering whatever the action panel asks. No console errors, no missing translation keys,
every phase kind the page shows gets a title, and the end screen lists every seat's role.
Each game runs in another language, and every screen on the way is read: a Korean or Russian
page shows no Latin-script word that is not a player's name or the room code, and no page
shows an internal id (`p3`, `classic`, `mafiaTarget`)."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from .display_follow import ScreenWatch
from .scripted import LOCALES
from .stack import Stack
from .ui import PAGE_WORDS_JS, Player, foreign_in, foreign_words, open_fold

# Game time is stepped (a manual clock, local/scheduler.py `advance`): when the panel asks
# the person nothing for IDLE_CHECKS looks in a row, the test moves the clock to the next
# Scheduler delivery, which ends the phase (the bots' moves due by then are made in that
# request). No phase can pass unseen, whatever the machine's load.
IDLE_CHECKS = 3

# The shortest legal clocks of each rulebook (the person ends a phase early where the
# panel allows). Over 1000 seeded engine games with bots, the longest took about 340 game
# seconds (classic), 200 (city) and 780 (original).
SHORT_OPTIONS = {
    "classic": {
        "firstPhase": "night",
        "discussionMin": "30",
        "discussionMax": "30",
        "voteSeconds": "10",
        "defenseSeconds": "10",
        "confirmSeconds": "5",
        "nightSeconds": "15",
    },
    "city": {
        "roleRevealSeconds": "5",
        "nightSeconds": "15",
        "discussionSeconds": "30",
        "voteSeconds": "10",
        "defenseSeconds": "10",
    },
    "original": {
        "roleRevealSeconds": "5",
        "nightSeconds": "20",
        "speechSeconds": "20",
        "defenseSeconds": "10",
        "voteSeconds": "10",
        "lastWordSeconds": "5",
    },
}
# A cap on one game's real time, well above the longest game above: a hang fails here.
PLAY_SECONDS = 300  # a wedge guard: a loaded machine (four parts on two cores) is several times slower

# Every phase the page shows, with its title, however briefly: at this speed a phase may
# come and go between two polls of the test.
RECORD_PHASES_JS = """
window.__phases = [];
new MutationObserver(() => {
  const banner = document.querySelector("#phase-banner");
  const title = document.querySelector("#phase-title");
  if (!banner || !banner.dataset.kind) return;
  const seen = [banner.dataset.kind, title ? title.textContent.trim() : ""];
  const last = window.__phases[window.__phases.length - 1];
  if (!last || last[0] !== seen[0] || last[1] !== seen[1]) window.__phases.push(seen);
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-kind"] });
"""


@pytest.fixture(scope="module")
def fast_stack():
    """The module's own stack: `step(to="next")` moves to this room's next delivery. One
    handler container (one person's game at a time: its invocations need no second one) boots
    in less than half the CPU of four."""
    s = Stack(manual_clock=True, seed=22, extra=("--containers", "1"))
    yield s
    s.stop()


# A click only while the page still shows phase `kind`: the check and the click run in one
# task of the page, so a view that arrives meanwhile (the next phase) cannot take the click.
GUARDED_CLICK_JS = """(el, kind) => {
  if (!el.isConnected || document.querySelector('#phase-banner')?.dataset.kind !== kind) return false;
  el.click();
  return true;
}"""


def try_click(loc, kind: str | None = None) -> bool:
    """Click if it is still there: the next view may redraw the panel at any moment. With
    `kind`, only while the page shows that phase (a DOM click, see GUARDED_CLICK_JS)."""
    try:
        if kind is None:
            loc.click(timeout=1500)
            return True
        return bool(loc.evaluate(GUARDED_CLICK_JS, kind, timeout=1500))
    except PlaywrightError:
        return False


# What the screen asks for, in one look (a look per control was most of a whole game's CPU):
# the controls `answer_once` would press, in its order; `cards` when a news card is open.
PRESS = ["#reveal-role-btn", "#end-turn-btn", "#yes-btn", "#no-nomination-btn"]
ASKED_JS = """([press, rest]) => {
  const out = [];
  for (const s of press) if (document.querySelector(`${s}:enabled:not([aria-pressed=true])`)) out.push(s);
  if (!document.querySelector(".tile.selectable.chosen") && document.querySelector(".tile.selectable")) out.push("tile");
  for (const s of rest) if (document.querySelector(`${s}:enabled`)) out.push(s);
  return {cards: Boolean(document.querySelector(".event-card button")), asked: out};
}"""


def answer_once(pl: Player, kind: str | None = None) -> str | None:
    """Do the first thing the screen asks for; returns what was done. With `kind`, act only
    on that phase's screen (test_a11y.py acts on a screen only once axe has checked it)."""
    page = pl.page
    look = page.evaluate(ASKED_JS, [PRESS, ["#sleep-btn", "#ready-early-btn"]])
    if look["cards"]:
        pl.dismiss_cards()
        look = page.evaluate(ASKED_JS, [PRESS, ["#sleep-btn", "#ready-early-btn"]])
    # One pick a phase: classic tiles stay selectable after a choice (another tap changes it).
    for asked in look["asked"]:  # the next one when the view redrew the panel meanwhile
        if asked == "tile":
            loc = page.locator(".tile.selectable").first
        elif asked in PRESS:
            loc = page.locator(f"{asked}:enabled:not([aria-pressed=true])").first
        else:
            loc = page.locator(f"{asked}:enabled").first
        if try_click(loc, kind):
            return asked
    return None


def create_room(pl: Player, preset: str, options: dict[str, str], bots: int) -> None:
    page = pl.page
    pl.open()
    page.fill("#create-name", pl.name)
    page.select_option("#create-preset", preset)  # first: a new rulebook resets the options
    open_fold(page, ".home-details", f"#home-opt-{next(iter(options))}")
    for key, value in options.items():
        control = page.locator(f"#home-opt-{key}")
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)
            control.dispatch_event("change")
    page.click("#create-btn")
    expect(page.locator(".lobby-player")).to_have_count(1)
    for n in range(bots):
        page.click("#add-bot-btn")
        expect(page.locator(".lobby-player")).to_have_count(n + 2)


# One look at the person's page (one call, not one per question: the game's looks were most
# of its CPU): the end screen, the phase, the role card, the night box (is it there, is the
# person alive, does it say "no chat"), tally badges at night, and the words on screen.
LOOK_JS = (
    """() => {
  const box = document.querySelector('#task-box');
  return {
    end: Boolean(document.querySelector('#end-title')),
    phase: document.querySelector('#phase-banner')?.dataset.kind || null,
    role: document.querySelector('.role-card .role-name')?.getAttribute('data-role') ?? null,
    night: box ? {alive: !document.querySelector('.tile.me.dead'), noChat: Boolean(document.querySelector('#no-night-chat'))} : null,
    nightVotes: Boolean(document.querySelector('#phase-banner[data-tone="night"]') && document.querySelector('.tile-votes')),
    texts: ("""
    + PAGE_WORDS_JS
    + """)(),
  };
}"""
)
# The room's screen beside a whole game: a TV for classic, a laptop for original.
SCREENS = {"classic": {"width": 1920, "height": 1080}, "original": {"width": 1280, "height": 720}}
NAMES = {"ko": "민지", "ru": "Аня", "en": "Ann"}


@pytest.mark.parametrize(
    ("preset", "bots", "lang"), [("classic", 3, "ko"), ("city", 4, "ru"), ("original", 7, "en")]
)
def test_one_person_and_bots_play_a_preset_to_the_end(
    browser, fast_stack, console_errors, preset, bots, lang
):
    pl = Player(browser, fast_stack.url, NAMES[lang], locale=LOCALES[lang], errors=console_errors)
    page = pl.page
    page.add_init_script(RECORD_PHASES_JS)
    seen_bad: dict[str, str] = {}

    def read_page(where: str) -> None:
        for word in foreign_words(page, lang):
            seen_bad.setdefault(word, where)

    pl.open()
    expect(page.locator("#create-btn")).to_be_visible()
    read_page("home")
    create_room(pl, preset, SHORT_OPTIONS[preset], bots)
    read_page("lobby")
    # the room's screen follows the whole game beside a spectator (display_follow.py)
    watch = None
    if preset in SCREENS:
        watch = ScreenWatch(browser, fast_stack.url, pl, SCREENS[preset], console_errors, LOCALES[lang])
    page.click("#start-btn")
    expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)

    done: list[str] = []
    idle = 0
    role = None  # the person's role, once their card is open
    deadline = time.monotonic() + PLAY_SECONDS
    while not (look := page.evaluate(LOOK_JS))["end"]:
        if time.monotonic() > deadline:
            seen = [kind for kind, _ in page.evaluate("() => window.__phases")]
            pytest.fail(f"{preset}: no end screen after {PLAY_SECONDS} s; phases {seen}; person {done}")
        for word in foreign_in(look["texts"], lang):
            seen_bad.setdefault(word, look["phase"] or "end")
        if watch is not None:
            watch.maybe_check(look["phase"])
        if role is None:  # read in one look: the card may close between two separate reads
            role = look["role"]
        # City: the mafia has no night chat by these rules, and its night screen says so.
        if preset == "city" and role:
            night = look["night"]
            if night and night["alive"]:
                assert night["noChat"] == (role == "mafia"), (role, night)
        # After a night the day's tally badges are gone from the tiles.
        assert not look["nightVotes"], "vote badges at night"
        did = answer_once(pl)
        if did is not None:
            done.append(did)
            idle = 0
            continue
        idle += 1
        if idle < IDLE_CHECKS:
            page.wait_for_timeout(100)  # the page may still be drawing the last push
            continue
        idle = 0
        fast_stack.step(to="next")

    expect(page.locator("#end-title")).to_be_visible()
    expect(page.locator("#end-roles li")).to_have_count(bots + 1)
    # the post-game review (docs/rules.md, "Post-game review"): a night-by-night timeline, each step expandable
    expect(page.locator("#review")).to_be_visible()
    first = page.locator("#review-step-0")
    first.locator("summary").click()
    expect(first.locator(".review-item").first).to_be_visible()
    # every step open, so the language check reads the whole review
    page.evaluate("() => document.querySelectorAll('#review details').forEach((d) => (d.open = true))")
    read_page("end")
    # The rules sheet's roles (view.roster) are the cards the end screen shows.
    dealt = Counter(
        page.locator("#end-roles .end-role").evaluate_all("(els) => els.map((e) => e.dataset.role)")
    )
    page.click("#rules-btn")
    sheet = page.locator("#rules-roles li")
    expect(sheet.first).to_be_visible()
    listed = sheet.evaluate_all("(els) => els.map((e) => [e.dataset.role, Number(e.dataset.count)])")
    assert dict(listed) == dict(dealt), (listed, dealt)
    read_page("rules")
    page.keyboard.press("Escape")
    assert not seen_bad, f"{lang}: words not in {lang} or internal ids: {seen_bad}"
    phases = page.evaluate("() => window.__phases")
    for kind, title in phases:
        assert title and title != "Next step", f"{preset}: no title for phase {kind!r}"
    kinds = {kind for kind, _ in phases}
    assert {"roleReveal", "night"} <= kinds, phases
    if preset == "original":
        assert "speech" in kinds, phases
    assert pl.missing_keys() == [], pl.missing_keys()
    if watch is not None:
        watch.check_end(bots + 1)
        compared = watch.same_views()
        drawn = watch.check_recorded()
        print(f"{preset}: the screen checked live at {len(watch.seen)} phases {watch.seen}; drawn {drawn}; "
              f"{compared} versions byte for byte")
        assert compared >= len(watch.seen), (compared, watch.seen)
        watch.close()
    pl.close()
