"""The city mafia's night screen (docs/rulebooks/001-city.txt «Ночь»), with seven people at seven
phones: 2 mafia by the city's table. Who is mafia is whatever the server dealt; each person learns
it from their own role card, as at a real table."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import MOBILE, Player, end_phase, open_fold

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus"]
# The reveal ends when the test steps past it (the manual clock); the night lasts until stepped.
OPTIONS = {"roleRevealSeconds": "5", "nightSeconds": "180", "discussionSeconds": "900"}


def seat_city_table(browser, url: str, errors: list[str]) -> list[Player]:
    host = Player(browser, url, NAMES[0], viewport=MOBILE, errors=errors)
    page = host.page
    host.open()
    page.fill("#create-name", host.name)
    page.select_option("#create-preset", "city")
    open_fold(page, ".home-details", f"#home-opt-{next(iter(OPTIONS))}")
    for key, value in OPTIONS.items():
        control = page.locator(f"#home-opt-{key}")
        control.fill(value)
        control.dispatch_event("change")
    page.click("#create-btn")
    expect(page.locator(".lobby-player")).to_have_count(1)
    link = page.locator("#share-link").input_value()
    players = [host]
    for name in NAMES[1:]:
        guest = Player(browser, url, name, errors=errors)
        guest.join(link)
        guest.ready()
        players.append(guest)
    expect(page.locator(".lobby-player.is-ready")).to_have_count(len(NAMES) - 1)
    return players


def test_city_mafia_night_screen_says_there_is_no_night_chat_and_shows_the_teams_picks(
    browser, stack, console_errors
):
    """docs/rulebooks/001-city.txt «Узнайте свою роль», «Ночь»: the city mafia has no night chat
    ("agree by day"); each mafioso sees the teammates' confirmed choices. So a mafioso's night box
    says there is no chat, a townsperson's never does, and once one mafioso confirms a victim the
    other reads "Your team: <mate> → <victim>"."""
    players = seat_city_table(browser, stack.url, console_errors)
    players[0].click("#start-btn")
    expect(players[0].page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    end_phase(stack, players[0], "roleReveal")
    for pl in players:
        pl.wait_phase("night")
        pl.my_pid()
        pl.read_role()
    mafia = [pl for pl in players if pl.role == "mafia"]
    town = [pl for pl in players if pl.role != "mafia"]
    assert len(mafia) == 2, {pl.name: pl.role for pl in players}  # city table: 7 players, 2 mafia
    for pl in mafia:
        expect(pl.page.locator("#task-box #no-night-chat")).to_have_text(
            "By these rules the mafia has no night chat: agree by day, in hints."
        )
        expect(pl.page.locator("#chat-tab-mafia")).to_have_count(0)
        expect(pl.page.locator("#task-team")).to_have_text("\u00a0")  # nobody has chosen yet
    for pl in town:
        expect(pl.page.locator("#task-box")).to_be_visible()
        expect(pl.page.locator("#no-night-chat")).to_have_count(0)

    first, second = mafia
    victim = town[0]
    first.tap(victim.pid)
    expect(first.page.locator("#task-choice")).to_have_text(f"Your choice: {victim.name}")
    expect(second.page.locator("#task-team")).to_have_text(f"Your team: {first.name} → {victim.name}")
    # The townspeople's boxes never show a team line.
    for pl in town:
        expect(pl.page.locator("#task-team")).to_have_text("\u00a0")
    for pl in players:
        pl.close()
