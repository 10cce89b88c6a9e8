"""Single-device mode (docs/rulebooks/001-city.txt «Игра на одном устройстве»): one phone passed
around the table, on the same server and engine as online play (an `untimed` city room whose every
seat this browser holds).

One five-player game is played whole from the setup screen
(`test_five_players_play_a_local_game_through_the_queue`, and with the narrator
`test_the_narrator_speaks_public_text_only`; the original's eight in
`test_the_executed_player_speaks_aloud`); the tests of one moment of a game (a tie, a refresh at
night, a closed browser) start from a live room written at that moment (`POST /_local/rooms`:
tests/browser/live.py), its seats kept in this browser as the setup screen keeps them."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

import mafia_engine as me

from .live import live_room
from .ui import Player

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve"]
SCREENS = "#device-closed, #device-turn, #device-news, #device-discussion, #device-defense, #device-end"

# Records what the narrator is asked to say instead of speaking.
SPEECH_STUB = """
window.__spoken = [];
window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; this.lang = ""; } };
Object.defineProperty(window, "speechSynthesis", {
  configurable: true,
  value: { speak(u) { window.__spoken.push({ text: u.text, lang: u.lang }); }, cancel() {}, getVoices() { return []; } },
});
"""

I18N_JS = """async () => (await __import('./js/i18n.js')).loadLang('en')"""


def secret_words(page: Page) -> list[str]:
    """Role names and check results in English: what must never leak to the table."""
    en = page.evaluate(I18N_JS)
    words = {v for k, v in en.items() if re.match(r"role\.\w+(\.(city|classic|original))?$", k)}
    words |= {en["result.mafia"], en["result.notMafia"]}
    return sorted(words)


# The five at the table with the cards the live rooms deal them (a city game of five).
ROLES = {"Ann": "citizen", "Bob": "citizen", "Cat": "mafia", "Dan": "police", "Eve": "doctor"}
REVEAL = [{"type": "seenRole", "player": n} for n in NAMES]
QUIET_NIGHT = [  # the mafia skips the first night: nobody dies
    {"type": "mafiaTarget", "player": "Cat", "target": None},
    {"type": "investigate", "player": "Dan", "target": "Ann"},
    {"type": "heal", "player": "Eve", "target": "Eve"},
    {"type": "sleep", "player": "Ann"},
    {"type": "sleep", "player": "Bob"},
]


def device_game(browser, stack, errors: list[str], steps: list, until: str) -> tuple[Player, Table]:
    """A live untimed city room of the five at `until` (after `steps`), every seat kept in
    this browser as the setup screen keeps them (web/js/device/store.js): the page, the table."""
    room = live_room(
        stack,
        preset="city",
        options={"untimed": True},
        seats=[{"name": n, "role": ROLES[n]} for n in NAMES],
        steps=steps,
        until={"phase": until},
    )
    pl = Player(browser, stack.url, "Table", errors=errors)
    pl.open()
    game = {
        "room": room["roomCode"],
        "preset": "city",
        "wsUrl": room["wsUrl"],
        "seats": [{"id": s["playerId"], "name": s["name"], "token": s["token"]} for s in room["seats"]],
        "progress": {"key": None, "pos": 0, "open": False, "dawnDay": None, "seen": -1},
    }
    pl.page.evaluate("(g) => localStorage.setItem('mafia.device', JSON.stringify(g))", game)
    pl.page.reload()
    table = Table(pl.page)
    table.roles = {s["playerId"]: s["role"] for s in room["seats"]}
    return pl, table


class Table:
    """The five friends around one phone: clicks only, plus what each saw on their own turn."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.roles: dict[str, str] = {}  # seat id -> role, learnt on each one's own screen
        self.names: dict[str, str] = {}
        self.closed: list[tuple[str, str, str]] = []  # (stage, next name, normalised HTML)
        self.screens: list[str] = []
        self.first_vote: dict[str, str] = {}  # seat -> target ("abstain") for the day's first round
        self.votes_cast = 0
        self.quiet_first_night = False  # the mafia skips night 1, so all five vote on day 1

    def start(self, voice: bool = False) -> None:
        p = self.page
        p.click("#device-btn")
        expect(p.locator("#device-setup")).to_be_visible()
        expect(p.locator("#device-preset option")).to_have_count(2)  # city, original: the untimed ones
        for i, name in enumerate(NAMES):
            p.fill(f"#device-name-{i}", name)
        if voice:
            p.click("#device-voice")
            expect(p.locator("#device-voice")).to_have_attribute("aria-pressed", "true")
        p.click("#device-start")

    def room(self) -> str:
        return self.page.evaluate("() => JSON.parse(localStorage.getItem('mafia.device')).room")

    def screen(self) -> str:
        loc = self.page.locator(SCREENS)
        try:  # a wedge guard for the answer to the last pass (20 s ran out at load ~6)
            loc.first.wait_for(timeout=60_000)
        except Exception as exc:
            text = self.page.locator("#device-root").inner_text()
            raise AssertionError(f"stuck after {self.screens[-8:]}: {text}") from exc
        return loc.first.get_attribute("id")

    def mafia(self) -> set[str]:
        return {pid for pid, r in self.roles.items() if r == "mafia"}

    def handover(self) -> str:
        p = self.page
        name = p.locator("#device-iam").inner_text().removeprefix("I am ")
        html = p.locator("#device-root").inner_html()
        html = html.replace(f"device to {name}<", "device to NAME<").replace(f"I am {name}<", "I am NAME<")
        stage = p.locator(".device-stage").text_content()
        self.closed.append((stage, name, html.replace(stage, "STAGE")))
        p.click("#device-iam")
        return name

    def turn(self) -> None:
        p = self.page
        box = p.locator("#device-turn")
        seat, role = box.get_attribute("data-seat"), box.get_attribute("data-role")
        self.roles[seat] = role
        options = p.locator(".device-option")
        if options.count():
            pids = [o.get_attribute("data-pid") for o in options.all()]
            pick = self.choose(role, seat, pids)
            options.nth(pick).click()
        p.click("#device-confirm")

    def choose(self, role: str, seat: str, pids: list[str | None]) -> int:
        """The town votes out the mafia; the mafia kills a townsperson; the rest sleep."""
        task = self.page.locator("#device-task").inner_text()
        mafia = self.mafia()
        wanted: str | None = None
        if task.startswith("Vote"):
            self.votes_cast += 1
            if self.votes_cast <= len(self.first_vote):
                wanted = self.first_vote[seat]
                return len(pids) - 1 if wanted == "abstain" else pids.index(wanted)
            wanted = next((pid for pid in pids if pid in mafia), None) if role != "mafia" else None
        elif role == "mafia" and self.quiet_first_night and not self.votes_cast:
            return len(pids) - 1  # "Skip"
        elif role == "mafia" or role == "police":
            wanted = next((pid for pid in pids if pid and pid not in mafia and pid != seat), None)
        elif role == "doctor":
            wanted = seat
        for i, pid in enumerate(pids):
            if wanted and pid == wanted:
                return i
        return 0

    def play(self, until: str = "#device-end", on_handover=None, limit: int = 200) -> None:
        p = self.page
        for _ in range(limit):
            which = self.screen()
            self.screens.append(which)
            if f"#{which}" == until:
                return
            if which == "device-closed":
                if on_handover:
                    on_handover(self)
                self.handover()
            elif which == "device-turn":
                self.turn()
            elif which == "device-news":
                p.click("#device-continue")
            elif which == "device-discussion":
                p.click("#device-start-vote")
                expect(p.locator("#device-discussion")).to_have_count(0, timeout=10_000)
            elif which == "device-defense":
                buttons = p.locator(".device-finished")
                if buttons.count():
                    buttons.first.click()
                p.wait_for_timeout(300)
        raise AssertionError(f"no {until} after {limit} screens: {self.screens[-20:]}")


def test_untimed_presets_are_the_engines(browser, stack, console_errors):
    """The mode is offered for exactly the presets whose option schema has `untimed`."""
    pl = Player(browser, stack.url, "Ann", errors=console_errors)
    pl.open()
    offered = pl.page.evaluate("async () => (await __import('./js/device/main.js')).UNTIMED_PRESETS")
    schema = me.presets()
    untimed = {k: v for k, v in schema.items() if any(o["key"] == "untimed" for o in v["options"])}
    assert set(offered) == set(untimed)
    for key, limits in offered.items():
        assert (limits["min"], limits["max"]) == (untimed[key]["minPlayers"], untimed[key]["maxPlayers"])
    pl.close()


def test_five_players_play_a_local_game_through_the_queue(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Table", errors=console_errors)
    pl.open()
    table = Table(pl.page)
    table.start()
    table.play()
    page = pl.page
    # Every living player had the device in every round, citizens too.
    assert sorted(table.roles.values()).count("citizen") == 2, table.roles
    assert {name for _, name, _ in table.closed} == set(NAMES)
    # The closed screen shows nothing of the previous player: the same HTML for every
    # hand-over but the next name and the phase's public title, and no role or result.
    shapes = {html for _, _, html in table.closed}
    assert len(shapes) == 1, "\n".join(shapes)
    words = secret_words(page)
    for stage, _, html in table.closed:
        assert not any(w in html for w in words), html
        assert not any(w in stage for w in words), stage
    # The rounds: role cards, a night, the morning round, the vote.
    stages = [s for s, _, _ in table.closed]
    for stage in ("Your role", "Night 1", "Morning", "Vote"):
        assert stages.count(stage) >= 4, stages
    # The end: the winner and every role, as the public result shows them.
    expect(page.locator("#device-winner")).to_have_text("The town wins!")
    roles = {
        li.get_attribute("data-pid"): li.get_attribute("data-role")
        for li in page.locator("#device-roles li").all()
    }
    assert roles == table.roles
    status = page.evaluate(
        "async (code) => (await (await fetch(`/api/rooms/${code}`)).json()).status", table.room()
    )
    assert status == "ended"
    pl.close()


def test_a_tie_goes_to_a_public_defense_and_a_revote(browser, stack, console_errors):
    # day 1 after a quiet first night: all five vote
    pl, table = device_game(browser, stack, console_errors, [*REVEAL, *QUIET_NIGHT], "discussion")
    # Ann and Bob get two votes each, Eve abstains: a tie.
    table.first_vote = {"p1": "p2", "p2": "p1", "p3": "p1", "p4": "p2", "p5": "abstain"}
    table.play(until="#device-defense")
    page = pl.page
    expect(page.locator("#device-defense")).to_contain_text(re.compile("Ann, Bob|Bob, Ann"))
    news = [s for s in table.screens if s == "device-news"]
    assert news, table.screens
    # The tied speak aloud; each one's "finished" is public. Then the revote between them.
    for name in ("Ann", "Bob"):
        page.get_by_role("button", name=f"{name} has finished").click()
    expect(page.locator("#device-pass")).to_be_visible()
    assert page.locator(".device-stage").text_content() == "Vote"
    page.click("#device-iam")
    options = [o.inner_text() for o in page.locator(".device-option").all()]
    assert options[-1] == "Abstain" and set(options[:-1]) <= {"Ann", "Bob"}, options
    page.click(".device-option >> nth=0")
    page.click("#device-confirm")
    table.play()
    # "Play again": the same seats, a new deal, the queue from the start.
    room = table.room()
    page.click("#device-again")
    expect(page.locator("#device-pass")).to_have_text("Pass the device to Ann")
    assert page.locator(".device-stage").text_content() == "Your role"
    assert table.room() == room
    # Leaving mid-game ends it on the server and forgets it here.
    page.once("dialog", lambda d: d.accept())
    page.click("#device-exit")
    expect(page.locator("#device-btn")).to_be_visible()
    assert page.evaluate("() => localStorage.getItem('mafia.device')") is None
    status = page.evaluate("async (code) => (await (await fetch(`/api/rooms/${code}`)).json()).status", room)
    assert status == "ended"
    pl.close()


def test_refresh_mid_night_keeps_the_game(browser, stack, console_errors):
    pl, table = device_game(browser, stack, console_errors, REVEAL, "night")  # night 1, the cards seen
    seen: dict = {}

    def refresh_at_third_night_turn(t: Table) -> None:
        night = [s for s, _, _ in t.closed if s.startswith("Night")]
        if seen or len(night) != 2:
            return
        # Two players have confirmed tonight; the third is about to get the device.
        seen.update(name=t.page.locator("#device-iam").inner_text(), room=t.room())
        t.page.reload()
        expect(t.page.locator("#device-iam")).to_have_text(seen["name"])
        assert t.page.locator(".device-stage").text_content() == "Night 1"
        assert t.room() == seen["room"]

    table.play(on_handover=refresh_at_third_night_turn)
    assert seen, table.screens
    expect(pl.page.locator("#device-winner")).to_be_visible()
    pl.close()


def test_closing_the_browser_keeps_the_game(browser, stack, console_errors):
    """localStorage outlives the tab: a new page in the same browser profile goes on."""
    pl, table = device_game(browser, stack, console_errors, [*REVEAL, *QUIET_NIGHT], "discussion")
    table.play(until="#device-discussion")
    room = table.room()
    pl.page.close()
    page = pl.context.new_page()
    page.on("console", lambda m: m.type == "error" and console_errors.append(m.text))
    page.goto(stack.url)
    expect(page.locator("#device-discussion")).to_be_visible()
    table.page = page
    assert table.room() == room
    table.play()
    pl.close()


def test_the_narrator_speaks_public_text_only(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Table", errors=console_errors)
    pl.page.add_init_script(SPEECH_STUB)
    pl.open()
    table = Table(pl.page)
    table.start(voice=True)
    table.play()
    spoken = pl.page.evaluate("() => window.__spoken")
    texts = [s["text"] for s in spoken]
    assert {s["lang"] for s in spoken} == {"en-US"}
    assert "Night falls. The town goes to sleep." in texts
    assert "Voting." in texts
    for name in NAMES:
        assert f"Pass the device to {name}." in texts
    words = secret_words(pl.page)
    for text in texts:
        assert not any(w in text for w in words), text
    # Only phases and names: every line is one of the narrator's public lines.
    en = pl.page.evaluate(I18N_JS)
    public = {v for k, v in en.items() if k.startswith("device.say.") and "{" not in v}
    passing = {en["device.say.pass"].replace("{name}", n) for n in NAMES}
    assert set(texts) <= public | passing, set(texts) - public - passing
    # Switched off, it is silent.
    pl.page.click("#device-voice")
    assert pl.page.evaluate("() => localStorage.getItem('mafia.device.voice')") == "0"
    pl.close()


# Original, eight at one device, written at day 2's last word (local/rooms.py): on day 1 there is
# no trial; on day 2 the first speaker (Ann) nominates Cid, the one suspect, executed after the
# defense's deadline (docs/rulebooks/003-original.txt: "용의자가 한 명뿐이어도 ... 즉시 처형").
ORIGINAL_TABLE = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
ORIGINAL_ROLES = ["mafia", "godfather", "citizen", "citizen", "police", "citizen", "citizen", "citizen"]
TO_LAST_WORD = [
    {"until": {"phase": "speech", "day": 2}},
    {"type": "nominate", "player": "Ann", "target": "Cid"},
    {"until": {"phase": "lastWord", "day": 2}},
]


def test_the_executed_player_speaks_aloud(browser, stack, console_errors):
    """Original rules on one device: after an execution the table sees one public screen,
    "<name> speaks a last word aloud", with no card shown; that player's "done" moves the
    game on (docs/rulebooks/003-original.txt «◎3단계 낮: 재판»: the executed player leaves a last
    word; the card stays hidden). From a room written at the last word (its screen is what is
    tested, not the two days before it), kept in this browser as the setup screen keeps it."""
    room = live_room(
        stack,
        preset="original",
        seats=[{"name": n, "role": r} for n, r in zip(ORIGINAL_TABLE, ORIGINAL_ROLES, strict=True)],
        steps=TO_LAST_WORD,
    )
    pl = Player(browser, stack.url, "Table", errors=console_errors)
    pl.open()
    page = pl.page
    game = {
        "room": room["roomCode"],
        "preset": "original",
        "wsUrl": room["wsUrl"],
        "seats": [{"id": s["playerId"], "name": s["name"], "token": s["token"]} for s in room["seats"]],
        "progress": {"key": None, "pos": 0, "open": False, "dawnDay": None, "seen": -1},
    }
    page.evaluate("(g) => localStorage.setItem('mafia.device', JSON.stringify(g))", game)
    page.reload()
    # the news of the day (the nomination, the execution) first, then the last word
    seen: list[str] = []
    for _ in range(20):
        loc = page.locator("#device-news, #device-last-word")
        loc.first.wait_for(timeout=20_000)
        which = loc.first.get_attribute("id")
        seen.append(which)
        if which == "device-last-word":
            break
        before = page.locator("#device-root").inner_html()
        page.click("#device-continue")
        page.wait_for_function("(before) => document.querySelector('#device-root').innerHTML !== before", arg=before)
    else:
        raise AssertionError(f"no last word: {seen}")
    suspect = "Cid"
    # the one suspect, executed: that player speaks aloud
    expect(page.locator("#device-last-word h1")).to_have_text("Last word")
    expect(page.locator("#device-last-word-who")).to_have_text(f"{suspect} speaks a last word aloud.")
    expect(page.locator("#device-last-word")).to_contain_text("the card stays hidden")
    root = page.locator("#device-root").inner_html()
    assert not any(w in root for w in secret_words(page)), root
    # Nobody types; the executed player's "done" ends the last word and the next night's queue begins.
    page.click("#device-last-word-done")
    expect(page.locator("#device-last-word")).to_have_count(0)
    expect(page.locator("#device-closed")).to_be_visible()
    assert page.locator(".device-stage").text_content().startswith("Night")
    pl.close()
