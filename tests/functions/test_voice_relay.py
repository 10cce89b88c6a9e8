"""The voice relay (functions/service/features/voice.py; docs/rules.md, "Voice"; docs/protocol.md, "Voice
signaling"): an offer reaches the target seat's connections only while the voice policy lets
the two seats exchange audio, an answer or ICE only within a pair one side offered (whatever
the phase since: a pair is kept across phases), nobody else ever gets it, a refusal changes
nothing, and a relay costs one room read and the posts, and a connection's first offer to an
address one write."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import mafia_engine as me
from service.features import voice
from service.infra import storage
from service.protocol import frames

# room rules: the in-memory store (tests/functions/conftest.py); the relay's DynamoDB calls
# are counted on moto (`memstore(False)`)
pytestmark = pytest.mark.memstore

OFFER = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"


def offer(to: str, **extra) -> dict:
    return {"action": "signal", "to": to, "kind": "offer", "sdp": OFFER, **extra}


def advance_to(api, *kinds: str) -> None:
    for _ in range(20):
        if api.state()["phase"]["kind"] in kinds:
            return
        api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t))
        api.send("cp1", {"action": "nudge"})
    raise AssertionError(f"never reached {kinds}")


def start_day(api, n: int) -> list[str]:
    """A started game of `n`, at its first day phase (the greeting or a discussion)."""
    pids = api.start(n)
    advance_to(api, "greeting", "discussion")
    return pids


def dynamodb_calls(api) -> list[str]:
    """Every DynamoDB API call the service's store makes from now on (botocore's own hook)."""
    calls: list[str] = []
    api.svc.store.client.meta.events.register(
        "before-call.dynamodb.*", lambda model, **_: calls.append(model.name)
    )
    return calls


def relay_every_pair(api, pids: list[str]) -> tuple[int, int]:
    """Every ordered pair of seats: relayed exactly when the policy permits, to the target's
    connection only; refused with `voice_not_permitted` and nothing stored otherwise."""
    state = api.state()
    version = api.snapshot().version
    permitted = refused = 0
    for a in pids:
        for b in pids:
            if a == b:
                continue
            api.gw.clear()
            api.send(f"c{a}", offer(b, id=f"{a}>{b}"))
            got = [(c, f) for c, f in api.gw.sent]
            if me.voice_pair(state, a, b):
                assert got == [
                    (f"c{b}", {"type": "signal", "from": a, "kind": "offer", "sdp": OFFER, "candidate": None})
                ], (a, b)
                permitted += 1
            else:
                assert [c for c, _ in got] == [f"c{a}"], (a, b, got)
                assert got[0][1]["code"] == "voice_not_permitted" and got[0][1]["id"] == f"{a}>{b}"
                refused += 1
    assert api.snapshot().version == version  # nothing was written by any of them
    return permitted, refused


def test_voice_relay_refuses_every_pair_the_policy_does_not_permit_and_echoes_to_nobody(api):
    pids = start_day(api, 8)
    day = relay_every_pair(api, pids)
    assert day == (56, 0)  # the day: every living seat speaks to every seat
    advance_to(api, "night")
    night_permitted, night_refused = relay_every_pair(api, pids)
    mafia = [p["id"] for p in api.state()["players"] if p["role"] == "mafia"]
    assert night_permitted == len(mafia) * (len(mafia) - 1) and night_refused == 56 - night_permitted


@pytest.mark.memstore(False)
def test_voice_relay_costs_one_room_read_and_a_tenth_of_a_write_and_a_write_per_pair(api):
    start_day(api, 6)
    calls = dynamodb_calls(api)
    api.gw.clear()
    api.send("cp1", offer("p2"))
    # the room and its connections in one Query; a lease on the sender's and target's budgets;
    # the pair's state (p1's connection offered to p2) on the connection's item
    assert calls == ["Query", "TransactWriteItems", "UpdateItem"]
    assert [c for c, _ in api.gw.sent] == ["cp2"]
    assert api.snapshot().offers == {"cp1": frozenset({"p2"})}
    calls.clear()
    for _ in range(voice.LEASE - 1):  # the rest of the lease, the pair already noted: reads only
        api.send("cp1", offer("p2"))
    assert set(calls) == {"Query"} and len(calls) == voice.LEASE - 1
    calls.clear()
    api.send(
        "cp1", {"action": "signal", "to": "p2", "kind": "ice", "candidate": {"candidate": "", "sdpMid": "0"}}
    )
    assert calls == ["Query", "TransactWriteItems"]  # the leases are spent: one transaction for both
    assert api.gw.to("cp2")[-1] == {
        "type": "signal",
        "from": "p1",
        "kind": "ice",
        "sdp": None,
        "candidate": {"candidate": "", "sdpMid": "0"},
    }
    calls.clear()
    api.send("cp2", {"action": "signal", "to": "p1", "kind": "answer", "sdp": OFFER})
    # an answer: the pair's state came with the room's Query; p2's first lease, no UpdateItem
    assert calls == ["Query", "TransactWriteItems"]
    assert api.gw.to("cp1")[-1]["kind"] == "answer"


def test_voice_relay_reaches_every_connection_of_the_target_seat(api):
    start_day(api, 6)
    assert api.connect("cp2b", "p2") == 200
    api.gw.clear()
    api.send("cp1", offer("p2"))
    assert sorted(c for c, _ in api.gw.sent) == ["cp2", "cp2b"]


@pytest.mark.parametrize(
    ("who", "frame", "code"),
    [
        ("spectator", offer("p2"), "spectator"),
        ("spectator", {"action": "signal", "to": "p2", "kind": "listen", "sdp": OFFER}, "bad_frame"),
        (
            "spectator",
            {"action": "signal", "to": "p2", "kind": "ice", "candidate": {"candidate": 5}},
            "bad_frame",
        ),
        ("spectator", {"action": "signal", "to": "Lxyz", "kind": "answer", "sdp": OFFER}, "bad_frame"),
        (
            "spectator",
            {"action": "signal", "to": "L" + "a" * 22, "kind": "answer", "sdp": OFFER},
            "bad_target",
        ),
        ("spectator", {"action": "signal", "to": "p9", "kind": "listen"}, "bad_target"),
        ("cp1", {"action": "signal", "to": "p2", "kind": "listen"}, "voice_not_permitted"),
        ("cp1", offer("L" + "a" * 22), "bad_target"),
        ("cp1", offer("p9"), "bad_target"),
        ("cp1", offer("p1"), "voice_not_permitted"),
        ("cp1", {"action": "signal", "to": "p2", "kind": "ice", "sdp": OFFER}, "bad_frame"),
        ("cp1", {"action": "signal", "to": "p2", "kind": "offer"}, "bad_frame"),
        ("cp1", {"action": "signal", "to": "p2", "kind": "hello", "sdp": OFFER}, "bad_frame"),
        ("cp1", {"action": "signal", "to": "p2", "kind": "ice", "candidate": {"candidate": 5}}, "bad_frame"),
    ],
)
def test_voice_relay_refuses_with_a_code_and_changes_nothing(api, who, frame, code):
    start_day(api, 6)
    api.connect("spectator")
    item = api.item()
    api.gw.clear()
    api.send(who, frame)
    assert [(c, f["type"], f.get("code")) for c, f in api.gw.sent] == [(who, "error", code)]
    assert api.gw.sent[0][1]["message"]
    assert api.item() == item


def test_voice_is_closed_in_the_lobby(api):
    api.lobby(3)
    api.gw.clear()
    api.send("cp1", offer("p2"))
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp1", "voice_closed")]


def test_voice_signal_frames_and_other_frames_are_capped_at_8_kb(api):
    start_day(api, 6)
    api.gw.clear()
    cand = "a=candidate:1 1 udp 2122194687 192.0.2.2 46884 typ host generation 0\r\n"
    sdp = OFFER + cand * ((frames.MAX_SDP_CHARS - len(OFFER)) // len(cand))
    big = offer("p2", sdp=sdp)
    assert len(sdp) > frames.MAX_SDP_CHARS - len(cand) and len(json.dumps(big)) <= frames.MAX_SIGNAL_BYTES
    api.send("cp1", big)
    assert [c for c, _ in api.gw.sent] == ["cp2"]  # the largest SDP allowed fits
    api.gw.clear()
    api.send("cp1", offer("p2", sdp=sdp + cand))
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp1", "bad_frame")]
    api.gw.clear()
    api.send("cp1", json.dumps(big) + " " * frames.MAX_SIGNAL_BYTES)
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp1", "too_large")]
    api.gw.clear()
    api.send("cp1", json.dumps({"action": "sync"}) + " " * frames.MAX_FRAME_BYTES)
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp1", "too_large")]


SAMPLE = json.loads((Path(__file__).parents[2] / "bench" / "voice_sample.json").read_text())
FIREFOX_OFFER = (
    "v=0\r\no=mozilla...THIS_IS_SDPARTA-99.0 5936171588306473516 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
    "a=fingerprint:sha-256 " + ":".join(["AB"] * 32) + "\r\na=group:BUNDLE 0\r\na=ice-options:trickle\r\n"
    "a=msid-semantic:WMS *\r\nm=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101\r\nc=IN IP4 0.0.0.0\r\n"
    "a=sendrecv\r\na=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r\n"
    "a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level\r\n"
    "a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1\r\na=fmtp:101 0-15\r\n"
    "a=ice-pwd:6b4d4b8bd2c54bb6a5e1b5a0e8f2d3c1\r\na=ice-ufrag:1a2b3c4d\r\na=mid:0\r\n"
    "a=msid:{5f3a6f0e-6a3e-4d55-9f0b-7a3d2b1c0e9f} {0d6c1c5e-2e5b-4f7a-8c9d-1e2f3a4b5c6d}\r\n"
    "a=rtcp-mux\r\na=rtpmap:109 opus/48000/2\r\na=rtpmap:9 G722/8000/1\r\na=rtpmap:101 telephone-event/8000\r\n"
    "a=setup:actpass\r\na=ssrc:1983640163 cname:{7c1b2f3e-4d5a-6b7c-8d9e-0f1a2b3c4d5e}\r\n"
)


def test_voice_signals_relay_real_browser_exchanges_unchanged(api):
    start_day(api, 6)
    for sender, to, kind, sdp in (
        ("p1", "p2", "offer", SAMPLE["offer"]),
        ("p2", "p1", "answer", SAMPLE["answer"]),
        ("p1", "p2", "offer", FIREFOX_OFFER),
    ):
        api.gw.clear()
        api.send(f"c{sender}", {"action": "signal", "to": to, "kind": kind, "sdp": sdp})
        assert [(c, f["sdp"]) for c, f in api.gw.sent] == [(f"c{to}", sdp)]
    for sender, to, cand in (
        *(("p1", "p2", c) for c in SAMPLE["iceOfferer"]),
        *(("p2", "p1", c) for c in SAMPLE["iceAnswerer"]),
        ("p1", "p2", {"candidate": "", "sdpMid": "0"}),
    ):
        api.gw.clear()
        api.send(f"c{sender}", {"action": "signal", "to": to, "kind": "ice", "candidate": cand})
        assert [(c, f["candidate"]) for c, f in api.gw.sent] == [(f"c{to}", cand)]


MESSAGE = "p4 is mafia"
BAD_SDPS = {
    "free text": MESSAGE,
    "text after a line": OFFER.replace("s=-", f"s=- {MESSAGE}"),
    "text as the session name": OFFER.replace("s=-", f"s={MESSAGE}"),
    "an information line": OFFER + f"i={MESSAGE}\r\n",
    "an unknown attribute": OFFER + f"a=note:{MESSAGE}\r\n",
    "text in a known attribute": OFFER + f"a=mid:{MESSAGE}\r\n",
    "text in an ssrc": OFFER + f"a=ssrc:1 cname:{MESSAGE}\r\n",
    "text in an extmap": OFFER + "a=extmap:1 https://example.com/p4-is-mafia\r\n",
    "a candidate with text": OFFER + f"a=candidate:1 1 udp 1 1.2.3.4 9 typ host {MESSAGE}\r\n",
    "video": OFFER + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n",
    "a data channel": OFFER.replace("m=audio 9 UDP/TLS/RTP/SAVPF 111", "m=application 9 UDP/DTLS/SCTP webrtc-datachannel"),
    "two audio sections": OFFER + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n",
    "no audio section": OFFER.replace("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n", ""),
    "no version first": OFFER.removeprefix("v=0\r\n"),
    "bare newlines": OFFER.replace("\r\n", "\n"),
    "a line of no type": OFFER + f"{MESSAGE}\r\n",
    "a flag attribute with a value": OFFER + f"a=rtcp-mux:{MESSAGE}\r\n",
    "too many lines": OFFER + "a=rtcp-mux\r\n" * 200,
}


@pytest.mark.parametrize("what", sorted(BAD_SDPS))
def test_voice_signals_carry_only_audio_session_descriptions(api, what):
    start_day(api, 6)
    item = api.item()
    for kind in ("offer", "answer"):
        api.gw.clear()
        api.send("cp1", {"action": "signal", "to": "p2", "kind": kind, "sdp": BAD_SDPS[what]})
        assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp1", "bad_frame")], what
        assert MESSAGE not in json.dumps(api.gw.sent)
    assert api.item() == item


BAD_CANDIDATES = {
    "free text": {"candidate": MESSAGE},
    "text after a candidate": {"candidate": f"candidate:1 1 udp 1 1.2.3.4 9 typ host {MESSAGE}"},
    "text as the address": {"candidate": "candidate:1 1 udp 1 p4.is.mafia 9 typ host"},
    "an unknown type": {"candidate": "candidate:1 1 udp 1 1.2.3.4 9 typ mafia"},
    "text as the mid": {"candidate": "candidate:1 1 udp 1 1.2.3.4 9 typ host", "sdpMid": MESSAGE},
    "text as the fragment": {"candidate": "candidate:1 1 udp 1 1.2.3.4 9 typ host", "usernameFragment": MESSAGE},
    "a second section": {"candidate": "candidate:1 1 udp 1 1.2.3.4 9 typ host", "sdpMLineIndex": 1},
}


@pytest.mark.parametrize("what", sorted(BAD_CANDIDATES))
def test_voice_signals_carry_only_ice_candidates(api, what):
    start_day(api, 6)
    api.gw.clear()
    api.send("cp1", {"action": "signal", "to": "p2", "kind": "ice", "candidate": BAD_CANDIDATES[what]})
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp1", "bad_frame")], what
    assert MESSAGE not in json.dumps(api.gw.sent)


def test_voice_signals_are_rate_limited_per_connection(api):
    start_day(api, 6)
    ice = {
        "action": "signal",
        "to": "p2",
        "kind": "ice",
        "candidate": {"candidate": "candidate:1 1 udp 1 1.2.3.4 9 typ host"},
    }
    api.gw.clear()
    api.send("cp1", offer("p2"))  # the pair: p1 may send its candidates to p2
    for _ in range(int(voice.BURST) - 1):
        api.send("cp1", ice)
    assert len(api.gw.to("cp2")) == int(voice.BURST) and not api.errors("cp1")
    api.send("cp1", ice)
    assert api.errors("cp1")[-1]["code"] == "voice_rate_limited"
    api.send("cp3", offer("p2"))  # another connection has its own bucket
    assert len(api.gw.to("cp2")) == int(voice.BURST) + 1
    api.clock.advance(1.0)  # game time refills RATE signals a second
    api.send("cp1", ice)
    assert len(api.gw.to("cp2")) == int(voice.BURST) + 2


def new_container(api) -> None:
    """What a second handler container (or a cold start) holds: no buckets, no leases."""
    api.svc._signals = voice.Limiter()
    api.svc._signal_budgets = voice.Budgets()


def test_voice_signal_budgets_hold_across_containers_and_reconnects(api):
    start_day(api, 6)
    ice = offer("p2")  # each new connection's first offer notes the pair too
    api.gw.clear()
    sent = refused = 0
    for n in range(2 * voice.PER_SEAT):
        conn = f"cp1r{n // 50}"  # a reconnect every 50 signals
        if n % 50 == 0:
            assert api.connect(conn, "p1") == 200
        if n % 30 == 0:
            new_container(api)  # and another container every 30
        api.send(conn, ice)
        sent += 1
    relayed = len(api.gw.to("cp2"))
    refused = sum(1 for c, f in api.gw.sent if c.startswith("cp1r") and f.get("code") == "voice_rate_limited")
    assert relayed + refused == sent
    # each container's unspent lease is lost with it: at most LEASE a container short of the budget
    assert voice.PER_SEAT - voice.LEASE * (sent // 30) <= relayed <= voice.PER_SEAT
    api.clock.advance(voice.WINDOW)  # the next window is a new budget
    api.gw.clear()
    api.send(conn, ice)
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp2", None)]


def test_voice_signal_budget_per_target_holds_against_ten_listeners(api):
    pids = start_day(api, 6)
    listeners = [f"spec{i}" for i in range(10)]
    for spec in listeners:
        assert api.connect(spec) == 200
    api.gw.clear()
    for n in range(60):
        for spec in listeners:
            if n % 20 == 0:
                new_container(api)
            api.send(spec, {"action": "signal", "to": pids[1], "kind": "listen"})
    relayed = len(api.gw.to(f"c{pids[1]}"))
    refused = sum(1 for c, f in api.gw.sent if c.startswith("spec") and f.get("code") == "voice_rate_limited")
    assert relayed + refused == 600
    assert relayed <= voice.PER_LISTENERS  # all listeners together, whatever their containers
    api.send("cp1", offer(pids[1]))  # a seat still reaches the target
    assert api.gw.to(f"c{pids[1]}")[-1]["from"] == "p1"


# ---------------------------------------------------------------- listening spectators
LISTEN = {"action": "signal", "kind": "listen"}
ANSWER = {"action": "signal", "kind": "answer", "sdp": OFFER}


def listener_of(api, conn_id: str) -> str:
    return api.snapshot().listeners[conn_id]


def listener_pairs(api, pids: list[str], spectator: str) -> tuple[list[str], list[str]]:
    """Every seat with the listening `spectator`, both ways: the listener's `listen` and answer
    to the seat, the seat's offer to the listener. Returns the seats relayed and refused (all
    three frames agree), each frame reaching only its target's connection."""
    lid = listener_of(api, spectator)
    version = api.snapshot().version
    relayed, refused = [], []
    for pid in pids:
        outcomes = []
        for sender, frame, target, sent_from in (
            (spectator, {**LISTEN, "to": pid}, f"c{pid}", lid),
            (f"c{pid}", offer(lid), spectator, pid),
            # the answer to that offer: relayed as the offer was (refused when none was made)
            (spectator, {**ANSWER, "to": pid}, f"c{pid}", lid),
        ):
            api.gw.clear()
            api.send(sender, frame)
            got = api.gw.sent
            if [c for c, _ in got] == [target]:
                assert got[0][1]["type"] == "signal" and got[0][1]["from"] == sent_from, got
                assert got[0][1]["kind"] == frame["kind"]
                outcomes.append(True)
            else:
                code = "voice_not_offered" if frame["kind"] == "answer" else "voice_not_permitted"
                assert [(c, f.get("code")) for c, f in got] == [(sender, code)], got
                outcomes.append(False)
        assert len(set(outcomes)) == 1, (pid, outcomes)
        (relayed if outcomes[0] else refused).append(pid)
    assert api.snapshot().version == version  # nothing stored
    return relayed, refused


def test_voice_relay_spectators_listen_to_the_living_by_day_and_to_nobody_at_night(api):
    pids = start_day(api, 6)
    assert api.connect("spec") == 200
    relayed, refused = listener_pairs(api, pids, "spec")
    heard = me.view(api.state(), None)["voice"]["hearFrom"]
    assert relayed == heard == pids and refused == []
    api.gw.clear()
    api.send("spec", offer("p2"))  # a listener never offers: it sends no audio
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("spec", "spectator")]
    advance_to(api, "night")
    assert api.connect("spec2") == 200  # a listener no seat offered to
    relayed, refused = listener_pairs(api, pids, "spec2")
    assert relayed == [] and refused == pids  # the mafia's voice too: spectators hear no night


def test_voice_a_listeners_answer_receives_only_and_is_small(api):
    pids = start_day(api, 6)
    assert api.connect("spec") == 200
    api.send(f"c{pids[1]}", offer(listener_of(api, "spec")))
    api.send("cp1", offer("p2"))
    receive_only = SAMPLE["answer"]  # Chromium's answer to an offer it only receives (a=recvonly)
    assert len(receive_only) <= voice.sdp.MAX_LISTENER_SDP_CHARS
    cand = "a=candidate:1 1 udp 2122194687 192.0.2.2 46884 typ host generation 0\r\n"
    sends = SAMPLE["answer"].replace("a=recvonly", "a=sendrecv")
    for sdp, relayed in (
        (receive_only, True),
        (sends, False),
        (SAMPLE["offer"], False),  # a=sendrecv, a=ssrc, a=msid: a microphone
        (receive_only + cand * 25, False),  # over the listener's cap, under a seat's
    ):
        api.gw.clear()
        api.send("spec", {**ANSWER, "to": pids[1], "sdp": sdp})
        if relayed:
            assert [c for c, _ in api.gw.sent] == [f"c{pids[1]}"]
        else:
            assert [(c, f.get("code")) for c, f in api.gw.sent] == [("spec", "bad_frame")]
    api.gw.clear()
    api.send("cp2", {"action": "signal", "to": "p1", "kind": "answer", "sdp": receive_only + cand * 25})
    assert [c for c, _ in api.gw.sent] == ["cp1"]


def test_voice_listener_ids_are_random_per_connection_stored_with_it_and_shown_to_nobody(api):
    start_day(api, 6)
    for i in range(8):
        assert api.connect(f"spec{i}") == 200
    ids = [listener_of(api, f"spec{i}") for i in range(8)]
    assert len(set(ids)) == 8
    assert all(re.fullmatch(r"L[A-Za-z0-9_-]{22}", lid) for lid in ids)
    assert all(f"spec{i}" not in lid for i, lid in enumerate(ids))
    assert not set(api.snapshot().listeners) & {f"c{p}" for p in ("p1", "p2")}  # seats have none
    # the same connection id again: a new draw, not a function of the connection
    api.disconnect("spec0")
    assert api.connect("spec0") == 200
    assert listener_of(api, "spec0") not in ids
    # two rooms dealt alike would still differ: the id comes from the OS, not the room's seeds
    drawn = {storage.listener_id() for _ in range(1000)}
    assert len(drawn) == 1000
    # no view (nor any other frame) names a listener: a seat learns one only from its `listen`
    everything = json.dumps([f for _, f in api.gw.sent])
    assert not any(lid in everything for lid in ids)


def test_voice_listen_signals_count_against_the_spectators_rate_limit(api):
    pids = start_day(api, 6)
    api.connect("spec")
    api.gw.clear()
    limit = min(int(voice.BURST), voice.PER_LISTENERS)  # its bucket, or all listeners' budget
    for _ in range(limit):
        api.send("spec", {**LISTEN, "to": pids[1]})
    assert len(api.gw.to(f"c{pids[1]}")) == limit and not api.errors("spec")
    api.send("spec", {**LISTEN, "to": pids[1]})
    assert api.errors("spec")[-1]["code"] == "voice_rate_limited"


# ---------------------------------------------------------------- the pair's state
ICE = {"action": "signal", "kind": "ice", "candidate": {"candidate": "", "sdpMid": "0"}}


def test_voice_an_answer_or_ice_goes_only_to_a_seat_that_offered_and_a_refusal_stores_nothing(api):
    pids = start_day(api, 6)
    assert api.connect("spec") == 200
    lid = listener_of(api, "spec")
    item, offers = api.item(), api.snapshot().offers
    for sender, frame in (
        ("cp2", {**ANSWER, "to": "p1"}),  # p1 never offered to p2
        ("cp2", {**ICE, "to": "p1"}),
        ("spec", {**ANSWER, "to": pids[0]}),  # nor to the listener
        ("spec", {**ICE, "to": pids[0]}),
        ("cp1", {**ANSWER, "to": lid}),  # nor did the listener offer (it never does)
    ):
        api.gw.clear()
        api.send(sender, frame)
        assert [(c, f.get("code")) for c, f in api.gw.sent] == [(sender, "voice_not_offered")], frame
        assert api.gw.sent[0][1]["message"]
    assert api.item() == item and api.snapshot().offers == offers == {}
    api.send("cp1", offer("p2"))
    api.gw.clear()
    api.send("cp3", {**ANSWER, "to": "p1"})  # an offer to p2 is p2's to answer, not p3's
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [("cp3", "voice_not_offered")]
    api.gw.clear()
    api.send("cp2", {**ANSWER, "to": "p1"})
    api.send("cp2", {**ICE, "to": "p1"})
    assert [(c, f["kind"]) for c, f in api.gw.sent] == [("cp1", "answer"), ("cp1", "ice")]


def test_voice_a_pair_offered_while_joined_answers_across_phases_and_no_new_offer_opens_one(api):
    """A pair, once offered while the policy joins it, may finish its exchange after the phase
    changed (the answer to the target's own offer); a new offer waits for a phase that joins
    the two again. The pair's state holds across containers (it is in the table)."""
    start_day(api, 6)
    a, b = [p["id"] for p in api.state()["players"] if p["role"] != "mafia"][:2]
    api.send(f"c{a}", offer(b))  # by day: everyone's voice reaches everyone
    assert api.gw.to(f"c{b}")[-1]["kind"] == "offer"
    advance_to(api, "night")
    assert not me.voice_pair(api.state(), a, b)  # two townspeople: the night parts them
    new_container(api)
    api.gw.clear()
    api.send(f"c{b}", {**ANSWER, "to": a})
    api.send(f"c{b}", {**ICE, "to": a})
    assert [(c, f["kind"]) for c, f in api.gw.sent] == [(f"c{a}", "answer"), (f"c{a}", "ice")]
    api.gw.clear()
    api.send(f"c{b}", offer(a))  # a new offer opens a pair: not tonight
    assert [(c, f.get("code")) for c, f in api.gw.sent] == [(f"c{b}", "voice_not_permitted")]


def test_voice_a_refused_offer_is_told_by_its_frame_id_stores_nothing_and_its_retry_is_relayed(api):
    """The server's part of the page's retries (web/js/voice/retry.js): a refusal is an `error`
    frame with the signal's own id (the page knows which try failed), it stores no offer mark
    (the retry is a clean try), and the same offer tried again once the budget's window passed
    is relayed. An answer to an offer whose connection is gone (the offering page reconnected)
    is refused `voice_not_offered`; the answering page's retry, an offer of its own, goes
    through while the policy joins the pair, and the other side's answer to it too."""
    start_day(api, 6)
    for n in range(int(voice.BURST)):  # p1's connection spends its bucket on offers to p2
        api.send("cp1", offer("p2", id=f"spend{n}"))
    offers = api.snapshot().offers
    api.gw.clear()
    api.send("cp1", offer("p3", id="try1"))
    assert [(c, f.get("code"), f.get("id")) for c, f in api.gw.sent] == [("cp1", "voice_rate_limited", "try1")]
    assert api.gw.sent[0][1]["message"] and api.snapshot().offers == offers  # no mark for p3
    api.clock.advance(1.0)  # the page's backoff: the bucket refills RATE a second
    api.gw.clear()
    api.send("cp1", offer("p3", id="try2"))
    assert [(c, f["kind"]) for c, f in api.gw.sent] == [("cp3", "offer")]
    assert "p3" in api.snapshot().offers["cp1"]

    # p3 offered to p4 from a connection since gone: p4's answer is refused, its own offer is not
    api.send("cp3", offer("p4"))
    api.disconnect("cp3")
    assert api.connect("cp3b", "p3") == 200
    api.gw.clear()
    api.send("cp4", {**ANSWER, "to": "p3", "id": "late"})
    assert [(c, f.get("code"), f.get("id")) for c, f in api.gw.sent] == [("cp4", "voice_not_offered", "late")]
    api.gw.clear()
    api.send("cp4", offer("p3", id="retry"))
    api.send("cp3b", {**ANSWER, "to": "p4"})
    assert [(c, f["kind"], f["from"]) for c, f in api.gw.sent] == [("cp3b", "offer", "p4"), ("cp4", "answer", "p3")]
