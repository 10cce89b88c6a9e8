"""Kept panels: the tile grid (web/js/game/tiles.js) and the chat (web/js/game/chat.js) are
drawn again with every view into the nodes they have (web/js/dom.js patchChildren), as the
action panel is, and the rest of the page writes only what differs (the banner, the top bar:
render.js renderChrome, the in-room bar, the voice bar). The view comes through the app
(web/js/frames.js onViewFrame), drawn from a scripted city game at the vote: the same view
again writes nothing into the page, a focused tile or chat input keeps its focus (the same
node), the chat keeps its draft and where the player scrolled to, and a changed view writes
only what changed. The lobby is drawn the same way: an option the host is typing in keeps what
was typed, its focus and caret while a push redraws the players, marks and Start around it; and
a change sent before the last one's view came carries the last one (the values on their way)."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from .scripted import UPDATE, Scripted, draw, lobby_view, page_in, show
from .test_table_round2 import CITY_SIX
from .ui import open_fold

SMALL = {"width": 360, "height": 640}
# What the next view writes into the page, per part (the game screen's panels, the banner's
# words, and the rest of the page: the top bar, the in-room bar, the voice bar), one line a
# record ("childList cell-p3 +1 -0"): where (the nearest data-key or id) and what.
# The countdown is a part of its own: a next view's deadline is a second nearer.
PARTS = {
    "grid": "#player-grid",
    "chat": ".chat-panel",
    "actions": "#actions",
    "clock": "#countdown",
    "banner": ".phase-banner",
}
APPLY = """async ([view, parts]) => {
  const {state} = await __import('./js/store.js');
  const {onViewFrame} = await __import('./js/frames.js');
  const o = new MutationObserver(() => {});
  o.observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  onViewFrame({type: 'view', version: state.version + 1, view});
  const where = (n) => {
    const el = n.nodeType === 1 ? n : n.parentElement;
    const k = el && el.closest('[data-key], [id]');
    return k ? (k.dataset.key || k.id) : (el ? el.tagName.toLowerCase() : '?');
  };
  const out = {page: []};
  for (const part of Object.keys(parts)) out[part] = [];
  for (const r of o.takeRecords()) {
    const part = Object.keys(parts).find((p) => document.querySelector(parts[p]).contains(r.target)) || 'page';
    out[part].push(r.type === 'childList'
      ? `childList ${where(r.target)} +${r.addedNodes.length} -${r.removedNodes.length}`
      : `${r.type} ${where(r.target)} ${r.attributeName || ''}`.trim());
  }
  o.disconnect();
  return out;
}"""
NOTHING = {part: [] for part in [*PARTS, "page"]}


def apply(page, view: dict) -> dict[str, list[str]]:
    """The view as the next server frame (frames.js onViewFrame): what it wrote, per part."""
    return page.evaluate(APPLY, [view, PARTS])


def city_vote(lines: int) -> Scripted:
    """A city game at its first vote, after `lines` lines of day chat."""
    g = Scripted("city", CITY_SIX)
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    for i in range(lines):
        g.act("chat", g.living()[i % 6], channel="day", text=f"line {i}: who is it, then?")
    g.timeout()
    assert g.kind == "vote"
    return g


def test_the_same_view_again_writes_nothing_and_keeps_focus_and_scroll(browser, stack, console_errors):
    g = city_vote(24)
    pl = page_in(browser, stack, "en", console_errors, viewport=SMALL)
    page = pl.page
    # the page's clock stands still: the same view again (the same `serverNow`) is the same
    # countdown, whatever real seconds a loaded machine spends between the frames (else the
    # resync put the countdown back by them: CI saw "childList countdown +1 -1")
    at = int(time.time() * 1000)
    page.clock.install(time=at)
    page.clock.pause_at(at + 1000)
    try:
        same_view_again(page, g)
    finally:
        page.clock.resume()  # the page goes back to the pool flowing
    pl.close()


def same_view_again(page, g) -> None:
    view = g.view("p4")
    assert show(page, view) == "game"
    expect(page.locator(".tile.selectable")).to_have_count(5)
    expect(page.locator(".chat-lines .msg")).to_have_count(24)

    # a focused tile: the same node keeps the focus, and nothing is written
    page.focus('[data-key="tile-p3"]')
    page.evaluate("window.__kept = document.activeElement")
    assert apply(page, view) == NOTHING
    assert page.evaluate("document.activeElement === window.__kept && window.__kept.isConnected")

    # the chat input with a draft, the log scrolled up to its top line: all stay
    page.fill("#chat-input", "it was Bob")
    page.evaluate("document.querySelector('#chat-log').scrollTop = 0; window.__kept = document.activeElement")
    scroll = page.evaluate(
        "(() => { const l = document.querySelector('#chat-log'); return l.scrollHeight - l.clientHeight; })()"
    )
    assert scroll > 100, "the log must be scrollable for this test"
    assert apply(page, view) == NOTHING
    kept = page.evaluate(
        """() => ({same: document.activeElement === window.__kept, id: document.activeElement.id,
                   draft: document.activeElement.value, top: document.querySelector('#chat-log').scrollTop})"""
    )
    assert kept == {"same": True, "id": "chat-input", "draft": "it was Bob", "top": 0}


def test_a_changed_view_writes_only_what_changed(browser, stack, console_errors):
    g = city_vote(24)
    pl = page_in(browser, stack, "en", console_errors, viewport=SMALL)
    page = pl.page
    assert show(page, g.view("p4")) == "game"
    expect(page.locator(".tile-votes")).to_have_count(0)
    page.evaluate("document.querySelector('#chat-log').scrollTop = 0")
    assert (
        page.evaluate("(window.__tiles = [...document.querySelectorAll('#player-grid .tile')]).length") == 6
    )

    # Cat's phone drops off: her tile says so, and no other tile is touched
    view = g.view("p4")
    view["players"][2]["connected"] = False
    writes = apply(page, view)
    assert writes["grid"] and all(w.split()[1] in ("tile-p3", "cell-p3") for w in writes["grid"]), writes
    assert writes["chat"] == writes["banner"] == writes["page"] == [], writes
    expect(page.locator('[data-key="tile-p3"] .tile-status')).to_have_text("offline")
    assert page.evaluate(
        "[...document.querySelectorAll('#player-grid .tile')].every((t, i) => t === window.__tiles[i])"
    )

    # a new line in the day chat: one item added at the end, the rest kept; the log was
    # scrolled up to read, so it stays there
    g.act("chat", "p2", channel="day", text="Cat, explain yourself")
    view = g.view("p4")
    view["players"][2]["connected"] = False  # still away
    writes = apply(page, view)
    assert writes["chat"] == ["childList chat-log +1 -0"], writes
    assert writes["grid"] == writes["banner"] == writes["page"] == [], writes
    expect(page.locator(".chat-lines .msg").last).to_contain_text("Cat, explain yourself")
    assert page.evaluate("document.querySelector('#chat-log').scrollTop") == 0
    pl.close()


def test_a_push_keeps_the_option_the_host_is_typing_and_redraws_the_lobby_around_it(
    browser, stack, console_errors
):
    """Before, a push that came between the host's typing and the field's change event (someone
    joined, a ready mark) drew the options anew: what was typed and the focus were gone
    (test_public_home typed its autoStart again until the room had it)."""
    pl = page_in(browser, stack, "en", console_errors, viewport=SMALL)
    page = pl.page
    three = lobby_view("classic", ["Ann", "Bob", "Cat"], "p1", options={"public": True})
    three["players"][2]["ready"] = False
    three["room"]["autoStartAt"] = time.time() + 60  # a public lobby counting down
    draw(page, "lobby", three)  # the stand-in ctx records what would be sent (window.__sent)
    expect(page.locator("#start-btn")).to_be_disabled()  # too few
    open_fold(page, "#lobby-options", "#lobby-opt-autoStart")
    field = page.locator("#lobby-opt-autoStart")
    expect(field).to_have_value("4")

    # the host types "1" of "12" ...
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    page.evaluate("window.__kept = document.activeElement")
    # ... when Dan joins and Cat marks herself ready: the players, the marks and Start follow
    four = lobby_view("classic", ["Ann", "Bob", "Cat", "Dan"], "p1", options={"public": True})
    four["room"]["autoStartAt"] = time.time() + 15
    page.evaluate(UPDATE, four)
    expect(page.locator(".lobby-player")).to_have_count(4)
    expect(page.locator(".lobby-player").nth(3)).to_contain_text("Dan")
    expect(page.locator(".lobby-player.is-ready")).to_have_count(3)
    expect(page.locator("#start-btn")).to_be_enabled()
    # and the field is the same node, focused, with what was typed, the caret after it
    expect(field).to_have_value("1")
    assert page.evaluate("document.activeElement === window.__kept && window.__kept.isConnected")
    page.keyboard.type("2")
    expect(field).to_have_value("12")
    assert page.evaluate("window.__sent") == []
    page.keyboard.press("Tab")  # leaving the field sends it, with the options of the newest view
    assert page.evaluate("window.__sent") == [
        ["setOptions", {"options": {**sendable(four), "autoStart": 12}}]
    ]

    # a field focused but not typed in: the server's value for it waits until it is left
    night = page.locator("#lobby-opt-nightSeconds")
    night.focus()
    four["options"]["nightSeconds"] = 45
    four["options"]["autoStart"] = 12  # the view answering the change
    page.evaluate(UPDATE, four)
    expect(field).to_have_value("12")  # not focused: the view's value
    expect(night).to_have_value("30")
    # the countdown ticks into the words shown, not into a node the redraw left out
    page.evaluate("document.querySelector('#auto-start').textContent = ''; window.__screen.tick()")
    expect(page.locator("#auto-start")).to_contain_text("Starts by itself in")
    page.keyboard.press("Tab")
    expect(night).to_have_value("45")
    assert len(page.evaluate("window.__sent")) == 1  # nothing typed, nothing sent
    pl.close()


# The room's socket, stood in (the lobby through the app: room.js ctx.send, frames.js): every
# frame gets an id (c1, c2, ...); the setOptions are kept as [id, options].
SOCKET = """async () => {
  const {state} = await __import('./js/store.js');
  window.__sent = [];
  let n = 0;
  state.conn = {ws: {}, close() {}, send(action, payload) {
    n += 1;
    if (action === 'setOptions') window.__sent.push([`c${n}`, payload.options]);
    return `c${n}`;
  }};
}"""
REFUSE = """async (id) => {
  const {ctx} = await __import('./js/room.js');
  const {onErrorFrame} = await __import('./js/frames.js');
  onErrorFrame({type: 'error', id, code: 'bad_options', message: 'refused'}, ctx);
}"""
NEW_SOCKET = "async () => { (await __import('./js/store.js')).state.conn.ws = {}; }"


def test_a_change_sent_before_the_last_one_is_answered_carries_it(browser, stack, console_errors):
    """`setOptions` replaces the whole set (docs/protocol.md), so the lobby sends every option
    with each change. Before, a second change made before the view answering the first came
    (a slow phone) sent the first option's old value from the last view and undid it. The
    values on their way are laid over the view's until a view shows them, their request is
    refused, a view shows another device's value, or their socket is gone."""
    pl = page_in(browser, stack, "en", console_errors, viewport=SMALL)
    page = pl.page
    page.evaluate(SOCKET)

    def view(night: int = 30, vote: int = 20, ready: bool = False) -> dict:
        v = lobby_view("classic", ["Ann", "Bob", "Cat", "Dan"], "p1", options={"nightSeconds": night, "voteSeconds": vote})
        v["players"][3]["ready"] = ready
        return v

    def sent() -> list:
        return page.evaluate("window.__sent")

    def change(field, value: int) -> dict:
        field.fill(str(value))
        field.press("Tab")  # its change event sends it
        return sent()[-1][1]

    assert show(page, view()) == "lobby"
    open_fold(page, "#lobby-options", "#lobby-opt-nightSeconds")
    night, vote = page.locator("#lobby-opt-nightSeconds"), page.locator("#lobby-opt-voteSeconds")
    expect(night).to_have_value("30")

    # A, then B before A's view came: B's request carries A's new value
    assert change(night, 45)["nightSeconds"] == 45
    got = change(vote, 25)
    assert (got["nightSeconds"], got["voteSeconds"]) == (45, 25), got
    # a push that answers neither (Dan marks ready) draws both as sent, not the view's values
    show(page, view(ready=True), fresh=False)
    expect(page.locator(".lobby-player.is-ready")).to_have_count(3)
    expect(night).to_have_value("45")
    expect(vote).to_have_value("25")
    # the view that has both; then the host's other device sets the night back: it is shown
    show(page, view(45, 25, ready=True), fresh=False)
    expect(night).to_have_value("45")
    show(page, view(30, 25, ready=True), fresh=False)
    expect(night).to_have_value("30")

    # refused (an error frame answering its id): the view's value again, and the next change carries it
    change(night, 50)
    page.evaluate(REFUSE, sent()[-1][0])
    expect(night).to_have_value("30")
    got = change(vote, 30)
    assert (got["nightSeconds"], got["voteSeconds"]) == (30, 30), got

    # sent on a socket that dropped: the new socket's full view says what the room has
    show(page, view(30, 30, ready=True), fresh=False)
    change(night, 60)
    page.evaluate(NEW_SOCKET)
    show(page, view(30, 30, ready=True), fresh=False)
    expect(night).to_have_value("30")
    # a view with a value it was not waiting through (another device's): that one
    change(night, 40)
    show(page, view(55, 30, ready=True), fresh=False)
    expect(night).to_have_value("55")
    assert sent()[-1][1] == {**sendable(view(30, 30)), "nightSeconds": 40}
    # there and back before either view came: the view answering the first still shows the
    # second as sent; the view answering the second ends the wait (another device's 35 is shown)
    change(night, 35)
    change(night, 55)
    show(page, view(35, 30, ready=True), fresh=False)
    expect(night).to_have_value("55")
    show(page, view(55, 30, ready=True), fresh=False)
    show(page, view(35, 30, ready=True), fresh=False)
    expect(night).to_have_value("35")
    pl.close()


def sendable(view: dict) -> dict:
    """The options the lobby sends with setOptions (web/js/game/options.js `sendable`)."""
    return {k: v for k, v in view["options"].items() if k not in ("preset", "noVoteDayOne")}
