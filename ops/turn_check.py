"""Does a TURN server take the stack's credentials? One Allocate request (RFC 8656) over UDP,
signed with the long-term credential mechanism (RFC 8489, section 9.2: the first answer's 401 gives
REALM and NONCE, the second request carries USERNAME, REALM, NONCE and MESSAGE-INTEGRITY):
a success holds a relay address. Used by `python -m ops.smoke` (the "voice relay (TURN)" row)
and tests/e2e/test_voice_turn.py; standard library only.

    from ops.turn_check import allocate, parse_url
    host, port = parse_url("turn:turn.example.org:3478?transport=udp")
    ok, detail = allocate(host, port, username, credential)
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import socket
import struct

MAGIC = 0x2112A442
ALLOCATE, ALLOCATE_OK, ALLOCATE_ERROR = 0x0003, 0x0103, 0x0113
REFRESH = 0x0004
USERNAME, MESSAGE_INTEGRITY, ERROR_CODE, LIFETIME = 0x0006, 0x0008, 0x0009, 0x000D
REALM, NONCE, XOR_RELAYED_ADDRESS, REQUESTED_TRANSPORT = 0x0014, 0x0015, 0x0016, 0x0019
_URL = re.compile(r"turn:(\[[0-9A-Fa-f:.]+\]|[^:?]+)(?::(\d+))?(?:\?transport=(udp|tcp))?")


def parse_url(url: str) -> tuple[str, int] | None:
    """(host, port) of a `turn:` URL over UDP; None for another kind (`turns:`, TCP)."""
    m = _URL.fullmatch(url)
    if m is None or m.group(3) == "tcp":
        return None
    return m.group(1).strip("[]"), int(m.group(2) or 3478)


def _attr(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def _parse(data: bytes) -> tuple[int, bytes, dict[int, bytes]]:
    kind, length, _ = struct.unpack("!HHI", data[:8])
    attrs, at = {}, 20
    while at + 4 <= min(len(data), 20 + length):
        a, n = struct.unpack("!HH", data[at : at + 4])
        attrs[a] = data[at + 4 : at + 4 + n]
        at += 4 + n + (-n % 4)
    return kind, data[8:20], attrs


def _signed(kind: int, body: bytes, key: bytes) -> bytes:
    head = struct.pack("!HHI", kind, len(body) + 24, MAGIC) + os.urandom(12)
    return head + body + _attr(MESSAGE_INTEGRITY, hmac.new(key, head + body, hashlib.sha1).digest())


def error_code(attrs: dict[int, bytes]) -> int | None:
    value = attrs.get(ERROR_CODE)
    return None if value is None or len(value) < 4 else value[2] * 100 + value[3]


def relayed_address(attrs: dict[int, bytes], tid: bytes) -> str | None:
    value = attrs.get(XOR_RELAYED_ADDRESS)
    if value is None or len(value) < 8:
        return None
    port = struct.unpack("!H", value[2:4])[0] ^ (MAGIC >> 16)
    if value[1] == 1:
        ip = ipaddress.IPv4Address(struct.unpack("!I", value[4:8])[0] ^ MAGIC)
    else:
        mask = struct.pack("!I", MAGIC) + tid
        ip = ipaddress.IPv6Address(bytes(a ^ b for a, b in zip(value[4:20], mask, strict=False)))
    return f"{ip}:{port}"


def allocate(host: str, port: int, username: str, credential: str, timeout: float = 5.0) -> tuple[bool, str]:
    """(True, the relay address) if the server at host:port allocates a relay for this
    credential (then releases it), else (False, why). Raises OSError when nothing answers."""
    transport = _attr(REQUESTED_TRANSPORT, bytes([17, 0, 0, 0]))  # a UDP relay
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)

        def ask(message: bytes) -> tuple[int, bytes, dict[int, bytes]]:
            s.sendto(message, (host, port))
            return _parse(s.recvfrom(4096)[0])

        kind, _, attrs = ask(struct.pack("!HHI", ALLOCATE, len(transport), MAGIC) + os.urandom(12) + transport)
        if kind != ALLOCATE_ERROR or error_code(attrs) != 401 or REALM not in attrs or NONCE not in attrs:
            return False, f"no challenge (answer 0x{kind:04x}, error {error_code(attrs)})"
        realm, nonce = attrs[REALM], attrs[NONCE]
        key = hashlib.md5(username.encode() + b":" + realm + b":" + credential.encode()).digest()  # noqa: S324 - RFC 8489's key
        creds = _attr(USERNAME, username.encode()) + _attr(REALM, realm) + _attr(NONCE, nonce)
        kind, tid, attrs = ask(_signed(ALLOCATE, creds + transport, key))
        if kind != ALLOCATE_OK:
            return False, f"allocation refused: error {error_code(attrs)}"
        relay = relayed_address(attrs, tid)
        try:  # release it at once (lifetime 0)
            ask(_signed(REFRESH, creds + _attr(LIFETIME, struct.pack("!I", 0)), key))
        except OSError:
            pass
        return True, relay or "a relay"
