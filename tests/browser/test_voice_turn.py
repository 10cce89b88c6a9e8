"""Relayed voice for strangers (functions/service/features/turn.py; docs/operations.md, "Voice
(TURN)"): in a public room every page's peer connections go through the offline stack's own
TURN server (coturn on loopback, local/turn.py), with a credential the server minted for that
connection, and no page learns another's address.

Two people in a public room's day, in Chromium with a fake microphone. One page is honest; the
other is modified to gather every kind of candidate (its RTCPeerConnection forced to
`iceTransportPolicy: "all"`), so it offers host candidates the relay must not pass on. Proven by
what the pages measure: audio flows both ways (bytes received), each page's selected candidate
pair is relay at both ends (getStats), and of every `signal` frame either page received over
its socket, no candidate is a host, server-reflexive or peer-reflexive one (while the modified
page did send such candidates: the relay dropped them)."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from .live import bots, live_room, open_seat
from .stack import CHROMIUM_ARGS

FAKE_MEDIA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
OPTIONS = {"public": True, "firstPhase": "day", "discussionMin": 150}

# A modified page: every RTCPeerConnection gathers all candidates, whatever the page asked.
ALL_CANDIDATES = """(() => {
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = function (config) {
    return new Native({ ...(config || {}), iceTransportPolicy: 'all' });
  };
  window.RTCPeerConnection.prototype = Native.prototype;
})();"""

# In a page: per peer, the inbound audio bytes, the selected pair's two candidate types and the
# connection's configured transport policy.
PAIRS = """async () => {
  const { mesh } = await __import('./js/voice/index.js');
  const out = {};
  for (const [pid, peer] of mesh.peers) {
    const stats = await peer.pc.getStats();
    let bytes = 0, pairId = null, wire = 0, at = 0;
    stats.forEach((r) => {
      if (r.type === 'inbound-rtp' && r.kind === 'audio') bytes += r.bytesReceived || 0;
      if (r.type === 'transport') {
        if (r.selectedCandidatePairId) pairId = r.selectedCandidatePairId;
        wire += r.bytesReceived || 0; // SRTP, RTCP and ICE checks: what the relay carries, less its headers
        at = r.timestamp;
      }
    });
    const pair = pairId ? stats.get(pairId) : null;
    const local = pair ? stats.get(pair.localCandidateId) : null;
    const remote = pair ? stats.get(pair.remoteCandidateId) : null;
    out[pid] = { bytes, wire, at, local: local ? local.candidateType : null, remote: remote ? remote.candidateType : null,
                 policy: peer.pc.getConfiguration().iceTransportPolicy };
  }
  return out;
}"""

CANDIDATE_TYPE = re.compile(r"typ ([a-z]+)")


@pytest.fixture
def media_browser(browser, media_chromium_path):
    b = browser.browser_type.launch(executable_path=media_chromium_path, args=[*CHROMIUM_ARGS, *FAKE_MEDIA])
    yield b
    b.close()


def frames_of(pl) -> tuple[list[dict], list[dict]]:
    """Every frame `pl`'s page receives and sends on its sockets from now on (received, sent)."""
    got: list[dict] = []
    sent: list[dict] = []

    def keep(into):
        def take(payload):
            try:
                into.append(json.loads(payload))
            except (TypeError, ValueError):
                pass

        return take

    def on_socket(ws):
        ws.on("framereceived", keep(got))
        ws.on("framesent", keep(sent))

    pl.page.on("websocket", on_socket)
    return got, sent


def candidate_types(frames: list[dict], kind: str) -> list[str]:
    """The candidate types in `frames` of `kind` (a received `signal`, a sent `signal`): in
    `ice` frames and in offers' and answers' `a=candidate` lines."""
    out = []
    for f in frames:
        if f.get("type" if kind == "received" else "action") != "signal":
            continue
        text = (f.get("sdp") or "") + "\n" + ((f.get("candidate") or {}).get("candidate") or "")
        out += CANDIDATE_TYPE.findall(text)
    return out


def wait_relayed(players, least: int = 8000, seconds: float = 90.0) -> tuple[dict, dict]:
    """Poll until every page received `least` audio bytes from the other over a connected
    pair: the pages' pairs then, and each pair's first sample with audio (for the figures)."""
    deadline = time.monotonic() + seconds
    first: dict[str, dict] = {}
    while True:
        seen = {pl.pid: pl.page.evaluate(PAIRS) for pl in players}
        other = {a.pid: b.pid for a, b in (players, players[::-1])}
        for p in seen:
            if p not in first and seen[p].get(other[p], {}).get("bytes", 0) > 0:
                first[p] = seen[p][other[p]]
        if all(seen[p].get(other[p], {}).get("bytes", 0) >= least for p in seen) and len(first) == len(seen):
            return seen, first
        if time.monotonic() > deadline:
            logs = {pl.pid: pl.page.evaluate("(window.__voiceLog || []).slice(-60)") for pl in players}
            raise AssertionError(f"relayed audio never flowed both ways: {seen}\n{logs}")
        players[0].page.wait_for_timeout(250)


def figures(ann, bob, pairs: dict, first: dict) -> None:
    """Printed, never asserted (pytest -s): per page, how long its relayed connection took
    from being made to connected (its voice trace) and the bytes per second it received."""
    out = {}
    for me, other in ((ann, bob), (bob, ann)):
        log = me.page.evaluate("window.__voiceLog || []")
        opened = next((e[0] for e in log if e[1] == other.pid and e[2] == "open"), None)
        up = next((e[0] for e in log if e[1] == other.pid and e[2] == "connection" and e[3] == "connected"), None)
        now, then = pairs[me.pid][other.pid], first[me.pid]
        span = (now["at"] - then["at"]) / 1000
        out[me.name] = {
            "connectMs": None if opened is None or up is None else up - opened,
            "audioBytesPerS": round((now["bytes"] - then["bytes"]) / span) if span > 0 else None,
            "transportBytesPerS": round((now["wire"] - then["wire"]) / span) if span > 0 else None,
        }
    print("relayed voice:", json.dumps(out))


def test_a_public_rooms_voice_flows_through_the_turn_relay_only_and_no_page_learns_an_address(
    media_browser, stack, console_errors
):
    room = live_room(
        stack,
        preset="classic",
        options=OPTIONS,
        seats=[{"name": "Ann"}, {"name": "Bob"}, *bots(3, first=3)],
        until={"phase": "discussion"},
    )
    ann = open_seat(media_browser, stack, room, "Ann", errors=console_errors)
    bob = open_seat(media_browser, stack, room, "Bob", errors=console_errors)
    bob.context.add_init_script(ALL_CANDIDATES)  # the modified page (from its next load)
    ann_got, _ = frames_of(ann)
    bob_got, bob_sent = frames_of(bob)
    for pl in (ann, bob):  # both sockets recorded from their first frame; Bob's page modified
        pl.page.reload()
        expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=15_000)
    for pl in (ann, bob):
        expect(pl.page.locator("#voice-join")).to_be_visible(timeout=15_000)
        pl.page.click("#voice-join")
        expect(pl.page.locator("#voice-mute")).to_be_visible()

    pairs, first = wait_relayed([ann, bob])
    figures(ann, bob, pairs, first)

    # each connection was made relay only where the page was honest, and its pair is relay at both ends
    assert pairs[ann.pid][bob.pid]["policy"] == "relay", pairs
    assert pairs[bob.pid][ann.pid]["policy"] == "all", pairs  # the modified page
    for me, other in ((ann, bob), (bob, ann)):
        assert (pairs[me.pid][other.pid]["local"], pairs[me.pid][other.pid]["remote"]) == ("relay", "relay"), pairs

    # each page got its own credential from the stack's TURN server, relay only in a public room
    for pl, got in ((ann, ann_got), (bob, bob_got)):
        ice = [f for f in got if f.get("type") == "iceServers"]
        assert ice, f"{pl.name}: no iceServers frame"
        server = ice[-1]["iceServers"][0]
        assert ice[-1]["iceTransportPolicy"] == "relay"
        assert all(u.startswith("turn:127.0.0.1:") for u in server["urls"]), server
        assert re.fullmatch(rf"\d+:{room['roomCode']}\.{pl.pid}", server["username"]), server["username"]

    # no host, srflx or prflx candidate reached either page; relay ones did, without their raddr
    received = candidate_types(ann_got, "received") + candidate_types(bob_got, "received")
    assert "relay" in received and set(received) == {"relay"}, received
    for f in ann_got + bob_got:
        if f.get("type") == "signal":
            text = (f.get("sdp") or "") + ((f.get("candidate") or {}).get("candidate") or "")
            assert re.findall(r"raddr (\S+)", text) in ([], ["0.0.0.0"] * len(re.findall(r"raddr", text))), text
    # while the modified page did offer its own addresses: the relay dropped them
    assert {"host"} & set(candidate_types(bob_sent, "sent")), candidate_types(bob_sent, "sent")
