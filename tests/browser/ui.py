"""Driving the web client like a person does: one Player per browser context (its own tab
storage), clicks and typing only. Shared by the tests and the screenshot script."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable

from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

MOBILE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# Fast but clickable at --time-scale 5: night 9 s, vote 8 s, confirm 4 s of real time; the
# discussion may last 30 s but ends as soon as everyone presses "ready to move on".
FAST_OPTIONS = {
    "firstPhase": "night",
    "discussionMin": "150",
    "voteSeconds": "40",
    "defenseSeconds": "10",
    "confirmSeconds": "20",
    "nightSeconds": "45",
}

# Text from the server or from people: not translated, skipped by the language check.
UNTRANSLATED = (
    ".server-text, .user-text, .tile-name, .pname, .msg-from, #room-chip, #lang-select, .tl-day + *"
)

VISIBLE_TEXTS_JS = """(skip) => {
  const out = [];
  // Names and codes also appear alone in labels (a tile's aria-label is the name).
  const names = new Set([...document.querySelectorAll(skip)].map((e) => e.textContent.trim()));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || !el || el.closest(skip) || el.closest("script, style, noscript, code")) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === "hidden") continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("input[placeholder], [aria-label]")) {
    if (el.closest(skip) || !el.getClientRects().length) continue;
    const text = (el.getAttribute("placeholder") || el.getAttribute("aria-label") || "").trim();
    if (text) out.push(text);
  }
  return out.filter((t) => !names.has(t));
}"""


UNNAMED_JS = """() => [...document.querySelectorAll('button, input, select, textarea, [role=tab]')]
  .filter((el) => el.getClientRects().length && el.type !== 'hidden')
  .filter((el) => {
    const label = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') ||
      (el.labels && el.labels.length && [...el.labels].map((l) => l.textContent).join('').trim()) ||
      (el.tagName === 'BUTTON' || el.getAttribute('role') === 'tab' ? el.textContent.trim() : '') ||
      el.getAttribute('title');
    return !label;
  })
  .map((el) => el.outerHTML.slice(0, 120))"""


class Player:
    """One person at one phone (or laptop): a browser context with one page."""

    def __init__(
        self,
        browser: Browser,
        url: str,
        name: str,
        viewport: dict | None = None,
        locale: str = "en-US",
        errors: list[str] | None = None,
    ) -> None:
        self.name = name
        self.url = url
        self.context: BrowserContext = browser.new_context(viewport=viewport or MOBILE, locale=locale)
        self.page: Page = self.context.new_page()
        self.errors = errors if errors is not None else []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"{name}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"{name}: {e}"))
        self.page.on(
            "response", lambda r: r.status >= 500 and self.errors.append(f"{name}: {r.status} {r.url}")
        )
        self.role: str | None = None
        self.pid: str | None = None

    # ------------------------------------------------------------------ lobby
    def open(self, query: str = "") -> None:
        self.page.goto(self.url + query)
        if "display=" not in query:
            # the client's boot draws its first screen after the config arrives; a screen
            # mounted before that would be drawn over
            self.page.wait_for_selector("html[data-ready]", state="attached")

    def create(self, options: dict[str, str] | None = None) -> str:
        p = self.page
        self.open()
        p.fill("#create-name", self.name)
        if options:
            # the public list fills in above the settings as the page opens: a tap may miss
            open_fold(p, ".home-details", f"#home-opt-{next(iter(options))}")
            for key, value in options.items():
                control = p.locator(f"#home-opt-{key}")
                if control.evaluate("e => e.tagName") == "SELECT":
                    control.select_option(value)
                else:
                    control.fill(value)
                    control.dispatch_event("change")
        p.click("#create-btn")
        expect(p.locator(".lobby-player")).to_have_count(1)
        return p.locator("#room-chip").inner_text().strip()

    def join(self, link: str) -> None:
        p = self.page
        p.goto(link)
        p.fill("#join-name", self.name)
        p.click("#join-btn")
        expect(p.locator("#ready-btn")).to_be_visible()

    def ready(self) -> None:
        self.page.click("#ready-btn")
        expect(self.page.locator("#ready-btn")).to_have_attribute("aria-pressed", "true")

    # ------------------------------------------------------------------ game
    def phase(self) -> str | None:
        # one read: the banner may go (the end screen) between a count() and a get_attribute()
        return self.page.evaluate("() => document.querySelector('#phase-banner')?.dataset.kind || null")

    def wait_phase(self, kind: str, timeout: float = 30_000) -> None:
        expect(self.page.locator("#phase-banner")).to_have_attribute("data-kind", kind, timeout=timeout)
        self.check_no_keys()

    def check_no_keys(self) -> None:
        """Every test that waits for a phase or closes a page checks that no text key is on
        screen untranslated (the role card's chat tab, a phase title, an event line)."""
        keys = screen_keys(self.page)
        assert not keys, f"{self.name}: untranslated keys on screen: {sorted(keys)}"

    def read_role(self) -> str:
        """Peek at the role card with the "my role" button, then hide it again."""
        p = self.page
        p.click("#my-role-btn")
        card = p.locator(".overlay .role-name")
        expect(card).to_be_visible()
        self.role = card.get_attribute("data-role")
        p.locator(".overlay .btn").click()
        expect(p.locator(".overlay")).to_have_count(0)
        return self.role

    def my_pid(self) -> str:
        self.pid = self.page.locator(".tile.me").get_attribute("data-pid")
        return self.pid

    def dismiss_cards(self) -> None:
        cards = self.page.locator(".event-card button")
        for _ in range(10):
            if not cards.count():
                return
            try:
                cards.first.click(timeout=1000)
            except Exception:  # the card closed by itself meanwhile
                pass

    def tap(self, pid: str) -> None:
        self.dismiss_cards()
        tile = self.page.locator(f'.tile[data-pid="{pid}"]')
        expect(tile).to_have_class(has_class("selectable"))
        tile.click()
        expect(self.page.locator(f'.tile[data-pid="{pid}"]')).to_have_class(has_class("chosen"))

    def click(self, selector: str) -> None:
        self.dismiss_cards()
        self.page.click(selector)

    def watch(self, code: str | None = None, tries: int = 3) -> None:
        """Watch room `code` from the home screen (None: the code the address filled in): a
        tap on Watch, again while the page is still home. The lists fill in above the join
        form as the page opens, so a tap may land where the button was (seen on loaded
        clean-clone runs); a tap that lands leaves home at once (room.js `watch`)."""
        p = self.page
        if code is not None:
            p.fill("#join-code", code)
        for _ in range(tries):
            p.click("#watch-btn")
            try:
                p.wait_for_function("() => document.body.dataset.screen !== 'home'", timeout=5_000)
                return
            except PlaywrightTimeoutError:
                continue
        raise AssertionError(f"{self.name}: Watch never left the home screen")

    def say(self, channel: str, text: str) -> None:
        p = self.page
        p.click(f"#chat-tab-{channel}")
        p.fill("#chat-input", text)
        p.press("#chat-input", "Enter")
        expect(p.locator("#chat-log")).to_contain_text(text)

    def visible_texts(self) -> list[str]:
        return self.page.evaluate(VISIBLE_TEXTS_JS, UNTRANSLATED)

    def unnamed_controls(self) -> list[str]:
        """Visible buttons, inputs and selects without an accessible name (should be none)."""
        return self.page.evaluate(UNNAMED_JS)

    def missing_keys(self) -> list[str]:
        # the hook appears once the page has read the offline stack's config.json (testHooks)
        self.page.wait_for_function("() => window.__i18nMissing instanceof Set")
        return self.page.evaluate("() => [...window.__i18nMissing]")

    def close(self) -> None:
        try:
            if not self.page.is_closed():
                try:
                    keys = screen_keys(self.page)
                except PlaywrightError:  # the page was navigating or already gone: nothing to read
                    keys = set()
                assert not keys, f"{self.name}: untranslated keys on screen: {sorted(keys)}"
        finally:
            self.context.close()


def open_fold(page: Page, details: str, shows: str, tries: int = 3) -> None:
    """Open the <details> `details` by a tap on its summary until `shows` inside it is visible.
    A tap can miss while the panel moves or is drawn anew (a push redraws the host tools; the
    public list fills in above the home's settings): the press lands on the old summary, the
    release on the new, and nothing opens (seen on loaded clean-clone runs). A person taps
    again; so does this."""
    fold = page.locator(details)
    target = page.locator(shows).first
    for _ in range(tries):
        if fold.get_attribute("open") is None:
            fold.locator("summary").first.click()
        try:
            expect(target).to_be_visible(timeout=3_000)
            return
        except AssertionError:
            continue
    expect(target).to_be_visible()


def room_phase(url: str, room: str):
    """The room's phase as its REST summary gives it (``GET /api/rooms/{code}``)."""
    with urllib.request.urlopen(f"{url}api/rooms/{room}", timeout=60) as res:  # noqa: S310 - our 127.0.0.1 stack
        return json.load(res).get("phase")


def end_phase(stack, pl: Player, kind: str, steps: int = 60) -> None:
    """On a manual clock, with ``pl``'s page showing the ``kind`` phase (or past it: then
    nothing is stepped): step game time on (``stack.step_on``) until the room's phase has
    moved (its REST summary says so), then see the page leave the phase. The phase ends when
    the Scheduler's delivery comes (up to two minutes after its deadline, as on AWS, where the
    pages' nudges end it sooner): a phase shorter than that which follows may end with it; a
    test that must see such a phase nudges as a page would (`Link`). A step comes after the
    frames the stack has received: what the players did before it counts."""
    if pl.phase() != kind:
        return
    room = pl.page.locator("#room-chip").inner_text().strip()
    before = room_phase(stack.url, room)
    if before == kind:
        for _ in range(steps):
            stack.step_on()
            if room_phase(stack.url, room) != before:
                break
        else:
            raise AssertionError(f"room {room}: the {kind} phase never ended in {steps} steps")
    # it has ended (the step, or the players' moves before it): the page follows (to the next
    # phase, or to the end screen, which has no banner)
    expect(pl.page.locator(f'#phase-banner[data-kind="{kind}"]')).to_have_count(0, timeout=30_000)


# Game seconds a step moves the clock: less than the bots' shortest tick (TICK_MIN in
# layers/engine/mafia_engine/bots/loop.py), so the bots' moves a step passes can end one
# phase at most, and the next one starts after them, still ahead of the clock.
STEP_SECONDS = 1.0


class Link:
    """The page's own socket, passed through Playwright (`page.route_web_socket`), so that
    the test can nudge the room as the page would. On the manual clock the page's countdown
    holds, so after a step nobody would ask the room to play the bots' moves the step passed
    (they wait for the next Scheduler delivery, over a minute later, which then plays several
    phases in one request: too fast for any check). A `nudge` without a phase ends the phase
    if its deadline has passed, else plays the bots' moves due by now; either way the sender
    gets exactly one view frame (functions/service/room/operations.py, `nudge`)."""

    def __init__(self, page) -> None:
        self.page = page
        self.server = None
        self.frames = 0  # frames from the server to the page
        page.route_web_socket(re.compile(r"/ws(\?|$)"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()  # page -> server frames pass unchanged

        def to_page(message) -> None:
            self.frames += 1
            ws.send(message)

        server.on_message(to_page)
        self.server = server  # a reconnect replaces the socket

    def advance(self, stack, seconds: float = STEP_SECONDS) -> None:
        """Step the clock, then nudge and wait for the answer: the page has drawn what the
        bots and the clock did before the test looks again."""
        assert self.server is not None, "the page has no socket"
        stack.step(advance=seconds)
        before = self.frames
        self.server.send(json.dumps({"action": "nudge", "id": "test-step"}))
        for _ in range(400):  # 10 s, a page's wait for a push (conftest.py)
            if self.frames > before:
                break
            self.page.wait_for_timeout(25)  # Playwright delivers the frames while it waits
        else:
            raise AssertionError("no answer to the nudge in 10 s")


def has_class(cls: str) -> re.Pattern:
    """A pattern for expect(...).to_have_class that matches one class among several."""
    return re.compile(rf"(^|\s){cls}(\s|$)")


def seat_everyone(
    browser: Browser,
    url: str,
    names: list[str],
    errors: list[str],
    host_viewport: dict | None = None,
    options: dict | None = None,
    hook: Callable[[str, list[Player]], None] | None = None,
) -> list[Player]:
    """The first name creates a room, the others join with the share link and get ready."""
    host = Player(browser, url, names[0], viewport=host_viewport or MOBILE, errors=errors)
    if hook:
        host.open()
        expect(host.page.locator("#create-btn")).to_be_visible()
        hook("home", [host])
    host.create(options if options is not None else FAST_OPTIONS)
    link = host.page.locator("#share-link").input_value()
    players = [host]
    for name in names[1:]:
        guest = Player(browser, url, name, errors=errors)
        guest.join(link)
        guest.ready()
        players.append(guest)
    expect(host.page.locator(".lobby-player.is-ready")).to_have_count(len(names) - 1)
    if hook:
        hook("lobby", players)
    return players


def start_and_learn_roles(players: list[Player]) -> dict[str, list[Player]]:
    """Host starts; everyone peeks at the role card. Returns players grouped by role."""
    players[0].click("#start-btn")
    for pl in players:
        expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    by_role: dict[str, list[Player]] = {}
    for pl in players:
        pl.my_pid()
        by_role.setdefault(pl.read_role(), []).append(pl)
    return by_role


def play_classic(
    players: list[Player],
    by_role: dict[str, list[Player]],
    hook: Callable[[str], None] = lambda stage: None,
    stack=None,
) -> None:
    """Five players (auto: 1 mafia, police, doctor, 2 citizens) play to a town win:
    night 1 the mafia kills a citizen, the doctor guards themselves, the police checks the
    mafioso; day 2 the town votes the mafioso out. `hook(stage)` runs at each stage.

    The reveal (not every card is tapped) and the night end at their deadlines: with a
    manual-clock `stack` the test steps there (`end_phase`); else the clock gets there.
    The discussion ends when everyone is ready; the vote and the confirmation at their
    deadlines too (a step comes after the frames the stack has received: the ballots count)."""
    mafia, doctor, police = by_role["mafia"][0], by_role["doctor"][0], by_role["police"][0]
    victim = by_role["citizen"][0]

    def deadline(pl: Player, kind: str) -> None:
        if stack is not None and stack.manual_clock:
            end_phase(stack, pl, kind)

    deadline(players[0], "roleReveal")
    for pl in players:
        pl.wait_phase("night")
    hook("night")
    mafia.tap(victim.pid)
    doctor.tap(doctor.pid)
    police.tap(mafia.pid)
    hook("night-chosen")
    deadline(police, "night")

    for pl in players:
        pl.wait_phase("discussion")
    hook("day")
    alive = [pl for pl in players if pl is not victim]
    for pl in alive:
        pl.click("#ready-early-btn")

    for pl in alive:
        pl.wait_phase("vote")
    hook("vote")
    for pl in alive:
        pl.tap(police.pid if pl is mafia else mafia.pid)
    hook("voted")
    deadline(police, "vote")
    deadline(police, "defense")  # the accused speaks (on a moving clock it may be over already)

    for pl in alive:
        pl.wait_phase("confirm")
    hook("confirm")
    for pl in alive:
        if pl is not mafia:
            pl.click("#yes-btn")
            expect(pl.page.locator("#yes-btn")).to_have_attribute("aria-pressed", "true")
            expect(pl.page.locator("#my-vote")).to_have_text("Your vote: Execute")
    deadline(police, "confirm")

    for pl in players:
        expect(pl.page.locator("#end-title")).to_be_visible(timeout=30_000)
    hook("end")


# Words that are the same in every language.
SAME_EVERYWHERE = {"MVP"}


def check_switch(pl: Player, before_lang: str, after_lang: str) -> None:
    """Switch the language with the picker; no visible word of the old language may remain."""
    pl.page.select_option("#lang-select", before_lang)
    before = set(pl.visible_texts())
    pl.page.select_option("#lang-select", after_lang)
    expect(pl.page.locator("html")).to_have_attribute("lang", after_lang)
    after = set(pl.visible_texts())
    stale = {t for t in before & after if re.search(r"[^\W\d_]", t) and t not in SAME_EVERYWHERE}
    assert not stale, f"still {before_lang} after switching to {after_lang}: {sorted(stale)}"


# Every visible word of the page (text, labels, placeholders, tooltips), with the players'
# names and the room code taken out: those are the players' own words. People's chat
# (.user-text) is theirs too.
PAGE_WORDS_JS = """() => {
  const names = [...document.querySelectorAll('.tile-name, .pname, #room-chip')]
    .map((e) => e.textContent.trim()).filter(Boolean).sort((a, b) => b.length - a.length);
  // <code>: machine text in no language (the fair deal's hash, seed, salt and command)
  const skip = '.user-text, #lang-select, script, style, noscript, .sr-only-ignore, code';
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || !el.getClientRects().length) continue;
    out.push(n.textContent);
  }
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
    if (el.closest(skip) || !el.getClientRects().length) continue;
    for (const a of ['aria-label', 'placeholder', 'title']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  out.push(document.title);
  return out.map((t) => names.reduce((s, name) => s.split(name).join(' '), t)).map((t) => t.trim()).filter(Boolean);
}"""
LATIN = re.compile(r"[A-Za-z]+")
LATIN_WORDS_OK = {"MVP", "QR", "SHA", "TV", "HDMI"}  # written so in Korean and Russian too (SHA-256: the fair deal; TV, HDMI: the room's screen)
RAW_IDS = re.compile(r"\bp\d+\b|\b(classic|city|original)\b|\b[a-z]+[A-Z]\w*\b|\b[a-z]+_[a-z_]+\b")


# A text key that reached the screen untranslated ("chat.channel.yakuza", "phase.lastWord"):
# i18n.js shows the key itself when no language has it. Two letters at least on each side
# of a dot, so "e.g." and numbers ("1.5") are not keys.
KEY_SHAPED = re.compile(r"\b[a-z][a-zA-Z]+(?:\.[a-zA-Z][a-zA-Z]+)+\b")


def screen_keys(page) -> set[str]:
    """Key-shaped words on the page (text, labels, placeholders, titles): should be none."""
    return {f"key {m.group(0)!r} in {text!r}" for text in page.evaluate(PAGE_WORDS_JS) for m in KEY_SHAPED.finditer(text)}


def foreign_words(page, lang: str) -> set[str]:
    """Words that should not be on a page in `lang`: Latin script in ko/ru, raw ids and
    untranslated keys anywhere."""
    return foreign_in(page.evaluate(PAGE_WORDS_JS), lang)


def foreign_in(texts: list[str], lang: str) -> set[str]:
    """`foreign_words` of texts a page gave (PAGE_WORDS_JS, read in a look of its own)."""
    bad = set()
    for text in texts:
        if lang in ("ko", "ru"):
            bad |= {f"{w!r} in {text!r}" for w in LATIN.findall(text) if w not in LATIN_WORDS_OK}
        bad |= {f"id {m.group(0)!r} in {text!r}" for m in RAW_IDS.finditer(text)}
        bad |= {f"key {m.group(0)!r} in {text!r}" for m in KEY_SHAPED.finditer(text)}
    return bad
