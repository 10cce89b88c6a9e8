"""Notes on tiles (docs/rules.md, "Notes on tiles"): a player marks another player with a
suspected role, side or colour and a short note, from the tile's note button, on a phone; the
mark shows on the tile and in the vote list, survives a reload, is gone once the game ends
(and the next game in the room starts clean), and is never on the wire: no WebSocket frame
and no HTTP request of the page carries it. One room with bots per language, on the manual
clock (game time moves only when the test steps it), written at day 2's defense with a bot
accused (`POST /_local/rooms`: tests/browser/live.py) rather than played until some vote
had a result."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

import mafia_engine as me_engine

from .axe import AXE_JS, MISSING_AXE, audit, blocking, record
from .live import bots, goto_seat, live_room, seat
from .scripted import LOCALES
from .ui import MOBILE, Player, open_fold

LANGS = ("ko", "ru", "en")
NAMES = {"ko": "민지", "ru": "Аня", "en": "Ann"}
# What the mark says, in the player's words: distinct enough to find in any byte on the wire.
NOTES = {"ko": "조용함 qz7", "ru": "молчит qz7", "en": "too quiet qz7"}
# The words the client shows for the mafia role and the red colour (web/js/i18n/*.js).
MAFIA = {"ko": "마피아", "ru": "Мафия", "en": "Mafia"}
RED = {"ko": "빨강", "ru": "Красный", "en": "Red"}
BOTS = 7  # eight seats: two mafiosi, a game of several days, so some vote comes to a trial


OVERLAPS_JS = """() => [...document.querySelectorAll('.tile-cell')].flatMap((li) => {
  const b = li.querySelector('.note-btn');
  if (!b) return [];
  const r = b.getBoundingClientRect();
  const tile = li.querySelector('.tile').getBoundingClientRect();
  const out = [];
  if (r.bottom > tile.bottom || r.right > tile.right) out.push(li.dataset.pid + ': outside its tile');
  for (const el of li.querySelectorAll('.tile-name, .note-chip')) {
    const n = el.getBoundingClientRect();
    if (!(r.right <= n.left || r.left >= n.right || r.bottom <= n.top || r.top >= n.bottom)) out.push(el.className);
  }
  return out;
})"""


class Wire:
    """Everything the page sends: WebSocket frames and HTTP requests (address and body)."""

    def __init__(self, page) -> None:
        self.sent: list[str] = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: self.sent.append(str(payload))))
        page.on("request", lambda r: self.sent.append(f"{r.method} {r.url} {r.post_data or ''}"))

    def carrying(self, *needles: str) -> list[str]:
        return [s for s in self.sent if any(n in s for n in needles)]


def notes_stored(pl: Player, code: str):
    return pl.page.evaluate("(k) => localStorage.getItem(k)", f"mafia.notes.{code}")


def mark(pl: Player, pid: str, tag: str, note: str | None) -> None:
    """Tap the tile's note button, pick a suspicion, type the note, save."""
    page = pl.page
    pl.dismiss_cards()
    page.click(f'[data-note-btn="{pid}"]')
    sheet = page.locator("#note-dialog")
    expect(sheet).to_be_visible()
    sheet.locator(f'input[value="{tag}"]').check()
    if note is not None:
        sheet.locator("#note-text").fill(note)
    sheet.locator("#note-save").click()
    expect(sheet).to_have_count(0)
    # the focus is back on the button that opened the sheet
    expect(page.locator(f'[data-note-btn="{pid}"]')).to_be_focused()


def notes_room(stack, lang: str) -> tuple[dict, str]:
    """A classic room of the person (a citizen) and BOTS bots at day 2's defense, five bots
    having voted the first bot out: (the room, the accused's name)."""
    seats = [{"name": NAMES[lang], "role": "citizen"}, *bots(BOTS, lang=lang)]
    accused = seats[1]["name"]
    votes = [{"type": "vote", "player": b["name"], "target": accused} for b in seats[2:7]]
    room = live_room(
        stack,
        lang=lang,
        seats=seats,
        steps=[{"until": {"phase": "vote"}}, *votes, "timeout"],
        until={"phase": "defense"},
    )
    return room, accused


@pytest.mark.parametrize("lang", LANGS)
def test_a_player_marks_tiles_and_the_marks_stay_in_this_browser_for_one_game(
    browser, stack, console_errors, lang
):
    room, accused = notes_room(stack, lang)
    code = room["roomCode"]
    pl = Player(browser, stack.url, NAMES[lang], viewport=MOBILE, locale=LOCALES[lang], errors=console_errors)
    wire = Wire(pl.page)
    page = pl.page
    goto_seat(pl, stack, room)
    expect(page.locator("#phase-banner")).to_have_attribute("data-kind", "defense", timeout=15_000)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    me = pl.my_pid()
    pl.read_role()
    others = [t.get_attribute("data-pid") for t in page.locator(".tile:not(.me)").all()]
    assert len(others) == BOTS
    assert others[0] == seat(room, accused)["playerId"]
    # no note button on one's own tile, one on every other
    expect(page.locator(f'[data-note-btn="{me}"]')).to_have_count(0)
    expect(page.locator("[data-note-btn]")).to_have_count(BOTS)

    # The sheet offers this game's roster (what the engine deals for these seats), the sides
    # and the colours, each a labelled radio button.
    page.click(f'[data-note-btn="{others[0]}"]')
    sheet = page.locator("#note-dialog")
    expect(sheet).to_be_visible()
    roles = sheet.locator('[data-group="role"] input').evaluate_all("els => els.map((e) => e.value)")
    dealt = me_engine.lobby_roster({"preset": "classic"}, BOTS + 1)
    assert sorted(roles) == sorted(f"role:{r}" for r in dealt), roles
    assert sheet.locator('[data-group="side"] input').count() == 2
    assert sheet.locator('[data-group="colour"] input').count() == 4
    # the sheet passes axe (0 critical, 0 serious), as every screen does (test_a11y.py)
    if not AXE_JS.exists():
        pytest.fail(MISSING_AXE, pytrace=False)
    found = audit(page)
    record(f"notes/sheet/{lang}", found)
    assert blocking(found) == [], blocking(found)
    page.keyboard.press("Escape")
    expect(sheet).to_have_count(0)
    expect(page.locator(f'[data-note-btn="{others[0]}"]')).to_be_focused()

    mark(pl, others[0], "role:mafia", NOTES[lang])
    mark(pl, others[1], "colour:red", None)
    chip = page.locator(f'.tile[data-pid="{others[0]}"] .note-chip')
    expect(chip).to_contain_text(MAFIA[lang])
    expect(chip).to_contain_text(NOTES[lang])
    expect(page.locator(f'.tile[data-pid="{others[1]}"] .note-chip')).to_contain_text(RED[lang])
    expect(page.locator(f'.tile[data-pid="{others[1]}"] .note-dot.note-red')).to_have_count(1)
    # on the phone no note button covers a name or a mark, and each sits inside its tile
    assert page.evaluate(OVERLAPS_JS) == []
    found = audit(page)  # the tiles with their marks and note buttons
    record(f"notes/tiles/{lang}", found)
    assert blocking(found) == [], blocking(found)
    pl.check_no_keys()

    # A reload keeps them (this browser's storage).
    page.reload()
    expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    expect(page.locator(f'.tile[data-pid="{others[0]}"] .note-chip')).to_contain_text(NOTES[lang])
    expect(page.locator(f'.tile[data-pid="{others[1]}"] .note-chip')).to_contain_text(RED[lang])

    # The vote list: the accused's row carries the mark made on their tile.
    row = page.locator(f'.vote-row[data-target="{others[0]}"] .note-chip')
    expect(row).to_be_visible()
    expect(row).to_contain_text(NOTES[lang])

    # The host ends the game: the end screen, and the notes are gone from this browser.
    pl.dismiss_cards()
    open_fold(page, "#host-tools", "#end-game-btn")
    page.click("#end-game-btn")
    page.click("#end-game-btn")
    expect(page.locator("#end-title")).to_be_visible(timeout=15_000)
    assert notes_stored(pl, code) is None
    expect(page.locator(".note-chip")).to_have_count(0)

    # A new game in the same room starts clean.
    page.click("#new-game-btn")
    expect(page.locator("#start-btn")).to_be_visible(timeout=15_000)
    page.click("#start-btn")
    expect(page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    expect(page.locator("[data-note-btn]")).to_have_count(BOTS)
    expect(page.locator(".note-chip")).to_have_count(0)
    assert notes_stored(pl, code) is None

    # Nothing of it was ever on the wire: no frame, no request.
    assert wire.sent, "the page sent nothing at all: the recorder is broken"
    assert any('"action"' in s for s in wire.sent), "no WebSocket frame recorded"
    leaks = wire.carrying(NOTES[lang], "qz7", "role:mafia", "colour:red", json.dumps(NOTES[lang])[1:-1])
    assert leaks == [], leaks
    pl.close()
