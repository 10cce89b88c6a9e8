"""The room's screen tells the whole story (docs/rules.md, "A screen for the room"), from scripted states (display_story.py,
display_states.py: the spectator's view, which is the display's) drawn by the page's own
modules in ko/ru/en at a TV's and a laptop's size:

- who is accused and by whom (original's nominations, suspects and vote candidates; classic's
  confirm vote with who is on trial and the question; city's tied defense marked as a tie);
- why the game ended, in the words every phone's end screen uses, and the survivors' tiles;
- it draws only what a spectator may read: each moment drawn from the mafia's own view gives
  the very text drawn from the spectator's, and every role word it shows is a public one;
- the narrator tells the execution before the night and opens the game in the room's words;
- the host's card counts the screens from the view's live `room.screens`;
- a public lobby counting down says bots fill the seats instead of a red too-few-players line;
  the screen's lobby says how a public room starts; the stream overlay forces no dark canvas."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from .axe import audit, blocking
from .display_states import states
from .display_story import MOMENTS, stories
from .scripted import draw as draw_screen
from .scripted import lobby_view, name, page_in
from .test_display import LAPTOP, TV, draw, screen_page

T = """([key, params]) => __import('./js/i18n.js').then((m) => m.t(key, params || {}))"""
CAUSE = """async (view) => (await __import('./js/game/sides.js')).causeText(view.result, view.preset)"""


def t(pl, key: str, **params) -> str:
    return pl.page.evaluate(T, [key, params])


def text_without_clock(pl) -> str:
    """Every text the screen draws but the clock's digits (two views made a moment apart)."""
    return pl.page.evaluate(
        "() => { const m = document.querySelector('#display').cloneNode(true); m.querySelector('#d-clock')?.remove(); return m.innerText; }"
    )


def rows(pl) -> list[str]:
    return pl.page.locator("#d-accused li").evaluate_all("(ls) => ls.map((l) => l.innerText.trim())")


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("ko", TV), ("ru", LAPTOP), ("en", TV), ("en", LAPTOP)],
    ids=["ko-1920", "ru-1280", "en-1920", "en-1280"],
)
def test_the_screen_shows_who_is_accused_what_is_voted_and_why_it_ended(
    browser, stack, console_errors, lang, viewport
):
    s = stories(lang)
    pl = screen_page(browser, stack, lang, viewport, console_errors)
    page = pl.page

    # original: the day's nominations, who by whom (Ann nominated Hal, Bob nominated Ann)
    draw(pl, s["original"]["day"], lang)
    expect(page.locator("#d-accused")).to_have_attribute("data-kind", "nominations")
    by = lambda who: t(pl, "display.nominatedBy", name=name(who))  # noqa: E731
    assert rows(pl) == [f"{name('p8')} {by('p1')}", f"{name('p1')} {by('p2')}"]
    expect(page.locator(".d-seat.suspect")).to_have_count(2)
    if viewport is TV:
        assert blocking(audit(page)) == []
    # their defense: both suspects with who nominated them, the one speaking now marked, and on trial
    draw(pl, s["original"]["defense"], lang)
    expect(page.locator("#d-accused")).to_have_attribute("data-kind", "suspects")
    assert rows(pl) == [f"{name('p8')} {by('p1')}", f"{name('p1')} {by('p2')}"]
    expect(page.locator("#d-accused li.now")).to_contain_text(name("p8"))
    expect(page.locator("#d-stage.accused")).to_contain_text(name("p8"))
    # the vote: between the two
    draw(pl, s["original"]["vote"], lang)
    expect(page.locator("#d-accused")).to_have_attribute("data-kind", "candidates")
    expect(page.locator("#d-accused h2")).to_have_text(t(pl, "display.accused.candidates"))
    assert rows(pl) == [name("p8"), name("p1")]

    # classic: the confirm vote says who is on trial and the question the phones answer
    draw(pl, s["classic"]["defense"], lang)
    expect(page.locator("#d-stage.accused")).to_contain_text(name("p1"))
    draw(pl, s["classic"]["vote"], lang)
    expect(page.locator("#d-stage.accused .d-big")).to_have_text(name("p1"))
    expect(page.locator("#d-question")).to_have_text(t(pl, "display.confirmQuestion", name=name("p1")))
    expect(page.locator("#d-votes")).to_be_visible()  # the nomination's tally beside it
    if viewport is TV:
        assert blocking(audit(page)) == []

    # city: the tied defense is marked as a tie, then the revote between the tied
    draw(pl, s["city"]["defense"], lang)
    expect(page.locator("#d-accused")).to_have_attribute("data-kind", "tie")
    expect(page.locator("#d-accused h2")).to_have_text(t(pl, "display.accused.tie"))
    assert rows(pl) == [name("p4"), name("p5")]
    draw(pl, s["city"]["vote"], lang)
    expect(page.locator("#d-accused")).to_have_attribute("data-kind", "candidates")
    assert rows(pl) == [name("p4"), name("p5")]
    draw(pl, s["city"]["day"], lang)  # no one is accused yet: no panel
    expect(page.locator("#d-accused")).to_have_count(0)

    # every end: the cause as the phones word it; the living "survived", never "in the game"
    for book in ("original", "classic", "city"):
        view = s[book]["end"]
        draw(pl, view, lang)
        cause = page.evaluate(CAUSE, view)
        assert cause, book
        expect(page.locator("#d-cause")).to_have_text(cause)
        living = [p["id"] for p in view["players"] if p["alive"]]
        assert living, book
        for pid in living:
            expect(page.locator(f'.d-seat[data-pid="{pid}"] .d-state')).to_have_text(
                t(pl, "display.survived")
            )
        assert t(pl, "display.alive") not in page.locator("#d-seats").inner_text()
        if viewport is TV and book == "city":
            assert blocking(audit(page)) == []
    assert pl.missing_keys() == []
    pl.close()


def test_the_screen_draws_only_what_a_spectator_may_read(browser, stack, console_errors):
    """Each moment of each rulebook drawn from the mafia's own view (p1 is the mafia: its
    allies, its role, its night) gives exactly the text drawn from the spectator's: the screen
    reads nothing a spectator cannot. And every role word it draws is public in the spectator's
    view (revealed at the end, or a revealed card)."""
    spectator, mafia = stories("en"), stories("en", viewer="p1")
    spectator["round1"], mafia["round1"] = states("en"), states("en", viewer="p1")  # the night's acts too
    pl = screen_page(browser, stack, "en", TV, console_errors)
    role_name = "async ([r, p]) => (await __import('./js/i18n.js')).roleName(r, p)"
    checked = 0
    for book, moments in spectator.items():
        for moment, view in moments.items():
            assert "you" not in view or not view["you"], (book, moment)
            draw(pl, view, "en")
            seen = text_without_clock(pl)
            draw(pl, mafia[book][moment], "en")
            assert text_without_clock(pl) == seen, (book, moment)
            draw(pl, view, "en")
            public = {p["role"] for p in view["players"] if p.get("role")} | {
                p["revealed"] for p in view["players"] if isinstance(p.get("revealed"), str)
            }
            words = {pl.page.evaluate(role_name, [r, view["preset"]]) for r in public}
            for word in pl.page.locator(".d-role").all_inner_texts():
                assert word in words or not public and word == "", (book, moment, word)
            checked += 1
    assert checked == 3 * len(MOMENTS) + 2 + 8  # classic's start and night; display_states' eight
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_narrator_tells_the_execution_before_the_night_in_the_rooms_words(
    browser, stack, console_errors, lang
):
    s = stories(lang)["classic"]
    pl = screen_page(browser, stack, lang, TV, console_errors)
    lines = "async ([a, b]) => (await __import('./js/display/narrate.js')).linesFor(a, b)"
    # the game opens: the room is told to look at the roles, not the phones' "Your role"
    opening = pl.page.evaluate(lines, [None, s["start"]])
    assert opening == [t(pl, "display.say.roleReveal")], opening
    assert t(pl, "phase.roleReveal") not in opening
    # the confirm vote closes, Ann is executed, the night falls: in that order, in one step
    told = pl.page.evaluate(lines, [s["vote"], s["night"]])
    night = t(pl, "display.say.night")
    executed = [i for i, line in enumerate(told) if name("p1") in line]
    assert night in told and executed and max(executed) < told.index(night), told
    # the night's title: "Night 2", not "Night 2 · Night"
    draw(pl, s["night"], lang)
    expect(pl.page.locator("#d-phase")).to_have_text(t(pl, "banner.night", n=s["night"]["day"]))
    draw(pl, s["start"], lang)
    expect(pl.page.locator("#d-phase")).to_have_text(t(pl, "display.roleReveal"))
    assert pl.missing_keys() == []
    pl.close()


HOST_CARD = """async ([view, frame]) => {
  const share = await __import('./js/display/share.js');
  share.onDisplayFrame(frame, { rerender() {} });
  const card = share.screenCard({ send() {} }, view, true);
  document.querySelector('#main').replaceChildren(card);
  return document.querySelector('#screen-count').textContent;
}"""


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_hosts_card_counts_the_screens_the_view_says_and_a_counting_down_lobby_is_calm(
    browser, stack, console_errors, lang
):
    pl = page_in(browser, stack, lang, console_errors)
    # the display frame came when the host asked for the link (no screen yet); the TV joined since
    host = lobby_view("classic", ["Ann", "Bob"], "p1", lang=lang)
    host["room"]["screens"] = 1
    frame = {"room": host["room"]["code"], "key": "k" * 16, "screens": 0, "narrator": False}
    assert pl.page.evaluate(HOST_CARD, [host, frame]) == t(pl, "display.screens", n=1)
    host["room"]["screens"] = 0  # and it goes back to 0 when the screen leaves
    assert pl.page.evaluate(HOST_CARD, [host, frame]) == t(pl, "display.screens", n=0)

    # a public room counting down with 2 of 4: bots will fill the seats, said calmly
    public = lobby_view("classic", ["Ann", "Bob"], "p2", lang=lang, options={"public": True})
    assert public["room"]["setupError"], public["room"]
    public["room"]["autoStartAt"] = time.time() + 13
    draw_screen(pl.page, "lobby", public, seated=True)
    expect(pl.page.locator("#auto-start")).to_be_visible()
    expect(pl.page.locator("#setup-error")).to_have_text(t(pl, "lobby.botsFill", joined=2))
    expect(pl.page.locator(".setup-error")).to_have_count(0)
    # a private room with 2 of 4 keeps the line that says what is missing
    private = lobby_view("classic", ["Ann", "Bob"], "p2", lang=lang)
    draw_screen(pl.page, "lobby", private, seated=True)
    expect(pl.page.locator(".setup-error")).to_be_visible()
    expect(pl.page.locator("#auto-start")).to_have_count(0)
    pl.close()


HOST_FRAMES = """async ([view, frames]) => {
  const share = await __import('./js/display/share.js');
  const sent = [];
  for (const frame of frames) share.onDisplayFrame(frame, { rerender() {} });
  const card = share.screenCard({ send: (...a) => sent.push(a) }, view, true);  // an id: sent
  document.querySelector('#main').replaceChildren(card);
  return [document.querySelector('#screen-link').value, sent];
}"""


def test_the_hosts_card_keeps_the_newest_key_and_asks_again_after_a_revoke_elsewhere(
    browser, stack, console_errors
):
    """Two `display` answers may cross: the narrator switch's, made before a revoke, arriving after
    the revoke's must not bring the revoked key back; a view saying the host revoked on another
    device makes the card ask for the current key once (docs/protocol.md, "A screen for the room")."""
    pl = page_in(browser, stack, "en", console_errors)
    host = lobby_view("classic", ["Ann", "Bob"], "p1")
    code = host["room"]["code"] = f"G{time.time_ns() % 10**4:04d}"  # this page's card keeps its last frame per room
    host["room"]["displayGen"] = 1
    frame = {"room": code, "screens": 0, "narrator": False}
    revoked, current = "a" * 32, "b" * 32
    link, sent = pl.page.evaluate(HOST_FRAMES, [host, [{**frame, "key": current, "gen": 1}, {**frame, "key": revoked, "gen": 0}]])
    assert f"display={current}" in link and sent == []
    host["room"]["displayGen"] = 2  # revoked on the host's laptop: this phone's link is dead
    link, sent = pl.page.evaluate(HOST_FRAMES, [host, []])
    assert f"display={current}" in link and sent == [["display"]]  # drawn until the answer comes
    assert pl.page.evaluate(HOST_FRAMES, [host, []])[1] == []  # asked once, not at every redraw
    link, sent = pl.page.evaluate(HOST_FRAMES, [host, [{**frame, "key": "c" * 32, "gen": 2}]])
    assert f"display={'c' * 32}" in link and sent == []
    pl.close()


def test_the_screens_lobby_says_how_the_game_starts_and_the_overlay_paints_no_canvas(
    browser, stack, console_errors
):
    pl = screen_page(browser, stack, "en", LAPTOP, console_errors, "&overlay=1")
    # a plain browser window paints the canvas dark under `color-scheme: dark`: the overlay asks for none
    assert pl.page.evaluate("() => getComputedStyle(document.documentElement).colorScheme") == "normal"
    for public, key in ((True, "display.lobbyPublic"), (False, "display.lobbyWait")):
        v = lobby_view("classic", ["Ann", "Bob", "Cat", "Dan"], None, options={"public": public})
        draw(pl, v, "en")
        expect(pl.page.locator("#d-lobby-start")).to_have_text(t(pl, key))
    pl.close()


DEVICE_END = """async (view) => {
  const m = await __import('./js/device/screens.js');
  document.querySelector('#main').replaceChildren(m.end(view, { onAgain() {}, onFinish() {} }));
  return (view.events || []).filter((ev) => !['morning', 'end', 'paused', 'resumed'].includes(ev.kind)).length;
}"""


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_single_device_end_tells_the_whole_story_and_every_seats_fate(
    browser, stack, console_errors, lang
):
    """Item 6: the one-phone end lists every event of the game (not the last three), says a
    night victim was killed at night and an executed player went out by day, and gives every
    seat its result word, won or lost."""
    view = stories(lang)["original"]["end"]
    pl = page_in(browser, stack, lang, console_errors)
    assert pl.page.evaluate(DEVICE_END, view) > 3
    news = pl.page.locator("#device-end .device-news-list")
    assert news.locator("li").count() > 3  # more than the last three
    for p in view["result"]["players"]:  # every exit of the game is in it, night 1's first
        if not p["alive"]:
            expect(news).to_contain_text(name(p["id"]))
    night = [p for p in view["result"]["players"] if p["diedBy"] in ("mafia", "night", "kill")]
    byday = [p for p in view["result"]["players"] if p["diedBy"] == "vote"]
    assert night and byday, view["result"]["players"]
    for p in night:
        fate = t(pl, "end.diedNight", n=p["diedDay"])
        expect(pl.page.locator(f'#device-roles li[data-pid="{p["id"]}"] .end-fate')).to_contain_text(fate)
    for p in byday:
        fate = t(pl, "end.died", n=p["diedDay"])
        expect(pl.page.locator(f'#device-roles li[data-pid="{p["id"]}"] .end-fate')).to_contain_text(fate)
    for p in view["result"]["players"]:
        word = t(pl, "end.won" if p["won"] else "end.lost")
        expect(pl.page.locator(f'#device-roles li[data-pid="{p["id"]}"] .end-fate')).to_contain_text(word)
    assert pl.missing_keys() == []
    pl.close()
