"""Connection handling: a dropped socket shows the banner, the client reconnects by itself and
resyncs; a spectator watches without a seat; kicking sends the player home."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from service.room.connections import CONNECT_GRACE_SECONDS

from .ui import Player, has_class, open_fold


def vanish(stack_url: str, room: str, token: str) -> None:
    """The offline stack's test hook: drop the socket without a close frame."""
    req = urllib.request.Request(f"{stack_url}_local/vanish?room={room}&token={token}", method="POST")
    with urllib.request.urlopen(req, timeout=10) as res:
        assert json.load(res)["vanished"], "no socket matched"


def test_lost_connection_shows_banner_reconnects_and_resyncs(browser, stack, console_errors):
    host = Player(browser, stack.url, "Ann", errors=console_errors)
    code = host.create()
    guest = Player(browser, stack.url, "Bob", errors=console_errors)
    guest.join(host.page.locator("#share-link").input_value())
    session = guest.page.evaluate(f"() => JSON.parse(localStorage.getItem('mafia.seat.{code}'))")
    assert session["room"] == code and session["token"]

    guest.context.set_offline(True)
    vanish(stack.url, code, session["token"])
    banner = guest.page.locator("#conn-banner")
    expect(banner).to_be_visible()
    # The browser knows the network is gone: the banner says that, not just "reconnecting".
    expect(banner).to_have_text(
        "No network connection. The game goes on where it was as soon as the network is back."
    )

    # Meanwhile the room changes: a third player arrives.
    late = Player(browser, stack.url, "Cat", errors=console_errors)
    late.join(host.page.locator("#share-link").input_value())

    guest.context.set_offline(False)
    expect(banner).to_be_hidden(timeout=15_000)
    expect(guest.page.locator(".lobby-player")).to_have_count(3)
    guest.ready()
    expect(host.page.locator(".lobby-player.is-ready")).to_have_count(1)
    for pl in (host, guest, late):
        pl.close()


def test_spectator_watches_and_kicked_player_goes_home(browser, stack, console_errors):
    host = Player(browser, stack.url, "Ann", errors=console_errors)
    code = host.create()
    guest = Player(browser, stack.url, "Bob", errors=console_errors)
    guest.join(host.page.locator("#share-link").input_value())

    watcher = Player(browser, stack.url, "", errors=console_errors)
    watcher.open()
    watcher.watch(code)
    expect(watcher.page.locator(".lobby-player")).to_have_count(2)
    expect(watcher.page.get_by_text("You are watching this room.")).to_be_visible()
    expect(watcher.page.locator("#ready-btn")).to_have_count(0)

    host.page.get_by_role("button", name="Remove Bob").click()
    expect(guest.page.locator("#create-btn")).to_be_visible()
    expect(guest.page.get_by_text("The host removed you from the room.")).to_be_visible()
    expect(host.page.locator(".lobby-player")).to_have_count(1)
    expect(watcher.page.locator(".lobby-player")).to_have_count(1)
    for pl in (host, guest, watcher):
        pl.close()


def test_host_removes_a_player_mid_game_with_two_taps(browser, stack, console_errors):
    """docs/rules.md "remove": the host's two taps in the host tools remove Bob from the running
    game; Bob's client goes home with a note; the table sees "removed by the host"."""
    host = Player(browser, stack.url, "Ann", errors=console_errors)
    host.create()
    guest = Player(browser, stack.url, "Bob", errors=console_errors)
    guest.join(host.page.locator("#share-link").input_value())
    for n in range(5):  # seven seats: two mafia, so removing one seat cannot end the game
        host.page.click("#add-bot-btn")
        expect(host.page.locator(".lobby-player")).to_have_count(n + 3)
    guest.ready()
    host.click("#start-btn")
    for pl in (host, guest):
        expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    bob = guest.my_pid()

    host.dismiss_cards()
    open_fold(host.page, "#host-tools", f'#host-remove button[data-pid="{bob}"]')
    remove = host.page.locator(f'#host-remove button[data-pid="{bob}"]')
    expect(remove).to_have_text("Remove Bob")
    remove.click()  # the first tap only arms it
    expect(remove).to_have_text("Tap again to remove Bob")
    expect(guest.page.locator("#phase-banner")).to_be_visible()
    remove.click()
    expect(guest.page.locator("#create-btn")).to_be_visible()
    expect(guest.page.get_by_text("The host removed you from the room.")).to_be_visible()
    expect(host.page.locator(f'.tile[data-pid="{bob}"]')).to_have_class(has_class("dead"))
    expect(host.page.get_by_text("Bob was removed by the host.").first).to_be_visible()  # the event card
    expect(host.page.locator(f'#host-remove button[data-pid="{bob}"]')).to_have_count(0)
    for pl in (host, guest):
        pl.close()


def test_views_arrive_as_patches_and_the_screen_follows_them(browser, stack, console_errors):
    """The web client connects with `patches=1` (docs/protocol.md, "Patches"): after the full
    view, the lobby's changes arrive as `patch` frames, and the screen shows what they say."""
    host = Player(browser, stack.url, "Ann", errors=console_errors)
    urls: list[str] = []
    frames: list[dict] = []

    def on_socket(ws) -> None:
        urls.append(ws.url)
        ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    host.page.on("websocket", on_socket)
    host.create()
    # a socket gets patches once it was there, past the connect grace (game time:
    # service/room/connections.py CONNECT_GRACE_SECONDS), when its previous view went out
    stack.step(advance=CONNECT_GRACE_SECONDS + 0.5)
    guest = Player(browser, stack.url, "Bob", errors=console_errors)
    guest.join(host.page.locator("#share-link").input_value())
    guest.ready()
    expect(host.page.locator(".lobby-player")).to_have_count(2)
    expect(host.page.locator(".lobby-player.is-ready")).to_have_count(1)
    assert urls and all("patches=1" in u for u in urls)
    kinds = [f["type"] for f in frames if f["type"] in ("view", "patch")]
    assert kinds[0] == "view" and "patch" in kinds, kinds
    versions = [f["version"] for f in frames if f["type"] == "patch"]
    assert versions == sorted(versions)
    for pl in (host, guest):
        pl.close()
