"""Relayed voice for strangers (functions/service/features/turn.py; docs/protocol.md, "Voice
signaling"; docs/operations.md, "Voice (TURN)"): the `iceServers` frame hands the asking
connection alone a TURN credential of the TURN REST API's shared-secret scheme, its secret read
from Secrets Manager once per container and never sent or logged; public and anonymous rooms
are relay only, and there the signal relay passes relay candidates only."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging

import boto3
import pytest

import mafia_engine as me
from service.features import turn

SECRET = "the-turn-secret-of-the-tests-0123456789"
URL = "turn:turn.example.org:3478?transport=udp"

HOST = "candidate:1 1 udp 2122260223 192.168.1.5 54321 typ host generation 0"
SRFLX = "candidate:2 1 udp 1686052607 198.51.100.7 54321 typ srflx raddr 192.168.1.5 rport 54321 generation 0"
RELAY = "candidate:3 1 udp 41885439 203.0.113.9 50000 typ relay raddr 198.51.100.7 rport 54321 generation 0"
RELAY_SCREENED = "candidate:3 1 udp 41885439 203.0.113.9 50000 typ relay raddr 0.0.0.0 rport 0 generation 0"
OFFER = (
    "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 54321 UDP/TLS/RTP/SAVPF 111\r\n"
    "c=IN IP4 198.51.100.7\r\na=rtcp:9 IN IP4 198.51.100.7\r\n"
    f"a={HOST}\r\na={SRFLX}\r\na={RELAY}\r\na=end-of-candidates\r\n"
)
OFFER_SCREENED = (
    "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 54321 UDP/TLS/RTP/SAVPF 111\r\n"
    "c=IN IP4 0.0.0.0\r\na=rtcp:9 IN IP4 0.0.0.0\r\n"
    f"a={RELAY_SCREENED}\r\na=end-of-candidates\r\n"
)


@pytest.fixture
def turn_servers(aws, monkeypatch):
    """The TURN servers as a deploy has them: the secret in (moto's) Secrets Manager, read
    through boto3; `reads` counts the reads."""
    arn = boto3.client("secretsmanager").create_secret(Name=f"turn-{id(monkeypatch)}", SecretString=SECRET)["ARN"]
    reads = []
    fetch = turn._secrets_manager

    def counted(secret_id):
        reads.append(secret_id)
        return fetch(secret_id)

    monkeypatch.setattr(turn, "_secrets_manager", counted)
    servers = turn.Servers(urls=(URL,), secret_id=arn)
    turn.configure(servers)
    yield reads
    turn.configure(None)


def ask(api, conn: str, frame_id: str = "ice") -> dict:
    api.gw.clear()
    api.send(conn, {"action": "iceServers", "id": frame_id})
    assert [c for c, _ in api.gw.sent] == [conn], api.gw.sent  # the asking connection alone
    return api.gw.sent[0][1]


def to_day(api) -> None:
    for _ in range(20):
        if api.state()["phase"]["kind"] in ("greeting", "discussion"):
            return
        api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t))
        api.send(next(iter(api.snapshot().conns)), {"action": "nudge"})
    raise AssertionError("never reached the day")


def seats(api) -> dict[str, str]:
    """seat -> its connection (an anonymous game renames the seats at its start)."""
    return {pid: conn for conn, pid in api.snapshot().conns.items() if pid}


def test_a_seat_gets_a_turn_rest_api_credential_that_expires_and_only_it_gets_it(api, turn_servers, caplog):
    caplog.set_level(logging.DEBUG)
    api.start(5)
    version = api.snapshot().version
    frame = ask(api, "cp2", "i1")
    expiry = int(api.clock.t) + turn.TTL_SECONDS
    username = f"{expiry}:{api.code}.p2"
    password = base64.b64encode(hmac.new(SECRET.encode(), username.encode(), hashlib.sha1).digest()).decode()
    assert frame == {
        "type": "iceServers",
        "id": "i1",
        "iceServers": [{"urls": [URL], "username": username, "credential": password}],
        "iceTransportPolicy": "all",  # a private room: friends connect directly first
        "expires": expiry,
    }
    assert api.snapshot().version == version  # nothing written
    # the secret is read once per container, and appears in no frame and no log line
    api.clock.advance(60)
    later = ask(api, "cp3")
    assert later["iceServers"][0]["username"] == f"{expiry + 60}:{api.code}.p3"
    assert len(turn_servers) == 1
    assert all(SECRET not in str(f) for _, f in api.gw.sent)
    # (botocore's own wire log, DEBUG, is off in Lambda: its root logger stays at WARNING)
    ours = [r.getMessage() for r in caplog.records if r.name.split(".")[0] not in ("botocore", "urllib3")]
    assert ours and all(SECRET not in m and password not in m for m in ours)


def test_strangers_rooms_are_relay_only_and_a_listening_spectator_gets_a_credential_of_its_own(api, turn_servers):
    api.start(5, options={"anonymous": True})
    pid, conn = next(iter(seats(api).items()))
    frame = ask(api, conn)
    assert frame["iceTransportPolicy"] == "relay"
    assert frame["iceServers"][0]["username"].endswith(f":{api.code}.{pid}")
    assert api.connect("spec1") == 200  # a spectator: a listener
    frame = ask(api, "spec1")
    assert frame["iceTransportPolicy"] == "relay"
    assert frame["iceServers"][0]["username"].endswith(f":{api.code}.spectator")


def test_no_credential_in_the_lobby_and_nothing_stored(api, turn_servers):
    api.lobby(3)
    version = api.snapshot().version
    frame = ask(api, "cp2", "early")
    assert (frame["type"], frame["code"], frame["id"]) == ("error", "voice_closed", "early")
    assert api.snapshot().version == version
    assert turn_servers == []  # the secret was not even read


def test_without_turn_servers_the_answer_has_none_and_keeps_the_rooms_policy(api, caplog):
    """Fail closed: a strangers' room stays relay only with no relay (no voice; the page's bar
    says so), and the operator is told in the log."""
    turn.configure(turn.Servers())  # TurnUrls left empty
    try:
        api.start(5, options={"anonymous": True})
        frame = ask(api, next(iter(seats(api).values())))
        assert (frame["iceServers"], frame["iceTransportPolicy"], frame["expires"]) == ([], "relay", None)
        told = [r for r in caplog.records if "voice unavailable" in r.getMessage()]
        assert told and told[-1].levelno == logging.WARNING and told[-1].room == api.code, caplog.records
    finally:
        turn.configure(None)


def test_in_a_strangers_room_the_relay_passes_relay_candidates_only(api, turn_servers):
    api.start(6, options={"anonymous": True})
    to_day(api)
    by_seat = seats(api)
    a, b = next((a, b) for a in by_seat for b in by_seat if a != b and me.voice_pair(api.state(), a, b))
    version = api.snapshot().version

    api.gw.clear()
    api.send(by_seat[a], {"action": "signal", "to": b, "kind": "offer", "sdp": OFFER})
    assert api.gw.sent == [
        (by_seat[b], {"type": "signal", "from": a, "kind": "offer", "sdp": OFFER_SCREENED, "candidate": None})
    ]
    for line in (HOST, SRFLX):  # an ice signal of one: refused, the target gets nothing
        api.gw.clear()
        api.send(by_seat[a], {"action": "signal", "id": "c", "to": b, "kind": "ice", "candidate": {"candidate": line}})
        assert [(c, f["type"], f.get("code")) for c, f in api.gw.sent] == [(by_seat[a], "error", "relay_only")]
    api.gw.clear()
    api.send(by_seat[a], {"action": "signal", "to": b, "kind": "ice", "candidate": {"candidate": RELAY, "sdpMid": "0"}})
    assert api.gw.sent == [
        (by_seat[b], {"type": "signal", "from": a, "kind": "ice", "sdp": None,
                      "candidate": {"candidate": RELAY_SCREENED, "sdpMid": "0"}}),
    ]  # fmt: skip
    assert api.snapshot().version == version


def test_among_friends_the_relay_passes_every_candidate(api, turn_servers):
    api.start(6)
    to_day(api)
    api.gw.clear()
    api.send("cp1", {"action": "signal", "to": "p2", "kind": "offer", "sdp": OFFER})
    api.send("cp1", {"action": "signal", "to": "p2", "kind": "ice", "candidate": {"candidate": HOST}})
    assert [f.get("sdp") or f["candidate"]["candidate"] for _, f in api.gw.sent] == [OFFER, HOST]


def test_the_sdp_screen_keeps_what_a_relay_candidate_needs():
    assert turn.screen_sdp(OFFER) == OFFER_SCREENED
    # a default address that is a relay candidate's stays
    relayed = OFFER.replace("c=IN IP4 198.51.100.7", "c=IN IP4 203.0.113.9")
    assert "c=IN IP4 203.0.113.9" in turn.screen_sdp(relayed)
    assert turn.relay_only({"options": {"public": True}}) and turn.relay_only({"options": {"anonymous": True}})
    assert not turn.relay_only({"options": {}})
