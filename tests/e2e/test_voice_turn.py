"""The credentials the service mints are the ones a real TURN server accepts (coturn with
`use-auth-secret`, started by the offline stack's own starter, local/turn.py): an Allocate
request (RFC 8656) signed with a fresh credential gets a relay address; one whose expiry has
passed, or signed with another secret, is refused 401. The client here speaks STUN over UDP on
loopback: the long-term credential mechanism (RFC 8489 §9.2: REALM and NONCE from the first
401, then USERNAME, REALM, NONCE and MESSAGE-INTEGRITY)."""

from __future__ import annotations

import hashlib
import hmac
import os
import socket
import struct
import time

import pytest

from local.turn import TurnServer
from service.features import turn

MAGIC = 0x2112A442
ALLOCATE, ALLOCATE_OK, ALLOCATE_ERROR = 0x0003, 0x0103, 0x0113
USERNAME, MESSAGE_INTEGRITY, ERROR_CODE, REALM, NONCE = 0x0006, 0x0008, 0x0009, 0x0014, 0x0015
REQUESTED_TRANSPORT, XOR_RELAYED_ADDRESS = 0x0019, 0x0016


@pytest.fixture(scope="module")
def coturn():
    server = TurnServer()
    server.start()
    yield server
    server.stop()


def _attr(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def _message(kind: int, tid: bytes, attrs: bytes) -> bytes:
    return struct.pack("!HHI", kind, len(attrs), MAGIC) + tid + attrs


def _parse(data: bytes) -> tuple[int, dict[int, bytes]]:
    kind, length, _ = struct.unpack("!HHI", data[:8])
    attrs, at = {}, 20
    while at < 20 + length:
        a, n = struct.unpack("!HH", data[at : at + 4])
        attrs[a] = data[at + 4 : at + 4 + n]
        at += 4 + n + (-n % 4)
    return kind, attrs


def allocate(server: TurnServer, username: str, password: str) -> tuple[int, dict[int, bytes]]:
    """An Allocate request with the long-term credential (username, password): the answer."""
    transport = _attr(REQUESTED_TRANSPORT, bytes([17, 0, 0, 0]))  # UDP
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(5)

        def ask(message: bytes) -> tuple[int, dict[int, bytes]]:
            s.sendto(message, (server.host, server.port))
            return _parse(s.recvfrom(4096)[0])

        kind, attrs = ask(_message(ALLOCATE, os.urandom(12), transport))
        assert kind == ALLOCATE_ERROR and attrs[ERROR_CODE][2:4] == bytes([4, 1]), (kind, attrs)  # 401
        realm, nonce = attrs[REALM], attrs[NONCE]
        body = _attr(USERNAME, username.encode()) + _attr(REALM, realm) + _attr(NONCE, nonce) + transport
        tid = os.urandom(12)
        key = hashlib.md5(username.encode() + b":" + realm + b":" + password.encode()).digest()  # noqa: S324 - the RFC's key
        signed = struct.pack("!HHI", ALLOCATE, len(body) + 24, MAGIC) + tid + body
        integrity = _attr(MESSAGE_INTEGRITY, hmac.new(key, signed, hashlib.sha1).digest())
        return ask(signed + integrity)


def error_code(attrs: dict[int, bytes]) -> int:
    value = attrs[ERROR_CODE]
    return value[2] * 100 + value[3]


def test_a_minted_turn_credential_allocates_a_relay_on_coturn(coturn):
    servers = turn.Servers(urls=(coturn.url,), secret_id="local", fetch=lambda _: coturn.secret)
    ice = servers.credential("ABCD.p3", time.time())
    assert ice["urls"] == [coturn.url]
    kind, attrs = allocate(coturn, ice["username"], ice["credential"])
    assert kind == ALLOCATE_OK, error_code(attrs)
    assert XOR_RELAYED_ADDRESS in attrs  # a relay address: the peer sees this one, not ours


def test_an_expired_turn_credential_is_refused(coturn):
    servers = turn.Servers(urls=(coturn.url,), secret_id="local", fetch=lambda _: coturn.secret)
    ice = servers.credential("ABCD.p3", time.time() - turn.TTL_SECONDS - 60)  # expired a minute ago
    kind, attrs = allocate(coturn, ice["username"], ice["credential"])
    assert (kind, error_code(attrs)) == (ALLOCATE_ERROR, 401)


def test_a_turn_credential_of_another_secret_is_refused(coturn):
    servers = turn.Servers(urls=(coturn.url,), secret_id="local", fetch=lambda _: "not-" + coturn.secret)
    ice = servers.credential("ABCD.p3", time.time())
    kind, attrs = allocate(coturn, ice["username"], ice["credential"])
    assert (kind, error_code(attrs)) == (ALLOCATE_ERROR, 401)
