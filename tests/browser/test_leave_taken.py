"""A leave either takes effect or says why (a leave that is lost or refused says so; room.js `ctx.leave`), from a scripted state
(display_story.py: classic, Ann executed; her own seat's view), with a stand-in socket that
records the frames the page sends and the page's clock stepped (no sleeps):

- a dead character's leave dialog says leaving changes nothing in the game (not "eliminated at
  once … ends now"), in ko, ru and en;
- "Leave the game" tapped after a redraw of the game under the open dialog sends the frame;
- no answer: the frame goes again, then the player is told it did not reach the server, and
  stays in the game (before: home after 4 s with the seat still playing);
- a refusal stays on screen and the frame is not sent again; a tap while the socket is down
  is sent once it is back; the server's "left" takes the player home."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .display_story import stories
from .scripted import page_in, show

T = """([key, params]) => __import('./js/i18n.js').then((m) => m.t(key, params || {}))"""
# a stand-in socket: records each frame's action; `down` refuses to send (a socket reconnecting)
STUB = """async () => {
  const {state} = await __import('./js/store.js');
  window.__sent = [];
  window.__down = false;
  let n = 0;  // every frame gets an id; only the leaves are counted (the page's own automatic frames, such as asking for voice's ICE servers, are not what this test is about)
  state.conn = { send(action) { if (window.__down) return null; n += 1; if (action === 'leave') window.__sent.push(action); return action === 'leave' ? 'x' + window.__sent.length : 'a' + n; }, close() {} };
}"""
ANSWER = """async ([n, code]) => {
  const {ctx} = await __import('./js/room.js');
  const {onErrorFrame} = await __import('./js/frames.js');
  onErrorFrame({type: 'error', id: 'x' + n, code, message: code}, ctx);
}"""
SESSION = "async () => Boolean((await __import('./js/store.js')).state.session)"


def t(page, key: str) -> str:
    return page.evaluate(T, [key, {}])


def open_leave(page) -> None:
    if page.locator("#seat-tools[open]").count() == 0:
        page.click("#seat-tools summary")
    page.click("#leave-game-btn")
    expect(page.locator("#leave-dialog")).to_be_visible()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_a_dead_players_leave_dialog_says_it_changes_nothing_and_a_leave_is_taken_or_says_why(
    browser, stack, console_errors, lang
):
    view = stories(lang, viewer="p1")["classic"]["night"]  # Ann, executed
    assert view["you"]["alive"] is False
    # the night's deadline past the ~40 s this test steps (and the real seconds a loaded machine
    # adds: Playwright's installed clock still flows): a passed deadline makes the page nudge
    # the server, a frame this test does not count
    view["phase"]["endsAt"] = view["serverNow"] + 3600
    pl = page_in(browser, stack, lang, console_errors)
    page = pl.page
    assert show(page, view) == "game"
    page.evaluate(STUB)
    page.clock.install()

    open_leave(page)
    expect(page.locator("#leave-what")).to_have_text(t(page, "leave.dead"))
    assert t(page, "leave.what.classic") != t(page, "leave.dead")
    show(page, view, fresh=False)  # the game redraws under the open dialog
    page.click("#leave-confirm")
    assert page.evaluate("window.__sent") == ["leave"]

    # no answer: sent again after 4 s, then the player is told, and stays in the game
    page.clock.run_for(4000)
    assert page.evaluate("window.__sent") == ["leave", "leave"]
    page.clock.run_for(4000)
    expect(page.locator("#toast")).to_have_text(t(page, "leave.noAnswer"))
    assert page.evaluate(SESSION)
    expect(page.locator("body")).to_have_attribute("data-screen", "game")
    page.clock.run_for(20000)
    assert page.evaluate("window.__sent") == ["leave", "leave"]  # nothing more, nothing silent

    # refused: the error stays, the frame is not sent again
    open_leave(page)
    page.click("#leave-confirm")
    assert page.evaluate("window.__sent") == ["leave"] * 3
    page.evaluate(ANSWER, [3, "rate_limited"])
    page.clock.run_for(9000)
    assert page.evaluate("window.__sent") == ["leave"] * 3
    assert page.evaluate(SESSION)

    # tapped while the socket is down: sent once it is back; the server's "left" goes home
    page.evaluate("window.__down = true")
    open_leave(page)
    page.click("#leave-confirm")
    page.clock.run_for(2000)
    assert page.evaluate("window.__sent") == ["leave"] * 3
    page.evaluate("window.__down = false")
    page.clock.run_for(1000)
    assert page.evaluate("window.__sent") == ["leave"] * 4
    page.evaluate(ANSWER, [4, "left"])
    expect(page.locator("body")).to_have_attribute("data-screen", "home")
    pl.close()
