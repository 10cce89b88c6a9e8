"""The end screen's "Whole chat": once the game is over, older lines than the view carries
(archived on the server) load page by page with `chatLog` until the first line is in."""

from __future__ import annotations

import asyncio
import threading

import aiohttp
from playwright.sync_api import expect

from local.client import Api, fill_room, start_game

from .ui import Player

LINES = 90  # more than the engine's day window (60) and the view's 40: most are archived


def long_day_then_end(stack) -> str:
    """Four players over the REST and WebSocket APIs (as the stack's own client does): the
    card read, LINES day lines in turn, then the host ends the game. Returns the room code.
    Game time is stepped (a manual clock): to each phase end until the day, then 0.2 s a line,
    so each player speaks every 0.8 s, past the chat's 0.7 s limit."""

    async def body() -> str:
        async with aiohttp.ClientSession() as http:
            seats = await fill_room(Api(http, stack.url), 4, options={"discussionMin": 180})
            players = await start_game(http, seats)
            for p in players:
                await p.send("seenRole")
            # the room's own phase (its summary), not a view raced against a short wait: under
            # load a view came after 1 s, the test stepped on, and the discussion was skipped.
            # "next" is the shard's stack's next delivery, any room's (earlier tests' bot rooms
            # still wake): up to 400 of them, as many as this room needs
            api = Api(http, stack.url)
            for _ in range(400):
                if (await api.summary(players[0].room))["phase"] == "discussion":
                    break
                await asyncio.to_thread(stack.step, None, "next")
            await players[0].wait_view(lambda v: v["phase"]["kind"] == "discussion")
            for i in range(LINES):
                await asyncio.to_thread(stack.step, 0.2)
                # answered before the next step: the line's time is the one it was sent at
                reply = await players[i % 4].request("chat", channel="day", text=f"line {i}")
                assert reply.get("type") != "error", reply
            await players[0].wait_view(lambda v: any(m["text"] == f"line {LINES - 1}" for m in v["chat"]))
            reply = await players[0].request("endGame")
            assert reply.get("type") != "error", reply
            await players[0].wait_view(lambda v: v["phase"]["kind"] == "ended")
            assert not [e for p in players for e in p.errors], [p.errors for p in players]
            for p in players:
                await p.close()
            return players[0].room

    out: list[str] = []
    # the Playwright sync API owns this thread's event loop: the players run in their own
    worker = threading.Thread(target=lambda: out.append(asyncio.run(body())))
    worker.start()
    worker.join(300)  # a wedge guard: 90 lines, each a step and a request, on a loaded machine
    assert out, "the scripted game did not finish"
    return out[0]


def test_end_screen_loads_the_whole_chat_page_by_page(browser, stack, console_errors):
    code = long_day_then_end(stack)
    watcher = Player(browser, stack.url, "", errors=console_errors)
    watcher.open()
    watcher.watch(code)
    log = watcher.page.locator("#review-log")
    expect(log).to_be_visible(timeout=15_000)
    log.locator("summary").click()
    lines = watcher.page.locator("#review-log-lines li")
    expect(lines.last).to_contain_text(f"line {LINES - 1}")
    assert lines.count() < LINES  # only what the view carried so far
    for _ in range(10):
        if watcher.page.locator("#review-log-all").count():
            break
        before = lines.count()
        # one chatLog page per CHAT_LOG_INTERVAL of game time per connection: let it pass
        stack.step(advance=1)
        watcher.page.click("#review-log-more")
        expect(watcher.page.locator("#review-log-all").or_(lines.nth(before)).first).to_be_visible()
    expect(watcher.page.locator("#review-log-all")).to_be_visible()
    expect(watcher.page.locator("#review-log-more")).to_have_count(0)
    expect(lines).to_have_count(LINES)
    texts = [t.split(": ", 1)[1] for t in lines.all_inner_texts()]
    assert texts == [f"line {i}" for i in range(LINES)]
    watcher.close()
