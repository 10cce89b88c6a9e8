"""Substitutes, as people do it (docs/rules.md, "Substitutes"): the host switches the option on,
a player leaves mid-game, a spectator with the room link taps "Take seat N", types a name, waits
for the host, who lets them in with one tap, and sees the seat's role card; the table reads
"Seat N has a new player" and the new name, never the role. In Korean, Russian and English.

The host's tap itself (its words, labels and size on a 390-px phone) is drawn from a scripted
view: `test_the_host_lets_a_substitute_in_with_one_tap`."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest
from playwright.sync_api import expect

import mafia_engine as me

from .live import bots, live_room, open_seat
from .scripted import LOCALES
from .ui import MOBILE, Player, open_fold

TEXTS = {
    "ko": {
        "take": "{n}번 자리 맡기",
        "notice": "{n}번 자리에 새 플레이어가 들어왔습니다.",
        "pending": "{n}번 자리를 요청했습니다. 방장의 허락을 기다리는 중…",
        "request": "{name} 님이 {n}번 자리를 요청합니다",
        "letIn": "허락",
        "letInLabel": "{name} 님에게 {n}번 자리 허락",
        "refuse": "거절",
        "refuseLabel": "{name} 님의 {n}번 자리 요청 거절",
        "landed": "이제 {n}번 자리로 플레이합니다. 내 직업:",
        "late": "이 게임은 이미 시작되어 관전 중입니다.",
        "lateOpen": "빈자리가 있습니다",
    },
    "ru": {
        "take": "Занять место {n}",
        "notice": "На месте {n} новый игрок.",
        "pending": "Вы попросили место {n}. Ждём, когда ведущий впустит…",
        "request": "{name} просит место {n}",
        "letIn": "Впустить",
        "letInLabel": "Впустить {name} на место {n}",
        "refuse": "Отказать",
        "refuseLabel": "Отказать {name} в месте {n}",
        "landed": "Теперь вы играете за место {n}. Ваша роль:",
        "late": "Эта игра уже началась, поэтому вы смотрите её как зритель.",
        "lateOpen": "Есть свободное место",
    },
    "en": {
        "take": "Take seat {n}",
        "notice": "Seat {n} has a new player.",
        "pending": "Asked for seat {n}. Waiting for the host to let you in…",
        "request": "{name} asks for seat {n}",
        "letIn": "Let in",
        "letInLabel": "Let {name} take seat {n}",
        "refuse": "Refuse",
        "refuseLabel": "Refuse {name} for seat {n}",
        "landed": "You now play seat {n}. This is your role:",
        "late": "This game had already started, so you are watching it.",
        "lateOpen": "A seat is open",
    },
}
NAMES = {"ko": ("민지", "준호", "서연"), "ru": ("Анна", "Борис", "Вера"), "en": ("Ann", "Bob", "Cat")}


def host_switches_the_option_on(browser, url: str, name: str, locale: str, errors: list[str]) -> None:
    """The host switches substitutes on in the home page's options and creates the room: its
    public summary has the option on."""
    host = Player(browser, url, name, locale=locale, errors=errors)
    p = host.page
    host.open()
    p.fill("#create-name", host.name)
    open_fold(p, ".home-details", "#home-opt-substitutes")
    p.check("#home-opt-substitutes")
    p.click("#create-btn")
    expect(p.locator(".lobby-player")).to_have_count(1)
    code = p.locator("#room-chip").inner_text().strip()
    with urllib.request.urlopen(f"{url}api/rooms/{code}", timeout=60) as res:  # noqa: S310 - our 127.0.0.1 stack
        assert json.load(res)["options"]["substitutes"] is True
    host.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_a_spectator_takes_a_seat_given_up_and_sees_its_role_card(browser, stack, console_errors, lang):
    for pl in play_substitution(browser, stack, lang, console_errors):
        pl.close()


@pytest.mark.parametrize("lang", ["ru"])
def test_a_newcomer_who_taps_join_on_a_running_game_is_offered_the_open_seat(
    browser, stack, console_errors, lang
):
    """Found in Russian: "Join" on a running game with an open seat is
    not a bare 409: the newcomer watches, is told so, and takes the seat with the name typed."""
    for pl in play_substitution(browser, stack, lang, console_errors, via="join"):
        pl.close()


def play_substitution(
    browser, stack, lang: str, errors: list[str], shoot=None, via: str = "watch"
) -> list[Player]:
    """The whole story; `shoot(stage, player)` is called at "offer" (the spectator sees the open
    seat, a name typed), "request" (the host's one-tap box) and "landed" (the substitute's role
    card open), for screenshots.
    `via`: the newcomer taps "Watch", or "Join" (the game runs: they watch, told so, with the
    name they typed filled in)."""
    console_errors = errors
    host_name, guest_name, sub_name = NAMES[lang]
    locale = LOCALES[lang]
    # a live room at its deal (POST /_local/rooms): the host, the guest, two bots, the host's
    # option on (the lobby is not what this test is about)
    room = live_room(
        stack,
        lang=lang,
        options={"substitutes": True},
        seats=[{"name": host_name}, {"name": guest_name}, *bots(2, first=3, lang=lang)],
    )
    code = room["roomCode"]
    link = f"{stack.url}?room={code}"
    host_switches_the_option_on(browser, stack.url, host_name, locale, console_errors)
    host = open_seat(browser, stack, room, host_name, locale=locale, errors=console_errors)
    guest = open_seat(browser, stack, room, guest_name, locale=locale, errors=console_errors)
    role = guest.read_role()
    seat_no = guest.page.locator(".tile.me").get_attribute("data-seat") or None
    guest_pid = guest.my_pid()

    # the guest leaves the game (their seat tools, then the confirmation)
    guest.page.locator("#seat-tools summary").click()
    guest.click("#leave-game-btn")
    guest.click("#leave-confirm")
    expect(guest.page.locator("#create-btn")).to_be_visible(timeout=15_000)

    # someone with the room link watches, and the open seat is offered to them
    sub = Player(browser, stack.url, sub_name, locale=locale, errors=console_errors)
    sub.page.goto(link)
    if via == "join":  # a running game takes no new seat: the newcomer watches, told why
        sub.page.fill("#join-name", sub_name)
        sub.click("#join-btn")
        expect(sub.page.locator("#late-join")).to_contain_text(TEXTS[lang]["late"], timeout=15_000)
    else:
        sub.watch()
    seat = sub.page.locator(f'#sub-seats [data-seat="{guest_pid}"]')
    expect(seat).to_be_visible(timeout=15_000)
    n = int(seat_no) if seat_no else int(guest_pid[1:])
    expect(seat).to_have_text(TEXTS[lang]["take"].format(n=n))
    if via == "join":
        expect(sub.page.locator("#late-join")).to_contain_text(TEXTS[lang]["lateOpen"])
        expect(sub.page.locator("#sub-name")).to_have_value(sub_name)  # what they typed to join
    else:
        sub.page.fill("#sub-name", sub_name)
    if shoot:
        shoot("offer", sub)
    seat.click()

    # the host lets the newcomer in with one tap (the room's default: the host approves)
    expect(sub.page.locator("#sub-pending")).to_have_text(TEXTS[lang]["pending"].format(n=n), timeout=15_000)
    let_in = host.page.locator("#seat-requests button[data-key^='let-in-']")
    expect(let_in).to_have_text(TEXTS[lang]["letIn"], timeout=15_000)
    # announced once in the live region, as the box may be out of sight
    expect(host.page.locator("#toast")).to_have_text(TEXTS[lang]["request"].format(name=sub_name, n=n))
    if shoot:
        host.page.locator("#seat-requests").scroll_into_view_if_needed()
        shoot("request", host)
    let_in.click()

    # the substitute holds the seat: its role card opens by itself, over its tile
    card = sub.page.locator(".overlay .role-name")
    expect(card).to_be_visible(timeout=15_000)
    expect(sub.page.locator(".overlay #role-intro")).to_have_text(TEXTS[lang]["landed"].format(n=n))
    expect(sub.page.locator(".overlay #role-goal")).to_be_visible()
    assert card.get_attribute("data-role") == role
    if shoot:
        shoot("landed", sub)
    sub.page.locator(".overlay .btn").click()
    expect(sub.page.locator(f'.tile.me[data-pid="{guest_pid}"]')).to_be_visible(timeout=15_000)
    assert sub.read_role() == role
    # no "seat N has a new player" for the one who took it: it is their own seat
    expect(sub.page.locator("#toast")).not_to_have_text(TEXTS[lang]["notice"].format(n=n))
    kept = sub.page.evaluate(f"() => JSON.parse(localStorage.getItem('mafia.seat.{code}'))")
    assert kept["playerId"] == guest_pid and kept["token"]

    # the table: the notice and the new name, no role
    expect(host.page.locator("#toast")).to_have_text(TEXTS[lang]["notice"].format(n=n), timeout=15_000)
    expect(host.page.locator(f'.tile[data-pid="{guest_pid}"]')).to_contain_text(sub_name)
    assert host.page.locator(f'.tile[data-pid="{guest_pid}"] [data-role]').count() == 0
    sub.check_no_keys()
    if shoot:
        sub.page.click("#my-role-btn")
        expect(sub.page.locator(".overlay .role-name")).to_be_visible()
        shoot("seated", sub)
    return [host, guest, sub]


# ---------------------------------------------------------------- the host's tap, drawn
DRAW = """async ([view]) => {
  const m = await __import('./js/screens/game.js');
  const main = document.querySelector('#main');
  main.replaceChildren();
  document.body.dataset.screen = 'game';
  window.__sent = [];
  const ctx = {state: {view}, send(action, payload) { window.__sent.push({action, ...payload}); },
               rerender() {}, toast() {}, goHome() {}, shareLink: () => ''};
  window.__screen = m.mount(main, ctx);
  window.__screen.update(view);
}"""


def host_view_with_a_request(name: str) -> dict:
    """The host's (p1's) view of a running city game in which seat 4 is open and `name` asks
    for it: the engine's view with the room layer's facts, as functions/service/protocol/views.py makes it."""
    ids = [f"p{i}" for i in range(1, 7)]
    state = me.new_game(ids, {"preset": "city", "substitutes": True}, seed=5, now=0.0)
    v = me.view(state, "p1")
    for p in v["players"]:
        p.update(
            name=f"P{p['id'][1:]}", connected=p["id"] != "p4", ready=False, host=p["id"] == "p1", bot=False
        )
    now = time.time()
    v["serverNow"], v["clockRate"] = now, 1
    if v["phase"]["endsAt"] is not None:
        v["phase"]["endsAt"] = now + v["phase"]["endsAt"]
    v["room"] = {
        "code": "MAFIA",
        "host": "p1",
        "hostAwaySince": None,
        "status": "running",
        "scores": {},
        "wakeAt": None,
        "setupError": None,
        "idleOptions": [],
        "openSeats": [{"player": "p4", "seat": 4, "until": now + 60}],
        "substituted": [],
        "seatRequests": [{"request": "r1", "player": "p4", "seat": 4, "name": name, "at": now}],
    }
    return v


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_host_lets_a_substitute_in_with_one_tap(browser, stack, console_errors, lang):
    """docs/rules.md, "Substitutes": the host approves each substitute with one tap. On a
    390-px phone the request reads in the host's language, each button is one tap (at least
    44 px tall) whose label names the newcomer and the seat for a screen reader, nothing
    overflows, and the tap sends `approveSeat` once."""
    newcomer = NAMES[lang][2]
    host = Player(
        browser, stack.url, NAMES[lang][0], viewport=MOBILE, locale=LOCALES[lang], errors=console_errors
    )
    host.open()
    page = host.page
    page.evaluate(DRAW, [host_view_with_a_request(newcomer)])
    box = page.locator("#seat-requests")
    expect(box).to_be_visible()
    expect(box.locator("li p")).to_have_text(TEXTS[lang]["request"].format(name=newcomer, n=4))
    let_in = box.locator("button[data-key='let-in-r1']")
    refuse = box.locator("button[data-key='refuse-r1']")
    expect(let_in).to_have_text(TEXTS[lang]["letIn"])
    expect(refuse).to_have_text(TEXTS[lang]["refuse"])
    expect(let_in).to_have_attribute("aria-label", TEXTS[lang]["letInLabel"].format(name=newcomer, n=4))
    expect(refuse).to_have_attribute("aria-label", TEXTS[lang]["refuseLabel"].format(name=newcomer, n=4))
    assert page.get_by_role("button", name=TEXTS[lang]["letInLabel"].format(name=newcomer, n=4)).count() == 1
    for button in (let_in, refuse):
        b = button.bounding_box()
        assert b["height"] >= 44 and b["x"] >= 0 and b["x"] + b["width"] <= MOBILE["width"], b
    assert page.evaluate("() => document.documentElement.scrollWidth") <= MOBILE["width"]
    let_in.click()
    assert page.evaluate("() => window.__sent") == [
        {"action": "approveSeat", "request": "r1", "approve": True}
    ]
    refuse.click()
    assert page.evaluate("() => window.__sent")[-1] == {
        "action": "approveSeat",
        "request": "r1",
        "approve": False,
    }
    assert host.missing_keys() == []
    host.close()
