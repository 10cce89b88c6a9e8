"""Screen readers and keyboards: axe-core 4 on every screen a player meets, in every
language, with 0 critical and 0 serious violations; phase changes reach the live region.

One game per preset (a person and bots, driven as tests/browser/test_presets.py drives
them). Each time a screen kind shows up that is not yet checked in some language, the test
switches the language picker to that language and runs axe: the screen kinds that come
every day (night, vote) are checked on the first day they pass, the rare ones (defense,
the end) in all three languages at once. Single-device screens are checked in one game of
their own (untimed, so nothing races the checks).

Every game runs on the manual clock (`stack`, tests/browser/conftest.py): game time
stands still while axe runs. Once the screen's checks are done and the panel asks the person
nothing, the test moves the clock a second and nudges the room through the page's socket
(`Link`), so each step can end one phase at most and the page shows it before the next
step: no phase ends under a check and none passes unchecked, however busy the machine is."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from .axe import AXE_JS, MISSING_AXE, audit, blocking, record
from .test_device import Table
from .test_presets import IDLE_CHECKS, RECORD_PHASES_JS, answer_once, create_room
from .ui import Link, Player, end_phase, room_phase, seat_everyone, start_and_learn_roles

LANGS = ("ko", "ru", "en")
LOCALES = {"ko": "ko-KR", "ru": "ru-RU", "en": "en-US"}
NAMES = {"ko": "민지", "ru": "Аня", "en": "Ann"}
# On the manual clock a phase lasts until the test steps past it, so these lengths only
# set the bots' planned moves against the deadlines; the person still ends discussions early.
OPTIONS = {
    "classic": {"firstPhase": "night", "discussionMin": "30", "discussionMax": "30", "voteSeconds": "30",
                "defenseSeconds": "30", "confirmSeconds": "30", "nightSeconds": "30"},
    "city": {"roleRevealSeconds": "30", "nightSeconds": "30", "discussionSeconds": "30",
             "voteSeconds": "30", "defenseSeconds": "30"},
    "original": {"roleRevealSeconds": "30", "nightSeconds": "30", "speechSeconds": "20",
                 "defenseSeconds": "30", "voteSeconds": "30", "lastWordSeconds": "10"},
}
BOTS = {"classic": 4, "city": 5, "original": 7}
# The screens every game of the preset passes (the person nominates in `original`'s
# speeches, so its trial always has a defense).
MUST_SEE = {
    "classic": {"home", "lobby", "role-card", "night", "discussion", "vote", "end", "rules"},
    "city": {"home", "lobby", "role-card", "roleReveal", "night", "discussion", "vote", "end", "rules"},
    "original": {"home", "lobby", "role-card", "roleReveal", "night", "speech", "defense", "vote", "end", "rules"},
}
# A cap on one game's real time (about 30 axe runs and the stepped phases): a hang fails here.
PLAY_SECONDS = 420


@pytest.fixture(scope="module", autouse=True)
def axe_installed():
    if not AXE_JS.exists():
        pytest.fail(MISSING_AXE, pytrace=False)


class Checker:
    """Runs axe on a page in each language once per screen kind; keeps what it found."""

    def __init__(self, pl: Player, preset: str, home_lang: str) -> None:
        self.pl = pl
        self.preset = preset
        self.lang = home_lang
        self.seen: dict[str, set[str]] = {}  # screen kind -> languages checked
        self.bad: list[str] = []

    def set_lang(self, lang: str) -> None:
        if lang != self.lang:
            self.pl.page.select_option("#lang-select", lang)
            expect(self.pl.page.locator("html")).to_have_attribute("lang", lang)
            self.lang = lang

    def check(self, kind: str, still=lambda: True) -> None:
        """axe in every language not yet checked for `kind`; `still()` says the screen is
        still that kind (a phase may end during a check: then the result counts for nothing)."""
        for lang in sorted(set(LANGS) - self.seen.get(kind, set()), key=lambda x: x != self.lang):
            if not still():
                return
            self.set_lang(lang)
            found = audit(self.pl.page)
            if not still():
                return
            where = f"{self.preset}/{kind}/{lang}"
            record(where, found)
            self.seen.setdefault(kind, set()).add(lang)
            for v in blocking(found):
                self.bad.append(f"{where}: {v['impact']} {v['id']} x{v['nodes']} {v['targets']}")

    def missing(self, kinds: set[str]) -> dict[str, set[str]]:
        return {k: set(LANGS) - self.seen.get(k, set()) for k in kinds if set(LANGS) - self.seen.get(k, set())}


def phase_kind(page) -> str | None:
    return page.evaluate("() => document.querySelector('#phase-banner')?.dataset.kind || null")


@pytest.mark.parametrize(("preset", "lang"), [("classic", "ko"), ("city", "ru"), ("original", "en")])
def test_axe_finds_nothing_serious_on_any_screen(browser, stack, console_errors, preset, lang):
    pl = Player(browser, stack.url, NAMES[lang], locale=LOCALES[lang], errors=console_errors)
    page = pl.page
    page.add_init_script(RECORD_PHASES_JS)  # every phase the page showed, for the failure messages
    link = Link(page)
    check = Checker(pl, preset, lang)
    pl.open()
    expect(page.locator("#create-btn")).to_be_visible()
    check.check("home")
    check.set_lang(lang)
    create_room(pl, preset, OPTIONS[preset], BOTS[preset])  # opens the home page again, in `lang`
    check.check("lobby")
    check.set_lang(lang)
    room = page.locator("#room-chip").inner_text().strip()
    page.click("#start-btn")
    expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)

    idle = 0
    deadline = time.monotonic() + PLAY_SECONDS
    while not page.locator("#end-title").count():
        if time.monotonic() > deadline:
            phases = [kind for kind, _ in page.evaluate("() => window.__phases")]
            pytest.fail(f"{preset}: no end screen; checked {check.seen}; phases {phases}")
        kind = phase_kind(page)
        if kind:
            # The clock stands still, but the person's last move may still end the phase
            # during a check (its view on the way): then the check counts for nothing.
            check.check(kind, still=lambda k=kind: phase_kind(page) == k)
        if "role-card" in check.missing({"role-card"}) and page.locator("#my-role-btn:visible").count():
            pl.dismiss_cards()
            page.click("#my-role-btn")
            if page.locator(".overlay .role-name").count():
                check.check("role-card", still=lambda: page.locator(".overlay .role-name").count() > 0)
            page.keyboard.press("Escape")
        # Only on the screen just checked: a view that came during the checks is checked first.
        if kind and answer_once(pl, kind) is not None:
            idle = 0
            continue
        idle += 1
        if idle < IDLE_CHECKS:
            page.wait_for_timeout(100)  # the page may still be drawing the last push
            continue
        idle = 0
        # This screen is checked and asks the person nothing: time moves on, once the page
        # shows the room's phase (a view still on its way would meet a step before a check).
        if kind is None or phase_kind(page) != kind or room_phase(stack.url, room) != kind:
            continue
        link.advance(stack)
        idle = IDLE_CHECKS - 1  # the page has the answer's view: one look, then on

    expect(page.locator("#end-title")).to_be_visible()
    check.check("end")
    page.click("#rules-btn")
    expect(page.locator("#rules-roles li").first).to_be_visible()
    check.check("rules")
    page.keyboard.press("Escape")
    assert not check.bad, "\n".join(check.bad)
    phases = [kind for kind, _ in page.evaluate("() => window.__phases")]
    assert not check.missing(MUST_SEE[preset]), f"screens not checked: {check.missing(MUST_SEE[preset])}; phases {phases}"
    pl.close()


DEVICE_SCREENS = {"device-setup", "device-closed", "device-turn", "device-news", "device-discussion",
                  "device-defense", "device-end"}


def test_axe_finds_nothing_serious_in_single_device_mode(browser, stack, console_errors):
    # untimed: every phase ends when its last player confirms, so the clock is never stepped
    pl = Player(browser, stack.url, "Table", errors=console_errors)
    page = pl.page
    check = Checker(pl, "device", "en")
    pl.open()
    table = Table(page)
    # A tie on day 1 (as in test_device.py), so the defense screen comes too.
    table.first_vote = {"p1": "p2", "p2": "p1", "p3": "p1", "p4": "p2", "p5": "abstain"}
    table.quiet_first_night = True
    page.click("#device-btn")
    expect(page.locator("#device-setup")).to_be_visible()
    check.check("device-setup")
    check.set_lang("en")
    page.reload()  # Table.start opens the setup itself
    expect(page.locator("#device-btn")).to_be_visible()

    def screen_hook(t: Table) -> None:
        check.check("device-closed")
        check.set_lang("en")

    # Table.play drives in English; each screen is checked in every language before it acts.
    original_screen = Table.screen

    def screen(self: Table) -> str:
        which = original_screen(self)
        if which != "device-closed":
            check.check(which)
            check.set_lang("en")
            which = original_screen(self)
        return which

    table.screen = screen.__get__(table)
    table.start()
    table.play(on_handover=screen_hook, until="#device-defense")
    for name in ("Ann", "Bob"):
        page.get_by_role("button", name=f"{name} has finished").click()
    expect(page.locator("#device-pass")).to_be_visible()
    page.click("#device-iam")
    page.click(".device-option >> nth=0")
    page.click("#device-confirm")
    table.play(on_handover=screen_hook)
    check.check("device-end")
    assert not check.bad, "\n".join(check.bad)
    assert not check.missing(DEVICE_SCREENS), f"screens not checked: {check.missing(DEVICE_SCREENS)}"
    pl.close()


# Every text the live region is given, in order (web/js/cues.js `announce`).
HEARD_JS = """() => {
  window.__heard = [];
  const el = document.querySelector("#announcer");
  new MutationObserver(() => {
    const text = el.textContent.trim();
    if (text) window.__heard.push(text);
  }).observe(el, { childList: true, characterData: true, subtree: true });
}"""


def test_live_region_says_the_phase_and_the_police_result(browser, stack, console_errors):
    players = seat_everyone(browser, stack.url, ["Ann", "Bob", "Cat", "Dan", "Eve"], console_errors)
    for pl in players:
        pl.page.evaluate(HEARD_JS)
    by_role = start_and_learn_roles(players)
    mafia, doctor, police = by_role["mafia"][0], by_role["doctor"][0], by_role["police"][0]
    victim = by_role["citizen"][0]
    end_phase(stack, players[0], "roleReveal")  # the cards were read, not all tapped
    for pl in players:
        pl.wait_phase("night")
    heard = lambda pl: pl.page.evaluate("() => window.__heard")  # noqa: E731
    for pl in players:
        expect(pl.page.locator("#announcer")).to_have_text("Night")
    # a tile's accessible name is what it shows, and says it can be chosen
    expect(police.page.get_by_role("button", name=re.compile(rf"^{mafia.name}\b.*choose$"))).to_be_enabled()
    mafia.tap(victim.pid)
    doctor.tap(doctor.pid)
    police.tap(mafia.pid)
    end_phase(stack, police, "night")  # the choices stand; the night ends at its deadline
    for pl in players:
        pl.wait_phase("discussion")
    # the morning: the phase, and for the police alone what the check found
    said = re.compile(rf"^Discussion\. Your finding: Night 1: {mafia.name} — mafia$")
    expect(police.page.locator("#announcer")).to_have_text(said, timeout=10_000)
    for pl in players:
        if pl is not police:
            expect(pl.page.locator("#announcer")).to_have_text("Discussion")
            assert not any("finding" in h for h in heard(pl)), heard(pl)
    said_then = heard(police)
    assert "Night" in said_then and said.match(said_then[-1]), said_then
    for pl in players:
        pl.close()
