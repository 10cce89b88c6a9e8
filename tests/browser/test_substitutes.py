"""Substitutes, as people do it (docs/rules.md, "Substitutes"): the host switches the option on,
a player leaves mid-game, a spectator with the room link taps "Take seat N", types a name and
sees the seat's role card; the table reads "Seat N has a new player" and the new name, never the
role. In Korean, Russian and English."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .ui import Player

TEXTS = {
    "ko": {"take": "{n}번 자리 맡기", "notice": "{n}번 자리에 새 플레이어가 들어왔습니다."},
    "ru": {"take": "Занять место {n}", "notice": "На месте {n} новый игрок."},
    "en": {"take": "Take seat {n}", "notice": "Seat {n} has a new player."},
}
LOCALES = {"ko": "ko-KR", "ru": "ru-RU", "en": "en-US"}
NAMES = {"ko": ("민지", "준호", "서연"), "ru": ("Анна", "Борис", "Вера"), "en": ("Ann", "Bob", "Cat")}


def create_with_substitutes(host: Player) -> str:
    p = host.page
    host.open()
    p.fill("#create-name", host.name)
    p.locator(".home-details summary").click()
    p.check("#home-opt-substitutes")
    p.click("#create-btn")
    expect(p.locator(".lobby-player")).to_have_count(1)
    return p.locator("#room-chip").inner_text().strip()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_a_spectator_takes_a_seat_given_up_and_sees_its_role_card(browser, stack, console_errors, lang):
    for pl in play_substitution(browser, stack, lang, console_errors):
        pl.close()


def play_substitution(browser, stack, lang: str, errors: list[str], shoot=None) -> list[Player]:
    """The whole story; `shoot(stage, player)` is called at "offer" (the spectator sees the open
    seat, a name typed) and "seated" (the substitute's role card open), for screenshots."""
    console_errors = errors
    host_name, guest_name, sub_name = NAMES[lang]
    locale = LOCALES[lang]
    host = Player(browser, stack.url, host_name, locale=locale, errors=console_errors)
    code = create_with_substitutes(host)
    link = host.page.locator("#share-link").input_value()
    for _ in range(2):
        host.page.click("#add-bot-btn")
    guest = Player(browser, stack.url, guest_name, locale=locale, errors=console_errors)
    guest.join(link)
    guest.ready()
    expect(host.page.locator(".lobby-player")).to_have_count(4)
    host.click("#start-btn")
    expect(guest.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
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
    sub.click("#watch-btn")
    seat = sub.page.locator(f'#sub-seats [data-seat="{guest_pid}"]')
    expect(seat).to_be_visible(timeout=15_000)
    n = int(seat_no) if seat_no else int(guest_pid[1:])
    expect(seat).to_have_text(TEXTS[lang]["take"].format(n=n))
    sub.page.fill("#sub-name", sub_name)
    if shoot:
        shoot("offer", sub)
    seat.click()

    # the substitute holds the seat: its role card, its tile
    expect(sub.page.locator(f'.tile.me[data-pid="{guest_pid}"]')).to_be_visible(timeout=15_000)
    assert sub.read_role() == role
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
