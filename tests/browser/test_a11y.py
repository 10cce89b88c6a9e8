"""Screen readers and keyboards: axe-core 4 on every screen a player meets, in every
language, with 0 critical and 0 serious violations; phase changes reach the live region.

Each screen comes from a scripted engine state (tests/browser/scripted.py): the engine plays
a game of the preset with chosen roles (the host, p1, a person; the other seats bots, as a
person's game against bots is), and the view arrives as the app's frames do (`show`), so
axe reads the whole page a player would: the top bar, the day or night tone, the news
cards, the host's and the seat's tools. Every screen of every preset is checked in Korean,
Russian and English: home, the lobby, the role reveal, the role card, each night duty's
panel, the day's phases (greeting, discussion, speeches, vote, defense, confirmation, last
word), a dead player's day, the end, and the sheets (rules, notes).

The single-device screens too: the device's page (web/js/device/main.js) is given every
seat's view of an untimed city game and the queue's progress, as its sockets and this
browser's store would give them: setup, hand-overs, each role's own screen, the news, the
discussion, a public defense and the end."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from .axe import AXE_JS, MISSING_AXE, audit, blocking, record
from .scripted import Scripted, lobby_view, page_in, show
from .ui import Player, open_fold

LANGS = ("ko", "ru", "en")
# The person at p1 in each preset's test, named in the language the page opens in
HOME_LANG = {"classic": "ko", "city": "ru", "original": "en"}
PERSON = {"ko": "민지", "ru": "Аня", "en": "Ann"}


@pytest.fixture(scope="module", autouse=True)
def axe_installed():
    if not AXE_JS.exists():
        pytest.fail(MISSING_AXE, pytrace=False)


@dataclass
class Screen:
    """One screen to check: `view` drawn (None: home), `kind` the phase banner it must show
    (None: no banner), `then` what the person does on it before the check (open a sheet)."""

    name: str
    view: dict | None
    screen: str
    kind: str | None = None
    then: Callable | None = None


def role_card(page) -> None:
    page.click("#my-role-btn")
    expect(page.locator(".overlay .role-name")).to_be_visible()


def rules_sheet(page) -> None:
    page.click("#rules-btn")
    expect(page.locator("#rules-roles li").first).to_be_visible()


def notes_sheet(page) -> None:
    page.locator(".note-btn").first.click()
    expect(page.locator("#note-dialog")).to_be_visible()


def home_with(preset: str):
    def then(page) -> None:
        page.select_option("#create-preset", preset)
        open_fold(page, ".home-details", "#home-opt-nightSeconds, #home-opt-speechSeconds")

    return then


def sleep_all(g: Scripted) -> None:
    for pid in g.living():
        if g.kind == "night" and pid not in g.s["phase"]["done"]:
            g.act("sleep", pid)


def classic_screens(person: str) -> list[Screen]:
    """Classic, 5 seats (1 mafia, police, doctor, 2 citizens), the rulebook's default start
    with a greeting: night 1 the mafia kills p5; day 2 the town tries and executes the mafia."""
    roles = ["citizen", "mafia", "police", "doctor", "citizen"]
    g = Scripted("classic", roles, names=[person], bots=("p2", "p3", "p4", "p5"))
    out = [Screen("lobby", lobby_view("classic", [person], bots=4), "lobby")]
    out += [
        Screen("roleReveal", g.view("p1"), "game", "roleReveal"),
        Screen("role-card", g.view("p1"), "game", "roleReveal", role_card),
    ]
    g.until("greeting")
    out.append(Screen("greeting", g.view("p1"), "game", "greeting"))
    g.until("night")
    out += [Screen(f"night-{g.role_of(p)}", g.view(p), "game", "night") for p in ("p1", "p2", "p3", "p4")]
    g.act("mafiaTarget", "p2", target="p5")
    g.act("investigate", "p3", target="p2")
    g.act("heal", "p4", target="p4")
    g.until("discussion")
    out += [
        Screen("discussion", g.view("p1"), "game", "discussion"),
        Screen("discussion-dead", g.view("p5"), "game", "discussion"),
        Screen("notes", g.view("p1"), "game", "discussion", notes_sheet),
    ]
    g.timeout()
    out.append(Screen("vote", g.view("p1"), "game", "vote"))
    for voter in ("p1", "p3", "p4"):
        g.act("vote", voter, target="p2")
    g.act("vote", "p2", target="p1")
    g.until("defense")
    out += [
        Screen("defense", g.view("p1"), "game", "defense"),
    ]
    g.until("confirm")
    out += [
        Screen("confirm", g.view("p1"), "game", "confirm"),
    ]
    for voter in ("p1", "p3", "p4"):
        g.act("confirm", voter, choice="yes")
    g.until("ended")
    assert g.s["result"]["winner"] == "town"
    out += [Screen("end", g.view("p1"), "end"), Screen("rules", g.view("p1"), "end", None, rules_sheet)]
    return out


def city_screens(person: str) -> list[Screen]:
    """City, 6 seats (1 mafia, police, doctor, 3 citizens): night 1 the mafia kills p6; day
    2's vote ties, both defend, the revote executes the mafia."""
    roles = ["citizen", "mafia", "police", "doctor", "citizen", "citizen"]
    g = Scripted("city", roles, names=[person], bots=("p2", "p3", "p4", "p5", "p6"))
    out = [Screen("lobby", lobby_view("city", [person], bots=5), "lobby")]
    out += [
        Screen("roleReveal", g.view("p1"), "game", "roleReveal"),
        Screen("role-card", g.view("p1"), "game", "roleReveal", role_card),
    ]
    g.until("night")
    out += [Screen(f"night-{g.role_of(p)}", g.view(p), "game", "night") for p in ("p1", "p2", "p3", "p4")]
    g.act("mafiaTarget", "p2", target="p6")
    g.act("investigate", "p3", target="p2")
    g.act("heal", "p4", target="p4")
    g.until("discussion")
    out += [
        Screen("discussion", g.view("p1"), "game", "discussion"),
        Screen("discussion-dead", g.view("p6"), "game", "discussion"),
        Screen("notes", g.view("p1"), "game", "discussion", notes_sheet),
    ]
    g.timeout()
    out.append(Screen("vote", g.view("p1"), "game", "vote"))
    for voter, target in (("p1", "p2"), ("p3", "p2"), ("p2", "p4"), ("p5", "p4"), ("p4", "abstain")):
        g.act("vote", voter, target=target)
    assert g.kind == "defense", g.kind
    out += [
        Screen("defense", g.view("p1"), "game", "defense"),
    ]
    g.until("vote")
    assert g.s["phase"]["round"] == 2
    out.append(Screen("revote", g.view("p1"), "game", "vote"))
    for voter in ("p1", "p3", "p4", "p5"):
        g.act("vote", voter, target="p2")
    g.until("ended")
    assert g.s["result"]["winner"] == "town"
    out += [Screen("end", g.view("p1"), "end"), Screen("rules", g.view("p1"), "end", None, rules_sheet)]
    return out


def original_screens(person: str) -> list[Screen]:
    """Original, 8 seats (godfather, mafia, police, 5 citizens): day 1's speeches (no trial),
    night 2 the mafia kills p5; day 2 p1 and p4 nominate the mafiosi, both defend, the vote
    executes p3, who has a last word; the end comes after the next nights."""
    roles = ["citizen", "godfather", "mafia", "police", "citizen", "citizen", "citizen", "citizen"]
    g = Scripted("original", roles, names=[person], bots=tuple(f"p{i}" for i in range(2, 9)))
    out = [Screen("lobby", lobby_view("original", [person], bots=7), "lobby")]
    out += [
        Screen("roleReveal", g.view("p1"), "game", "roleReveal"),
        Screen("role-card", g.view("p1"), "game", "roleReveal", role_card),
    ]
    g.until("night")
    out += [Screen(f"night-{g.role_of(p)}", g.view(p), "game", "night") for p in ("p1", "p2", "p3", "p4")]
    sleep_all(g)
    assert g.kind == "speech" and g.s["phase"]["speaker"] == "p1"
    g.act("endTurn", "p1")
    out.append(Screen("speech", g.view("p1"), "game", "speech"))
    while g.kind == "speech":
        g.act("endTurn", g.s["phase"]["speaker"])
    g.until("night")
    g.act("mafiaTarget", "p3", target="p5")
    g.act("mafiaTarget", "p2", target="p5")
    sleep_all(g)
    assert g.kind == "speech" and g.s["phase"]["speaker"] == "p1"
    out += [
        Screen("speech-own", g.view("p1"), "game", "speech"),
        Screen("speech-dead", g.view("p5"), "game", "speech"),
        Screen("notes", g.view("p1"), "game", "speech", notes_sheet),
    ]
    noms = {"p1": "p3", "p4": "p2"}
    while g.kind == "speech":
        sp = g.s["phase"]["speaker"]
        g.act("nominate", sp, target=noms.get(sp))
    assert g.kind == "defense" and g.s["phase"]["accused"] == "p3"
    out += [
        Screen("defense", g.view("p1"), "game", "defense"),
        Screen("defense-accused", g.view("p3"), "game", "defense"),
    ]
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    out.append(Screen("vote", g.view("p1"), "game", "vote"))
    for voter in g.living():
        g.act("vote", voter, target="p2" if voter == "p3" else "p3")
    assert g.kind == "lastWord", g.kind
    out += [
        Screen("lastWord", g.view("p1"), "game", "lastWord"),
        Screen("lastWord-own", g.view("p3"), "game", "lastWord"),
    ]
    g.act("endTurn", "p3")
    for _ in range(40):  # the godfather alone against the town: the mafia kills, the town tries him
        if g.kind == "ended":
            break
        if g.kind == "night":
            g.act("mafiaTarget", "p2", target=next(p for p in g.living() if p not in ("p1", "p2")))
            sleep_all(g)
        elif g.kind == "speech":
            sp = g.s["phase"]["speaker"]
            g.act("nominate", sp, target=None if g.s["phase"]["nominations"] or sp == "p2" else "p2")
        elif g.kind in ("defense", "lastWord"):
            g.act("endTurn", g.s["phase"].get("accused") or g.s["phase"]["player"])
        elif g.kind == "vote":
            for voter in g.living():
                g.act("vote", voter, target="p2" if voter != "p2" else "p1")
        else:
            g.timeout()
    assert g.kind == "ended", g.kind
    out += [Screen("end", g.view("p1"), "end"), Screen("rules", g.view("p1"), "end", None, rules_sheet)]
    return out


WALKS = {"classic": classic_screens, "city": city_screens, "original": original_screens}


class Checker:
    """Runs axe on the page in each language; keeps what it found."""

    def __init__(self, pl: Player, preset: str) -> None:
        self.pl = pl
        self.preset = preset
        self.bad: list[str] = []
        self.seen: dict[str, set[str]] = {}  # screen -> languages checked

    def set_lang(self, lang: str) -> None:
        self.pl.page.select_option("#lang-select", lang)
        expect(self.pl.page.locator("html")).to_have_attribute("lang", lang)

    def check(self, name: str, lang: str) -> None:
        found = audit(self.pl.page)
        where = f"{self.preset}/{name}/{lang}"
        record(where, found)
        self.seen.setdefault(name, set()).add(lang)
        for v in blocking(found):
            self.bad.append(f"{where}: {v['impact']} {v['id']} x{v['nodes']} {v['targets']}")


def put(page, s: Screen) -> None:
    """Draw the screen `s` names, see it is the one asked for, and do what it asks first."""
    drawn = show(page, s.view)
    assert drawn == s.screen, (s.name, drawn)
    banner = page.locator("#phase-banner")
    if s.kind:
        expect(banner).to_have_attribute("data-kind", s.kind)
    if s.then:
        s.then(page)


@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_axe_finds_nothing_serious_on_any_screen(browser, stack, console_errors, preset):
    home_lang = HOME_LANG[preset]
    person = PERSON[home_lang]
    pl = page_in(browser, stack, home_lang, console_errors, name=person)
    page = pl.page
    check = Checker(pl, preset)
    screens = [Screen("home", None, "home", None, home_with(preset)), *WALKS[preset](person)]
    for lang in sorted(LANGS, key=lambda x: x != home_lang):
        check.set_lang(lang)
        for s in screens:
            put(page, s)
            check.check(s.name, lang)
            pl.check_no_keys()
            page.keyboard.press("Escape")  # a sheet or card opened for the check closes
    assert not check.bad, "\n".join(check.bad)
    missing = {s.name: set(LANGS) - check.seen.get(s.name, set()) for s in screens}
    assert not any(missing.values()), f"screens not checked: {missing}"
    pl.close()


DEVICE_SCREENS = {
    "device-setup",
    "device-closed",
    "device-turn",
    "device-news",
    "device-discussion",
    "device-defense",
    "device-end",
}


# The device's page drawn from scripted views (web/js/device/main.js, `window.__device`): every
# seat's own view and the newest one (`Seats.latest`), the queue's progress as this browser
# keeps it; a language switch redraws the device's page (its `onChrome`), as it does in play.
DEVICE_SHOW = """([views, latest, progress]) => {
  const ctl = window.__device;
  ctl.game = {room: 'MAFIA', preset: latest.preset, wsUrl: '', progress,
              seats: Object.keys(views).map((id) => ({id, name: id, token: 'tok'}))};
  ctl.seats = {latest: () => latest, view: (id) => views[id] || null, send: () => null, close() {}, allOpen: () => true};
  ctl.mode = 'play';
  ctl.awaiting = null;
  ctl.lastSig = null;
  const pick = document.querySelector('#lang-select');
  pick.dispatchEvent(new Event('change'));
}"""


def device_screens() -> list[tuple[str, dict, dict, dict]]:
    """(screen id, seats' views, the newest view, progress): an untimed city game of five
    (mafia, police, doctor, two citizens) with its hand-overs, each role's own screen, the
    morning's news, the discussion, a tie's public defense and the end."""
    g = Scripted("city", ["mafia", "police", "doctor", "citizen", "citizen"], untimed=True)

    def at(progress: dict) -> tuple[dict, dict, dict]:
        views = {pid: g.view(pid) for pid in g.ids}
        return (
            views,
            views["p1"],
            {"key": None, "pos": 0, "open": False, "dawnDay": None, "seen": -1, **progress},
        )

    out = []
    out.append(("device-closed", *at({})))
    key = f"roleReveal:{g.s['seq']}"
    out.append(("device-turn", *at({"key": key, "pos": 0, "open": True})))
    for pid in g.ids:  # untimed: a phase ends when its last player has answered
        g.act("readyEarly", pid)
    assert g.kind == "night", g.kind
    key = f"night:{g.s['seq']}"
    for pos in range(4):  # the mafia's, the police's, the doctor's and a citizen's screen
        out.append((f"device-turn-{g.role_of(g.ids[pos])}", *at({"key": key, "pos": pos, "open": True})))
    g.act("mafiaTarget", "p1", target="p5")
    g.act("investigate", "p2", target="p1")
    g.act("heal", "p3", target="p3")
    for pid in g.living():
        if g.kind == "night" and g.view(pid)["private"]["task"] == "sleep":
            g.act("sleep", pid)
    assert g.kind == "discussion", g.kind
    day = g.s["day"]
    out.append(("device-closed-dawn", *at({})))
    out.append(("device-discussion", *at({"dawnDay": day})))
    for pid in g.living():
        g.act("readyEarly", pid)
    assert g.kind == "vote", g.kind
    for voter, target in (("p1", "p2"), ("p2", "p1"), ("p3", "p1"), ("p4", "p2")):
        g.act("vote", voter, target=target)
    assert g.kind == "defense", g.kind
    out.append(("device-news", *at({"dawnDay": day})))  # the night's death and the tie
    out.append(("device-defense", *at({"dawnDay": day, "seen": len(g.s["events"]) - 1})))
    for pid in g.s["phase"]["suspects"]:
        g.act("endTurn", pid)
    assert g.kind == "vote", g.kind
    for voter in ("p2", "p3", "p4", "p1"):
        if g.kind == "vote":
            g.act("vote", voter, target="p1" if voter != "p1" else "p2")
    assert g.kind == "ended", g.kind
    assert g.s["result"]["winner"] == "town"
    out.append(("device-end", *at({"dawnDay": day})))
    return out


def test_axe_finds_nothing_serious_in_single_device_mode(browser, stack, console_errors):
    pl = page_in(browser, stack, "en", console_errors, name="Table")
    page = pl.page
    check = Checker(pl, "device")
    screens = device_screens()
    for lang in LANGS:
        check.set_lang(lang)
        page.click("#device-btn")
        expect(page.locator("#device-setup")).to_be_visible()
        check.check("device-setup", lang)
        for name, views, latest, progress in screens:
            page.evaluate(DEVICE_SHOW, [views, latest, progress])
            expect(page.locator("#" + "-".join(name.split("-")[:2]))).to_be_visible()
            if name.startswith("device-turn-"):  # that seat's own screen
                expect(page.locator("#device-turn")).to_have_attribute("data-role", name.split("-")[2])
            check.check(name, lang)
        page.evaluate("() => { window.__device.mode = 'setup'; }")  # back without "end the game?"
        page.click("#device-exit")
        expect(page.locator("#device-btn")).to_be_visible()
    assert not check.bad, "\n".join(check.bad)
    names = {"device-setup", *(name for name, *_ in screens)}
    missing = {
        k: set(LANGS) - check.seen.get(k, set()) for k in names if set(LANGS) - check.seen.get(k, set())
    }
    assert not missing, f"screens not checked: {missing}"
    assert DEVICE_SCREENS <= names
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
    """Classic, 5 seats: each seat's page gets the night's view, then the morning's, as its
    socket would push them. Every page's live region says the phase; the police's alone adds
    what the check found."""
    g = Scripted("classic", ["mafia", "doctor", "police", "citizen", "citizen"], firstPhase="night")
    mafia, doctor, police, victim = "p1", "p2", "p3", "p4"
    g.until("night")
    night = {pid: g.view(pid) for pid in g.ids}
    g.act("mafiaTarget", mafia, target=victim)
    g.act("heal", doctor, target=doctor)
    g.act("investigate", police, target=mafia)
    chosen = g.view(police)
    g.until("discussion")
    morning = {pid: g.view(pid) for pid in g.ids}
    pl = page_in(browser, stack, "en", console_errors)
    page = pl.page
    page.evaluate(HEARD_JS)
    heard = lambda: page.evaluate("() => window.__heard")  # noqa: E731
    said = re.compile(rf"^Discussion\. Your finding: Night 1: {g.seat_name(mafia)} — mafia$")
    for pid in g.ids:
        page.evaluate("() => { window.__heard.length = 0; }")
        show(page, night[pid])
        expect(page.locator("#announcer")).to_have_text("Night")
        if pid == police:
            # a tile's accessible name is what it shows, and says it can be chosen
            tile = page.get_by_role("button", name=re.compile(rf"^{g.seat_name(mafia)}\b.*choose$"))
            expect(tile).to_be_enabled()
            show(page, chosen, fresh=False)
        show(page, morning[pid], fresh=False)  # the morning, on the same page
        expect(page.locator("#phase-banner")).to_have_attribute("data-kind", "discussion")
        if pid == police:
            expect(page.locator("#announcer")).to_have_text(said)
            said_then = heard()
            assert "Night" in said_then and said.match(said_then[-1]), said_then
        else:
            expect(page.locator("#announcer")).to_have_text("Discussion")
            assert not any("finding" in h for h in heard()), heard()
    pl.close()
