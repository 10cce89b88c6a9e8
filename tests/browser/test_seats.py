"""Players' seats and safety (docs/rules.md, "Seats, leaving, reports and mute"), as a player hits
them: the seat survives a closed page and follows a private link to another device, the home page
lists the running game, a non-host leaves mid-game, mute hides a player's lines, and a reported chat
line reaches the operators' command and is gone after its 7-day TTL.

`SEAT_SCREENSHOTS=docs/screenshots` also saves the screenshots of docs/screenshots/
(home with "your games", the another-device sheet, the report dialog).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .live import bots, live_room, open_seat
from .stack import REPO, Stack, stack_store
from .ui import FAST_OPTIONS, Player

SHOTS = os.environ.get("SEAT_SCREENSHOTS")


def shot(pl: Player, name: str) -> None:
    if SHOTS:
        out = Path(SHOTS)
        out.mkdir(parents=True, exist_ok=True)
        pl.page.wait_for_timeout(200)
        pl.page.screenshot(path=str(out / f"{name}-mobile.png"))


def ops(url: str, *args: str) -> str:
    """The operators' command against this stack, as docs/operations.md shows it."""
    out = subprocess.run(
        [sys.executable, "-m", "ops.reports", "--local", url, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAFIA_"))},
    )
    assert out.returncode in (0, 1), out.stderr
    return out.stdout


def open_seat_tools(pl: Player) -> None:
    pl.dismiss_cards()
    tools = pl.page.locator("#seat-tools")
    if tools.get_attribute("open") is None:
        pl.page.locator("#seat-tools summary").click()
    expect(pl.page.locator("#another-device-btn")).to_be_visible()


def test_seat_follows_the_player_home_tabs_and_devices_and_a_guest_leaves(browser, stack, console_errors):
    # a live room at day 2 (POST /_local/rooms): Ann hosts, Bob plays, three bots; the
    # night spared everyone (classic: the mafia may kill nobody)
    options = {k: int(v) if v.isdigit() else v for k, v in FAST_OPTIONS.items()}
    room = live_room(
        stack,
        options={**options, "discussionMin": 300, "discussionMax": 300},
        seats=[{"name": "Ann"}, {"name": "Bob"}, *bots(3, first=3)],
        until={"phase": "discussion", "day": 2},
    )
    code = room["roomCode"]
    ann = open_seat(browser, stack, room, "Ann", errors=console_errors)
    bob = open_seat(browser, stack, room, "Bob", errors=console_errors)
    for pl in (ann, bob):
        pl.wait_phase("discussion")

    # one of the two talks (whoever the night spared), the other mutes and reports the line
    bob_alive = not bob.page.locator(".tile.me.dead").count()
    speaker, reporter = (bob, ann) if bob_alive else (ann, bob)
    text = f"hello from {speaker.name}"
    speaker.say("day", text)
    reporter.page.click("#chat-tab-day")
    line = reporter.page.locator(f'#chat-log [data-report-from="{speaker.pid}"]').first
    expect(line).to_be_visible(timeout=15_000)
    line_id = line.get_attribute("data-report-line")
    open_seat_tools(reporter)
    reporter.page.click(f'[data-mute="{speaker.pid}"]')
    expect(reporter.page.locator("#chat-log")).not_to_contain_text(text)  # hidden here...
    expect(speaker.page.locator("#chat-log")).to_contain_text(text)  # ...and nowhere else
    reporter.page.click(f'[data-mute="{speaker.pid}"]')  # unmute
    expect(reporter.page.locator("#chat-log")).to_contain_text(text)
    speaker_frames: list[str] = []
    speaker.page.on("websocket", lambda ws: ws.on("framereceived", lambda f: speaker_frames.append(str(f))))
    reporter.page.locator(f'#chat-log [data-report-line="{line_id}"]').click()
    expect(reporter.page.locator("#report-dialog")).to_be_visible()
    expect(reporter.page.locator("#report-line")).to_contain_text(text)
    reporter.page.click("#report-send")
    expect(reporter.page.locator("#report-error")).not_to_be_empty()  # a reason first
    reporter.page.check("#report-reason-abuse")
    shot(reporter, "report-dialog")
    reporter.page.click("#report-send")
    expect(reporter.page.locator("#toast")).to_contain_text("Report sent")
    listed = ops(stack.url, "list")
    pair = f"{reporter.name} ({reporter.pid}) -> {speaker.name} ({speaker.pid})"
    assert code in listed and pair in listed, listed
    report_id = next(ln.split()[0] for ln in listed.splitlines() if code in ln and pair in ln)
    shown = ops(stack.url, "show", report_id)
    assert f"> #{line_id} [day] {speaker.name}: {text}" in shown, shown
    # once per seat and game
    open_seat_tools(reporter)
    reporter.page.click(f'[data-report="{speaker.pid}"]')
    reporter.page.check("#report-reason-spam")
    reporter.page.click("#report-send")
    expect(reporter.page.locator("#toast")).to_contain_text("already reported")
    assert not [f for f in speaker_frames if "report" in f]  # nobody else hears of it

    # close the page; the room link in a new page of the same browser continues the game
    bob.page.close()
    bob.page = bob.context.new_page()
    bob.page.on("pageerror", lambda e: console_errors.append(f"Bob: {e}"))
    bob.page.goto(f"{stack.url}?room={code}")
    expect(bob.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    expect(bob.page.locator("#join-name")).to_have_count(0)
    assert bob.page.locator(".tile.me").get_attribute("data-pid") == bob.pid
    assert bob.phase() == ann.phase()

    # the home page lists the running game and returns to it
    bob.page.goto(stack.url)
    row = bob.page.locator(f'#my-games [data-room="{code}"]')
    expect(row).to_contain_text("Bob", timeout=10_000)
    expect(row).to_contain_text("Classic")
    shot(bob, "home-your-games")
    row.locator("[data-return]").click()
    expect(bob.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    assert bob.page.locator(".tile.me").get_attribute("data-pid") == bob.pid

    # continue on another device: a private link (seat in the fragment) + its QR code
    open_seat_tools(bob)
    bob.page.click("#another-device-btn")
    expect(bob.page.locator("#handoff-warning")).to_be_visible()
    expect(bob.page.locator("#handoff-link")).to_have_count(0)  # behind a tap
    bob.page.click("#handoff-show")
    expect(bob.page.locator("#handoff-qr")).to_be_visible()
    private = bob.page.locator("#handoff-link").input_value()
    shot(bob, "another-device")
    assert "#seat=" in private
    token = bob.page.evaluate(f"() => JSON.parse(localStorage.getItem('mafia.seat.{code}')).token")
    assert token in private.split("#", 1)[1] and token not in private.split("#", 1)[0]
    bob.page.click("#handoff-close")

    phone = Player(browser, stack.url, "Bob's phone", errors=console_errors)
    requests: list[str] = []
    phone.page.on("request", lambda r: requests.append(r.url))
    phone.page.goto(private)
    expect(phone.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    expect(phone.page.locator("#join-name")).to_have_count(0)
    assert phone.page.locator(".tile.me").get_attribute("data-pid") == bob.pid
    assert "#" not in phone.page.url  # the fragment is gone from the address bar
    # the token went out only as the WebSocket's `token`, never in an HTTP request
    assert not [u for u in requests if token in u and not u.startswith("ws")]

    # Bob (not the host) leaves mid-game: a confirmation says what it means here
    open_seat_tools(bob)
    bob.page.click("#leave-game-btn")
    expect(bob.page.locator("#leave-what")).to_contain_text("eliminated")
    bob.page.click("#leave-confirm")
    expect(bob.page.locator("#create-btn")).to_be_visible(timeout=10_000)
    expect(phone.page.locator("#create-btn")).to_be_visible(timeout=10_000)  # the other device too
    expect(bob.page.locator(f'#my-games [data-room="{code}"]')).to_have_count(0)
    # the character is out: Ann sees Bob's tile dead, or the end screen if that decided the game
    expect(ann.page.locator(f'.tile.dead[data-pid="{bob.pid}"], #end-title')).to_have_count(1, timeout=10_000)
    for pl in (ann, bob, phone):
        assert pl.missing_keys() == [], pl.missing_keys()
        pl.close()


# The 7 days are stepped on a manual clock (local/scheduler.py `advance`): an untimed city
# game waits for the person, so nothing but the TTL depends on game time. One handler
# container: two pages and the operators' command need no second (four boot in twice the CPU).
@pytest.fixture(scope="module")
def ttl_stack():
    s = Stack(manual_clock=True, seed=22, extra=("--containers", "1"))
    yield s
    s.stop()


def test_a_reported_line_reaches_the_ops_command_and_is_gone_after_seven_days(
    browser, ttl_stack, console_errors
):
    """docs/rulebooks/000-classic.txt §9: 「채팅 로그 보관: 신고 처리용으로 짧게(예: 7일) 보관하고 이후 삭제」."""
    # a live untimed city room at its first day (POST /_local/rooms): Ann hosts, Bob plays,
    # three bots; the night took the police's life, not theirs
    room = live_room(
        ttl_stack,
        preset="city",
        options={"untimed": True},
        seats=[
            {"name": "Ann", "role": "citizen"},
            {"name": "Bob", "role": "citizen"},
            {"name": "Cat", "bot": True, "role": "mafia"},
            {"name": "Dan", "bot": True, "role": "police"},
            {"name": "Eve", "bot": True, "role": "doctor"},
        ],
        steps=[
            *({"type": "seenRole", "player": n} for n in ("Ann", "Bob", "Cat", "Dan", "Eve")),
            {"type": "mafiaTarget", "player": "Cat", "target": "Dan"},
            {"type": "investigate", "player": "Dan", "target": "Cat"},
            {"type": "heal", "player": "Eve", "target": "Eve"},
            {"type": "sleep", "player": "Ann"},
            {"type": "sleep", "player": "Bob"},
        ],
        until={"phase": "discussion"},
    )
    code = room["roomCode"]
    ann = open_seat(browser, ttl_stack, room, "Ann", errors=console_errors)
    bob = open_seat(browser, ttl_stack, room, "Bob", errors=console_errors)
    page = ann.page
    for pl in (ann, bob):
        pl.wait_phase("discussion")
    # Bob speaks by day, Ann reports the line.
    speaker, reporter = bob, ann
    for pl in (bob, ann):
        pl.page.click("#chat-tab-day")
    speaker.page.fill("#chat-input", "I am just a citizen")
    speaker.page.press("#chat-input", "Enter")
    rpage = reporter.page
    line = rpage.locator("#chat-log [data-report-line]").first
    expect(line).to_be_visible(timeout=15_000)
    line_id = line.get_attribute("data-report-line")
    line.click()
    rpage.check("#report-reason-spam")
    rpage.click("#report-send")
    expect(rpage.locator("#toast")).to_contain_text("Report sent")
    listed = ops(ttl_stack.url, "--json", "list")
    found = [r for r in json.loads(listed) if r["reporterName"] == reporter.name]
    assert len(found) == 1, listed
    report_id = found[0]["id"]
    assert f"> #{line_id} " in ops(ttl_stack.url, "show", report_id)

    # A second short of 7 game days the report is still there ...
    ttl_stack.step(advance=7 * 24 * 3600 - 60)
    assert "expired" not in ops(ttl_stack.url, "show", report_id)
    assert raw_count(ttl_stack.url, report_id)
    # ... 7 days later (+ the sweeper's lag): the read filter and the TTL sweeper both drop it
    swept = ttl_stack.step(advance=60 + 300 + 60)  # the week, the sweeper's 300 s lag, a minute
    assert swept["ttlDeleted"] >= 1
    assert "expired" in ops(ttl_stack.url, "show", report_id)
    assert json.loads(ops(ttl_stack.url, "--json", "list")) == []
    assert raw_count(ttl_stack.url, report_id) == 0, "the TTL sweeper never deleted the report item"
    # the room itself (24 h) is long gone: home drops it from "your games" with a note
    page.goto(ttl_stack.url)
    expect(page.locator(f'[data-gone="{code}"]')).to_be_visible(timeout=10_000)
    expect(page.locator(f'#my-games [data-room="{code}"]')).to_have_count(0)
    # that 404 is the answer the page asked for (GET /rooms/CODE of a gone room); Chromium
    # logs every 4xx fetch as a console error
    gone_404 = "Ann: Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert console_errors.count(gone_404) == 1, console_errors
    console_errors.remove(gone_404)
    ann.close()
    bob.close()


def raw_count(url: str, report_id: str) -> int:
    """Whether the report item is still stored at all (no expiry filter): the sweeper's work,
    read in this process through the stack's own table (`stack_store`)."""
    store = stack_store(url)
    day = f"{report_id[:4]}-{report_id[4:6]}-{report_id[6:8]}"
    key = {"pk": {"S": "REPORTS#" + day}, "sk": {"S": "REPORT#" + report_id}}
    return 1 if store.client.get_item(TableName=store.table, Key=key).get("Item") else 0
