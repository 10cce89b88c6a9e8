""" "While you were away" (docs/rules.md, "While you were away"): a police player in a game
with bots checks someone at night, closes the page, the night ends without them, and the page
opened again shows the digest: the night's public events and the check's result; dismissed,
it stays gone after a reload. One game per language on the manual clock (game time moves
only when the test steps it), written at its first night with the person holding the police
card (`POST /_local/rooms`: tests/browser/live.py) rather than dealt until it came."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .live import bots, live_room, open_seat
from .test_notes import LOCALES, NAMES
from .ui import MOBILE, Player, room_phase

LANGS = ("ko", "ru", "en")
BOTS = 3  # four seats: mafia, police, doctor, citizen
TITLE = {"ko": "자리를 비운 사이", "ru": "Пока вас не было", "en": "While you were away"}


def police_seat(browser, stack, lang: str, errors: list[str]) -> tuple[Player, str, str, list[str]]:
    """A classic room with bots at its first night, the person holding the police card:
    (player, room, own id, the others)."""
    room = live_room(
        stack,
        lang=lang,
        seats=[{"name": NAMES[lang], "role": "police"}, *bots(BOTS, lang=lang)],
        options={"firstPhase": "night"},
        until={"phase": "night"},
    )
    pl = open_seat(browser, stack, room, NAMES[lang], viewport=MOBILE, locale=LOCALES[lang], errors=errors)
    expect(pl.page.locator("#phase-banner")).to_have_attribute("data-kind", "night")
    assert pl.read_role() == "police"
    others = [t.get_attribute("data-pid") for t in pl.page.locator(".tile:not(.me)").all()]
    return pl, room["roomCode"], pl.my_pid(), others


def away_for_a_night(stack, pl: Player, code: str, others: list[str]) -> str:
    """Check a player at night, close the page, let the night end, open the room again:
    the id of the checked player."""
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
    pl, code, me, others = police_seat(browser, stack, lang, console_errors)
    target = away_for_a_night(stack, pl, code, others)
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
