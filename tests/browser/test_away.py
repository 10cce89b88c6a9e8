""" "While you were away" (docs/rules.md, "While you were away"): a police player in a game
with bots checks someone at night, closes the page, the night ends without them, and the page
opened again shows the digest: the night's public events and the check's result; dismissed,
it stays gone after a reload. One game per language on the manual clock (game time moves
only when the test steps it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_notes import LOCALES, NAMES, to_phase
from .ui import MOBILE, Link, Player, room_phase

LANGS = ("ko", "ru", "en")
BOTS = 3  # four seats: mafia, police, doctor, citizen; a quarter of the deals make us the police
TRIES = 24
TITLE = {"ko": "자리를 비운 사이", "ru": "Пока вас не было", "en": "While you were away"}


def police_seat(browser, stack, lang: str, errors: list[str]) -> tuple[Player, str, str, list[str], Link]:
    """A classic room with bots where the person holds the police card: (player, room, own id,
    the others, the page's link). The deal is the server's; rooms are made until one deals the
    police to us."""
    for _ in range(TRIES):
        pl = Player(browser, stack.url, NAMES[lang], viewport=MOBILE, locale=LOCALES[lang], errors=errors)
        page = pl.page
        link = Link(page)  # the night must be seen: the test nudges as the page would
        pl.open()
        page.fill("#create-name", pl.name)
        page.click("#create-btn")
        expect(page.locator(".lobby-player")).to_have_count(1, timeout=20_000)
        code = page.locator("#room-chip").inner_text().strip()
        for n in range(BOTS):
            page.click("#add-bot-btn")
            expect(page.locator(".lobby-player")).to_have_count(n + 2)
        page.click("#start-btn")
        expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)
        me = pl.my_pid()
        if pl.read_role() == "police":
            return pl, code, me, [t.get_attribute("data-pid") for t in page.locator(".tile:not(.me)").all()], link
        pl.close()
    raise AssertionError(f"no room of {TRIES} dealt the police to the person")


def away_for_a_night(stack, pl: Player, code: str, others: list[str], link: Link) -> str:
    """Check a player at night, close the page, let the night end, open the room again:
    the id of the checked player."""
    to_phase(stack, pl, ("night",), link=link)
    target = next(o for o in others if pl.page.locator(f'.tile.selectable[data-pid="{o}"]').count())
    pl.tap(target)
    url = pl.page.url
    pl.page.close()  # the tab closes: the seat's last socket goes
    for _ in range(40):
        if room_phase(stack.url, code) != "night":
            break
        stack.step_on()
    assert room_phase(stack.url, code) not in ("night", None)
    pl.page = pl.context.new_page()
    pl.page.on("console", lambda m: m.type == "error" and pl.errors.append(f"{pl.name}: {m.text}"))
    pl.page.goto(url)
    expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    return target


@pytest.mark.parametrize("lang", LANGS)
def test_a_player_back_after_a_night_sees_what_they_missed_once(browser, stack, console_errors, lang):
    pl, code, me, others, link = police_seat(browser, stack, lang, console_errors)
    target = away_for_a_night(stack, pl, code, others, link)
    page = pl.page
    digest = page.locator("#away-digest")
    expect(digest).to_be_visible(timeout=15_000)
    expect(digest.locator("h3")).to_have_text(TITLE[lang])
    # the night's public events, in order, as the seat's own view holds them past its marker
    kinds = digest.locator(".away-events li").evaluate_all("els => els.map((e) => e.dataset.kind)")
    assert kinds and kinds[-1] == "morning", kinds
    # the check's result, naming the checked player as the table sees them
    name = page.locator(f'.tile[data-pid="{target}"] .tile-name').inner_text().strip()
    result = digest.locator(".away-result")
    expect(result).to_have_count(1)
    expect(result).to_contain_text(name)
    pl.check_no_keys()
    assert pl.missing_keys() == []
    # dismissed: gone, and a reload does not bring it back
    page.click("#away-dismiss")
    expect(digest).to_have_count(0)
    page.reload()
    expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    page.wait_for_timeout(500)
    expect(page.locator("#away-digest")).to_have_count(0)
    pl.close()
