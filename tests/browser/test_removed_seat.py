"""A seat that is gone, as the player hits it: removed by the host (in the lobby or mid-game)
or given up on another device while this page was closed. Opening the room again must not
retry for ever: the page goes home with a short note in the player's language naming the
room, and the seat leaves "your games". Bot seats read in the room's language too.

A refused WebSocket handshake carries no body: the client asks what became of its seat
(POST /rooms/{code}/fate, its token in a header), then, for a token the room no longer knows,
the public room summary (GET /rooms/{code}: `removed` ids, `left` seats); neither says anything
more about anyone."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .ui import Player

HANDSHAKE_403 = re.compile(r"WebSocket connection to .* failed: .*Unexpected response code: 403")

# What a page that came home shows, read in one step (a later push cannot split the reads).
HOME_JS = """(code) => ({
  screen: document.body.dataset.screen,
  notice: document.querySelector('.home > .notice')?.textContent || null,
  noticeKey: document.querySelector('.home > .notice')?.dataset.notice || null,
  banner: !document.querySelector('#conn-banner').hidden,
  kept: localStorage.getItem('mafia.seat.' + code) !== null,
  listed: document.querySelectorAll(`#my-games [data-room="${code}"]`).length,
  room: new URLSearchParams(location.search).get('room'),
})"""


def reopen(pl: Player, url: str, errors: list[str]) -> None:
    """The player opens `url` in a new page of the same browser (the seat kept in it)."""
    pl.page = pl.context.new_page()
    pl.page.on("console", lambda m: m.type == "error" and errors.append(f"{pl.name}: {m.text}"))
    pl.page.on("pageerror", lambda e: errors.append(f"{pl.name}: {e}"))
    pl.page.goto(url)


def seat_of(pl: Player, code: str) -> dict:
    return pl.page.evaluate(f"() => JSON.parse(localStorage.getItem('mafia.seat.{code}'))")


def refused_handshakes(errors: list[str], *names: str) -> None:
    """The refused reconnects of these players are expected (Chromium logs each one)."""
    errors[:] = [e for e in errors if not (e.split(":", 1)[0] in names and HANDSHAKE_403.search(e))]


def test_a_seat_removed_in_the_lobby_goes_home_with_a_note_in_russian(browser, stack, console_errors):
    ann = Player(browser, stack.url, "Анна", locale="ru-RU", errors=console_errors)
    code = ann.create()
    link = ann.page.locator("#share-link").input_value()
    ann.page.click("#add-bot-btn")
    expect(ann.page.locator(".lobby-player .pname")).to_have_text(["Анна", "Бот 2"])
    bob = Player(browser, stack.url, "Борис", locale="ru-RU", errors=console_errors)
    bob.join(link)
    cat = Player(browser, stack.url, "Вера", locale="ru-RU", errors=console_errors)
    cat.join(link)
    ann.page.click("#add-bot-btn")  # the next free bot name, in Russian
    expect(ann.page.locator(".lobby-player .pname")).to_have_text(["Анна", "Бот 2", "Борис", "Вера", "Бот 5"])
    bob_pid, cat_pid = seat_of(bob, code)["playerId"], seat_of(cat, code)["playerId"]

    # both close their pages (a phone asleep); the host removes both meanwhile
    bob.page.close()
    cat.page.close()
    ann.page.click(f'[data-key="kick-{bob_pid}"]')
    ann.page.click(f'[data-key="kick-{cat_pid}"]')
    expect(ann.page.locator(".lobby-player")).to_have_count(3)

    # Bob opens the room link again: home, with the note, the seat forgotten
    reopen(bob, link, console_errors)
    note = bob.page.locator('.home > .notice[data-notice="seat.removed"]')
    expect(note).to_be_visible(timeout=20_000)
    home = bob.page.evaluate(HOME_JS, code)
    assert home == {
        "screen": "home",
        "notice": f"Вас удалили из комнаты {code}.",
        "noticeKey": "seat.removed",
        "banner": False,
        "kept": False,
        "listed": 0,
        "room": None,
    }, home

    # Cat opens the home page: "your games" drops the room with the same note
    reopen(cat, stack.url, console_errors)
    gone = cat.page.locator(f'#my-games-title ~ .my-games-notes [data-gone="{code}"]')
    expect(gone).to_be_visible(timeout=10_000)
    state = cat.page.evaluate(
        """(code) => ({
          note: document.querySelector(`[data-gone="${code}"]`).textContent,
          key: document.querySelector(`[data-gone="${code}"]`).dataset.notice,
          listed: document.querySelectorAll(`#my-games [data-room="${code}"]`).length,
          kept: localStorage.getItem('mafia.seat.' + code) !== null,
        })""",
        code,
    )
    assert state == {
        "note": f"Вас удалили из комнаты {code}.",
        "key": "seat.removed",
        "listed": 0,
        "kept": False,
    }
    cat.page.reload()  # and it stays gone
    expect(cat.page.locator("#create-btn")).to_be_visible()
    assert (
        cat.page.evaluate("() => document.querySelectorAll('#my-games, .my-games-notes .notice').length") == 0
    )

    refused_handshakes(console_errors, "Борис")
    for pl in (ann, bob, cat):
        assert pl.missing_keys() == [], pl.missing_keys()
        pl.close()


def test_a_seat_removed_or_left_mid_game_goes_home_with_a_note_in_korean(browser, stack, console_errors):
    ann = Player(browser, stack.url, "민준", locale="ko-KR", errors=console_errors)
    code = ann.create()
    link = ann.page.locator("#share-link").input_value()
    bob = Player(browser, stack.url, "서연", locale="ko-KR", errors=console_errors)
    bob.join(link)
    cat = Player(browser, stack.url, "지호", locale="ko-KR", errors=console_errors)
    cat.join(link)
    for n in range(4):  # seven seats, two mafia: neither removal below can end the game
        ann.page.click("#add-bot-btn")
        expect(ann.page.locator(".lobby-player")).to_have_count(n + 4)
    expect(ann.page.locator(".lobby-player .pname")).to_have_text(
        ["민준", "서연", "지호", "봇 4", "봇 5", "봇 6", "봇 7"]
    )
    bob.ready()
    cat.ready()
    ann.click("#start-btn")
    for pl in (ann, bob, cat):
        expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    expect(ann.page.locator(".tile .tile-name", has_text="봇 4")).to_have_count(1)
    bob_seat, cat_seat = seat_of(bob, code), seat_of(cat, code)

    # Cat continues on a second device (the private link) and closes the first page
    phone = Player(browser, stack.url, "지호 phone", locale="ko-KR", errors=console_errors)
    phone.page.goto(f"{stack.url}?room={code}#seat={code}.{cat_seat['playerId']}.{cat_seat['token']}")
    expect(phone.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    cat.page.close()
    bob.page.close()

    # the host removes Bob (two taps), then Cat leaves the game from the phone
    ann.dismiss_cards()
    ann.page.locator("#host-tools summary").click()
    remove = ann.page.locator(f'#host-remove button[data-pid="{bob_seat["playerId"]}"]')
    remove.click()
    remove.click()
    expect(ann.page.locator(f'.tile.dead[data-pid="{bob_seat["playerId"]}"]')).to_have_count(1)
    phone.dismiss_cards()
    tools = phone.page.locator("#seat-tools")
    if tools.get_attribute("open") is None:
        phone.page.locator("#seat-tools summary").click()
    phone.page.click("#leave-game-btn")
    phone.page.click("#leave-confirm")
    expect(phone.page.locator("#create-btn")).to_be_visible(timeout=10_000)
    expect(ann.page.locator(f'.tile.dead[data-pid="{cat_seat["playerId"]}"], #end-title')).to_have_count(
        1, timeout=10_000
    )

    # Bob reloads the room: removed; Cat's first device reopens it: left
    reopen(bob, link, console_errors)
    expect(bob.page.locator(".home > .notice")).to_be_visible(timeout=20_000)
    home = bob.page.evaluate(HOME_JS, code)
    assert home == {
        "screen": "home",
        "notice": f"방장이 나를 {code} 방에서 내보냈습니다.",
        "noticeKey": "seat.removed",
        "banner": False,
        "kept": False,
        "listed": 0,
        "room": None,
    }, home
    reopen(cat, link, console_errors)
    expect(cat.page.locator(".home > .notice")).to_be_visible(timeout=20_000)
    home = cat.page.evaluate(HOME_JS, code)
    assert (
        home["noticeKey"] == "seat.left"
        and home["notice"] == f"{code} 방에서 나왔습니다. 그 방의 내 자리는 닫혔습니다."
    )
    assert (home["screen"], home["banner"], home["kept"], home["listed"]) == ("home", False, False, 0), home
    # the table still plays: Ann's seat is untouched
    assert ann.page.evaluate("() => document.body.dataset.screen") in ("game", "end")

    refused_handshakes(console_errors, "서연", "지호")
    for pl in (ann, bob, cat, phone):
        assert pl.missing_keys() == [], pl.missing_keys()
        pl.close()
