"""Voice with real WebRTC (docs/rules.md, "Voice"): four pages in Chromium with a fake
microphone (`--use-fake-device-for-media-stream --use-fake-ui-for-media-stream`, on this
test's own browser only) join voice on the offline stack; each page's `getStats()` shows, by
bytes received, that audio follows the policy: in the day every page hears every other, at
night a page receives nothing from a seat whose voice does not reach it (a citizen from the
mafia, as from anyone)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from .stack import CHROMIUM_ARGS
from .ui import end_phase, seat_everyone

FAKE_MEDIA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
OPTIONS = {"firstPhase": "day", "discussionMin": "150", "nightSeconds": "45"}

# In the page: bytes received per peer seat, from each peer connection's inbound audio (the
# voice module is the page's own: importing its URL again gives the same instance).
STATS = """async () => {
  const base = document.querySelector('script[type=module]').src.replace(/app\\.js.*$/, '');
  const { mesh } = await import(base + 'voice/index.js');
  const out = {};
  for (const [pid, peer] of mesh.peers) {
    let bytes = 0;
    (await peer.pc.getStats()).forEach((r) => {
      if (r.type === 'inbound-rtp' && r.kind === 'audio') bytes += r.bytesReceived || 0;
    });
    out[pid] = bytes;
  }
  return out;
}"""


@pytest.fixture
def media_browser(browser, chromium_path):
    b = browser.browser_type.launch(executable_path=chromium_path, args=[*CHROMIUM_ARGS, *FAKE_MEDIA])
    yield b
    b.close()


def inbound(pl) -> dict[str, int]:
    return pl.page.evaluate(STATS)


def voice_of(pl) -> dict:
    return pl.page.evaluate(
        """async () => {
      const base = document.querySelector('script[type=module]').src.replace(/app\\.js.*$/, '');
      const { mesh } = await import(base + 'voice/index.js');
      return { peers: mesh.plan.peers, sendTo: [...mesh.plan.sendTo] };
    }"""
    )


def states(pl) -> dict:
    return pl.page.evaluate(
        """async () => {
      const base = document.querySelector('script[type=module]').src.replace(/app\\.js.*$/, '');
      const { mesh } = await import(base + 'voice/index.js');
      const out = {};
      for (const [pid, p] of mesh.peers) out[pid] = [p.pc.signalingState, p.pc.connectionState, p.pc.iceConnectionState, Boolean(p.sender.track)];
      return out;
    }"""
    )


def wait_growth(pl, senders: list[str], least: int = 2000, seconds: float = 45.0) -> dict[str, int]:
    """Poll until the inbound audio from every seat in `senders` grew by `least` bytes."""
    start = inbound(pl)
    deadline = time.monotonic() + seconds
    while True:
        now = inbound(pl)
        grown = {s: now.get(s, 0) - start.get(s, 0) for s in senders}
        if all(g >= least for g in grown.values()):
            return grown
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{pl.name}: inbound audio did not grow from every seat: {grown} {states(pl)}"
            )
        pl.page.wait_for_timeout(250)


def test_voice_audio_follows_the_policy_by_bytes_received_day_then_night(
    media_browser, stack, console_errors
):
    players = seat_everyone(
        media_browser, stack.url, ["Ann", "Bo", "Cy", "Di"], console_errors, options=OPTIONS
    )
    try:
        players[0].click("#start-btn")
        for pl in players:
            expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
            pl.my_pid()
        for pl in players:
            expect(pl.page.locator("#voice-join")).to_be_visible()
            pl.page.click("#voice-join")
            expect(pl.page.locator("#voice-mute")).to_be_visible()
        end_phase(stack, players[0], "roleReveal")
        for pl in players:
            pl.wait_phase("greeting")
        # the day: every page hears every other seat (all alive)
        figures = {}
        for pl in players:
            others = [q.pid for q in players if q is not pl]
            assert sorted(voice_of(pl)["sendTo"]) == sorted(others)
            figures[pl.pid] = wait_growth(pl, others)
        print("day bytes received per pair", figures)
        end_phase(stack, players[0], "greeting")
        for pl in players:
            pl.wait_phase("night")
        # the night: a page gets audio only from a seat whose voice reaches it (the mafia's
        # mates); from every other seat nothing at all, the mafia's as a citizen's
        night = {}
        first = {pl.pid: inbound(pl) for pl in players}
        players[0].page.wait_for_timeout(2000)  # real audio time: would carry ~8 KB per pair
        for pl in players:
            plan = voice_of(pl)
            hear = [q.pid for q in players if q is not pl and pl.pid in voice_of(q)["sendTo"]]
            now = inbound(pl)
            night[pl.pid] = {s: now.get(s, 0) - first[pl.pid].get(s, 0) for s in now}
            silent = [q.pid for q in players if q is not pl and q.pid not in hear]
            assert all(night[pl.pid].get(s, 0) == 0 for s in silent), (pl.pid, night[pl.pid], plan)
        print("night bytes received per pair", night)
    finally:
        for pl in players:
            pl.close()
