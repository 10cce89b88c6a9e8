"""Strangers in public rooms (docs/rules.md, "Public rooms"), in ko/ru/en on the manual-clock
stack: a lone stranger's lobby states when it starts and starts by itself with bots; "Play now"
offers an open room of another language when the viewer's has none; the end of a public game
offers the table one new lobby (a scripted screen; played through: test_public_home.py); an idle
page and a closed tab are warned, then handed on ("Idle seats"), in classic (Korean: the closed
tab's seat after the rulebook's two absent days) and city (Russian: the idle page offline at the
hand-on, which asks what became of its seat when it wakes). The rule in every preset, counted and
applied: tests/functions/test_afk.py and test_seat_fate.py."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from .live import bots, live_room, open_seat, seat
from .scripted import LOCALES, Scripted, page_in
from .test_connection import vanish
from .test_public_home import COUNTDOWN, rest
from .test_removed_seat import refused_handshakes
from .ui import Player, foreign_words, room_phase

WAIT_SECONDS = 60  # functions/service/room/public.py WAIT_SECONDS: the stated start of a lone lobby
LONE = {"ko": ("classic", "민지"), "ru": ("city", "Аня"), "en": ("original", "Ann")}
BOTS_FILL = {
    "en": "1 joined so far: bots take the empty seats when it starts.",
    "ko": "지금까지 1명 참가: 시작하면 빈 자리는 봇이 채웁니다.",
    "ru": "Пока пришло 1: когда игра начнётся, пустые места займут боты.",
}
AGAIN = {
    "en": ("Play again with this table", "Everyone here who presses it lands in one new public room."),
    "ko": ("이 테이블과 다시 하기", "이 버튼을 누른 사람은 모두 같은 새 공개 방으로 갑니다."),
    "ru": ("Сыграть ещё раз этим же столом", "Все, кто нажмёт, окажутся в одной новой открытой комнате."),
}
ELSEWHERE = {  # (the other language of the offered room, the words the offer says it with)
    "en": ("ko", "one in Korean is open", "Join the room in Korean"),
    "ko": ("ru", "러시아어 방이 열려 있어요", "러시아어 방에 참가"),
    "ru": ("en", "открыта комната на английском", "Войти в комнату на английском"),
}


def clear_the_list(stack, lang: str, preset: str | None = None) -> None:
    """Earlier tests' public lobbies nobody is connected to leave the list after their grace."""
    path = f"/rooms?public=1&lang={lang}" + (f"&preset={preset}" if preset else "")
    # a closed page's socket leaves its lobby when the stack has handled its $disconnect, which a
    # loaded machine may do after a first step (the grace then counts from that write): step
    # again until the list is empty, within a bounded real time
    patience = time.monotonic() + 60
    while rest(stack, "GET", path)["rooms"] and time.monotonic() < patience:
        stack.step(advance=91)  # functions/service/room/public.py EMPTY_GRACE_SECONDS + 1
        if rest(stack, "GET", path)["rooms"]:
            time.sleep(0.5)
    assert rest(stack, "GET", path)["rooms"] == []


def wait_running(stack, code: str) -> dict:
    """Step game time until the room runs (the Scheduler delivers on the whole minute, so its
    start may come up to 60 s of game time after the stated one), within a bounded real time."""
    until = stack.step(advance=0)["now"] + 75
    patience = time.monotonic() + 90
    while rest(stack, "GET", f"/rooms/{code}")["status"] != "running":
        if stack.step_on()["now"] > until and time.monotonic() > patience:
            break
    return rest(stack, "GET", f"/rooms/{code}")


# ---------------------------------------------------------------- no stranger waits forever
@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_no_stranger_waits_forever_a_lone_strangers_lobby_starts_by_itself_with_bots(
    stack, browser, console_errors, lang
):
    """One stranger presses Play now on an empty list: the lobby says at once that it starts by
    itself (a countdown of at most a minute) and that bots take the empty seats; game time
    steps past it and the game starts with 7 bots. (A public game played to the end, and its
    "Play again with this table" taken to a new lobby: test_public_home.py's two strangers.)"""
    preset, name = LONE[lang]
    clear_the_list(stack, lang, preset)
    pl = Player(browser, stack.url, name, locale=LOCALES[lang], errors=console_errors)
    try:
        p = pl.page
        pl.open()
        expect(p.locator(".play-now .hint")).to_contain_text(
            {"en": "within a minute", "ko": "1분 안에", "ru": "в течение минуты"}[lang]
        )
        p.fill("#play-name", name)
        p.select_option("#play-preset", preset)
        p.click("#play-now-btn")
        expect(p.locator(".lobby-player")).to_have_count(1)
        code = p.locator("#room-chip").inner_text().strip()
        countdown = p.locator("#auto-start")
        expect(countdown).to_contain_text(COUNTDOWN[lang])
        seconds = int(re.search(r"\d+", countdown.inner_text()).group(0))
        # (the page rounds up against its estimate of the server's clock: a second over at most)
        assert 0 < seconds <= WAIT_SECONDS + 1, countdown.inner_text()
        expect(p.locator("#setup-error")).to_have_text(BOTS_FILL[lang])
        summary = wait_running(stack, code)
        assert summary["status"] == "running", {k: summary.get(k) for k in ("status", "players")}
        assert len(summary["players"]) == 8  # one person, seven bots
        expect(p.locator("#phase-banner")).to_be_visible(timeout=15_000)
        expect(p.locator("html")).to_have_attribute("lang", lang)
        expect(p.locator("html")).to_have_attribute("lang", lang)
        assert foreign_words(p, lang) == set()
        assert pl.missing_keys() == []
    finally:
        pl.close()


# ---------------------------------------------------------------- another language, offered
@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_play_now_offers_a_room_in_another_language_when_the_viewers_has_none(
    stack, browser, console_errors, lang
):
    other, words, button = ELSEWHERE[lang]
    for language in ("en", "ko", "ru"):
        clear_the_list(stack, language)
    # a page of its own (not the pool's): closed at the end, its socket leaves the lobby it joined
    name = {"en": "Mina", "ko": "미나", "ru": "Мина"}[lang]
    pl = Player(browser, stack.url, name, locale=LOCALES[lang], errors=console_errors)
    try:
        p = pl.page
        pl.open()
        # no room in any language: the empty message alone (a missing offer drew "null" beside it)
        expect(p.locator(".public-empty")).to_be_visible(timeout=15_000)
        expect(p.locator("#public-list > *")).to_have_count(1)
        assert p.locator("#public-list").inner_text().strip() == p.locator(".public-empty").inner_text().strip()
        made = rest(
            stack,
            "POST",
            "/rooms",
            {"name": "Host", "preset": "classic", "lang": other, "options": {"public": True}},
        )
        code = made["roomCode"]
        offer = p.locator("#public-elsewhere")
        expect(offer).to_be_visible(timeout=15_000)  # beside the empty list, never instead of it
        expect(p.locator(".public-empty")).to_be_visible()
        assert offer.get_attribute("data-lang") == other and offer.get_attribute("data-room") == code
        expect(offer).to_contain_text(words)
        expect(p.locator("#join-elsewhere-btn")).to_have_text(button)
        assert foreign_words(p, lang) == set()
        assert pl.missing_keys() == []
        assert len(rest(stack, "GET", f"/rooms/{code}")["players"]) == 1  # nothing joined by itself
        p.fill("#play-name", pl.name)
        p.click("#join-elsewhere-btn")  # pressed: a seat in that room
        expect(p.locator(".lobby-player")).to_have_count(2, timeout=15_000)
        expect(p.locator("#room-chip")).to_have_text(code)
    finally:
        pl.close()


# ---------------------------------------------------------------- play again together, drawn
AGAIN_DRAW = """async ([view]) => {
  const m = await __import('./js/screens/end.js');
  const main = document.querySelector('#main');
  main.replaceChildren();
  document.body.dataset.screen = 'end';
  window.__again = [];
  const ctx = {state: {view, session: {room: view.room.code, token: 'tok', playerId: view.you.id}},
               send() {}, rerender() {}, toast() {}, goHome() {}, leave() {}, create() {}, join() {}, watch() {},
               resume() {}, shareLink: (code) => `${location.origin}/?room=${code}`,
               quickPlay: async (...args) => { window.__again.push(args); }};
  window.__screen = m.mount(main, ctx);
  window.__screen.update(view);
}"""
CLASSIC_SIX = ["mafia", "mafia", "police", "doctor", "citizen", "citizen"]


def ended_public_view(lang: str, party: str | None) -> dict:
    """Classic, 2 mafia of 6, won by the mafia at the day-1 vote (test_table_round3.py's game),
    as p3 reads it at the end of a public room (`room.party`, `room.lang`)."""
    g = Scripted("classic", CLASSIC_SIX)
    g.until("night")
    for pid in ("p1", "p2"):
        g.act("mafiaTarget", pid, target="p5")
    g.act("investigate", "p3", target="p4")
    g.act("heal", "p4", target="p3")
    g.until("vote")
    for voter in ("p1", "p2", "p3", "p4"):
        g.act("vote", voter, target="p6")
    g.until("confirm")
    for pid in g.living():
        if pid != "p6":
            g.act("confirm", pid, choice="yes")
    g.until("ended")
    view = g.view("p3")
    view["room"] = {**view["room"], "lang": lang, **({"party": party} if party else {})}
    return view


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_play_again_together_the_end_of_a_public_game_offers_the_table_one_new_lobby(
    stack, browser, console_errors, lang
):
    pl = page_in(browser, stack, lang, console_errors)
    try:
        p = pl.page
        p.evaluate("() => sessionStorage.setItem('mafia.name', 'Cat')")
        p.evaluate(AGAIN_DRAW, [ended_public_view(lang, "ABCDEFGHJKMN")])
        again, hint = AGAIN[lang]
        expect(p.locator("#play-again-btn")).to_have_text(again)
        expect(p.locator("#again-hint")).to_have_text(hint)
        assert pl.missing_keys() == []
        p.click("#play-again-btn")
        p.wait_for_function("() => window.__again.length === 1")
        assert p.evaluate("() => window.__again[0]") == [
            "Cat",
            "classic",
            {"lang": lang, "party": "ABCDEFGHJKMN"},
        ]
        # no party in the view (a private room, a spectator, a bot's seat): no button
        p.evaluate(AGAIN_DRAW, [ended_public_view(lang, None)])
        expect(p.locator("#end-title")).to_be_visible()
        expect(p.locator("#play-again-btn")).to_have_count(0)
    finally:
        pl.close()


# ---------------------------------------------------------------- idle pages
# Two presets, each in its language (the rule in all three: tests/functions/test_afk.py); the idle person and the one who closed the tab are the mafia,
# so no night ends either seat before its misses (docs/rules.md, "Idle seats"); the room's
# afkLimit is 2 (the least a public room takes): warned after one miss, handed on at the second.
# (The rule per preset, counted and applied: tests/functions/test_afk.py.)
IDLE_ROLES = {"classic": ("mafia", "mafia"), "city": ("mafia", "mafia")}
IDLE = {
    "classic": ("ko", ("민지", "준호", "하은")),
    "city": ("ru", ("Аня", "Борис", "Вера")),
}
WARNING = {
    "ru": "Вы пропустили ходов подряд: 1. Пропустите ещё один — и за ваше место будет играть другой.",
    "ko": "연속으로 1번 차례를 놓쳤습니다. 한 번 더 놓치면 다른 사람이 내 자리를 맡습니다.",
}
VIEW_FACTS = """async () => { const v = (await __import('./js/store.js')).state.view;
  return v && {phase: v.phase.kind, day: v.day, room: {openSeats: v.room.openSeats, substituted: v.room.substituted},
               players: v.players.map((p) => [p.id, p.alive, p.diedBy, p.left, p.connected])}; }"""
# A page has drawn the room's phase `kind` (its REST summary's), or shows none (home).
DRAWN_JS = """(kind) => {
  const banner = document.querySelector('#phase-banner');
  return !banner || banner.dataset.kind === kind;
}"""
OPEN_OR_HOME_JS = """async () => {
  const {state} = await __import('./js/store.js');
  return !state.conn || state.conn.status === 'open';
}"""
# The preset whose idle page is offline at the hand-on (its phone asleep from its warning on):
# the farewell frame is lost and its reconnect is refused; the page asks what became of its
# seat (POST /rooms/{code}/fate) and shows what a page online at the time shows.
OFFLINE_AT_HAND_ON = "city"
HAND_ON_STEPS = 400  # Scheduler deliveries stepped before the hand-on is called missing (a bots' wake that Scheduler fires early in its minute wakes the room again: a phase may take many)


def handed_on(page) -> set[str]:
    """The seats the page's view says are open to a substitute (`room.openSeats`) or were
    handed on (`room.substituted`): public facts, no reason."""
    return set(
        page.evaluate(
            "async () => { const {state} = await __import('./js/store.js');"
            " const room = (state.view && state.view.room) || {};"
            " return [...(room.openSeats || []), ...(room.substituted || [])].map((n) => n.player); }"
        )
    )


@pytest.mark.parametrize("preset", ["classic", "city"])
def test_an_idle_page_and_a_closed_tab_are_warned_then_handed_on(stack, browser, console_errors, preset):
    lang, (idle_name, gone_name, watcher_name) = IDLE[preset]
    # online at the hand-on, the page reads its `afk_replaced` frame; asleep, the fate route's
    # neutral `handedOn` (it cannot say why: an idle seat, or an absent one a substitute took)
    notice = "err.handed_on" if preset == OFFLINE_AT_HAND_ON else "err.afk_replaced"
    room = live_room(
        stack,
        preset=preset,
        lang=lang,
        # a public room's idle-seat handling (afkReplace: substitute, substitutes without the
        # host's approval), not listed: local/rooms.py deals chosen roles in rooms that are not anonymous
        options={"afkLimit": 2, "afkReplace": "substitute", "substitutes": True, "substituteApproval": False},
        seats=[
            {"name": idle_name, "role": IDLE_ROLES[preset][0]},
            {"name": gone_name, "role": IDLE_ROLES[preset][1]},
            *bots(6, first=3, lang=lang),
        ],
    )
    code = room["roomCode"]
    locale = LOCALES[lang]
    idle = open_seat(browser, stack, room, idle_name, locale=locale, errors=console_errors)
    gone = open_seat(browser, stack, room, gone_name, locale=locale, errors=console_errors)
    gone.close()  # the closed tab
    watcher = Player(browser, stack.url, watcher_name, locale=locale, errors=console_errors)
    table = Player(browser, stack.url, "table", locale=locale, errors=console_errors)  # only watches
    try:
        for pl in (watcher, table):
            pl.page.goto(f"{stack.url}?room={code}")
            pl.watch()
            expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
        idle_pid, gone_pid = seat(room, idle_name)["playerId"], seat(room, gone_name)["playerId"]
        # Game time steps on; the pages are left alone. The idle page is warned after its first
        # miss (its own nudges count for nothing), then handed on at its second: it goes home
        # and says why, and the table reads that the seat has a new player (a bot, as nobody
        # takes it). The closed tab's seat is offered to the watcher, who takes it (a
        # substitute): at the same miss in city and original; in classic, where an absent seat
        # falls to the rulebook's two absent days first (docs/rules.md, "Substitutes"), on its
        # second absent day.
        warned = took = asleep = False
        handed: set[str] = set()  # open seats and the recent notices: gathered as they come
        for _ in range(HAND_ON_STEPS):
            if not warned and idle.page.locator("#afk-warning").count():
                warned = True
                expect(idle.page.locator("#afk-warning")).to_have_text(WARNING[lang])
                if preset == OFFLINE_AT_HAND_ON:  # the phone sleeps: its socket vanishes
                    token = idle.page.evaluate(f"() => JSON.parse(localStorage.getItem('mafia.seat.{code}')).token")
                    idle.context.set_offline(True)
                    vanish(stack.url, code, token)
                    asleep = True
            offer = watcher.page.locator(f'#sub-seats [data-seat="{gone_pid}"]')
            if not took and offer.count():
                watcher.page.fill("#sub-name", watcher_name)
                offer.click()
                took = True
                # the watcher holds the seat (the `seat` frame: this browser keeps its token)
                watcher.page.wait_for_function(
                    f"async () => (await __import('./js/store.js')).state.session?.playerId === '{gone_pid}'",
                    timeout=15_000,
                )
            handed |= handed_on(table.page)
            if asleep and idle_pid in handed:  # handed on while asleep: the phone wakes
                idle.context.set_offline(False)
                asleep = False
            replaced = idle.page.locator(f"[data-notice='{notice}']").count() > 0
            if replaced and {idle_pid, gone_pid} <= handed:
                break
            # an untouched page steps with its socket open, so the hand-on's farewell frame
            # reaches it; the sleeping one (OFFLINE_AT_HAND_ON) is refused when it wakes and
            # goes home once the fate route answered
            if not asleep:
                idle.page.wait_for_function(OPEN_OR_HOME_JS, timeout=60_000)
            stack.step_on()
            # the pages draw that step's pushes (the warning, the offer and the hand-on come
            # with a phase's end): each page shows the phase the room is in, or none (home),
            # the watcher too once seated (its socket's version never goes back)
            kind = room_phase(stack.url, code)
            for pl in [*([] if asleep else [idle]), watcher, table]:
                pl.page.wait_for_function(DRAWN_JS, arg=kind, timeout=30_000)
        assert warned, "the idle page was never warned"
        assert took, "the closed tab's seat was never offered"
        expect(idle.page.locator(f"[data-notice='{notice}']")).to_be_visible()
        if preset == OFFLINE_AT_HAND_ON:  # its reconnects with the retired token were refused
            refused_handshakes(console_errors, idle_name)
        assert {idle_pid, gone_pid} <= handed, (handed, table.page.evaluate(VIEW_FACTS))
        assert idle.missing_keys() == [] and watcher.missing_keys() == [] and table.missing_keys() == []
        summary = rest(stack, "GET", f"/rooms/{code}")
        assert summary["status"] in ("running", "ended")
    finally:
        idle.close()
        watcher.close()
        table.close()
