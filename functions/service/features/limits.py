"""Abuse limits: a budget of room creations (and quick plays) per client and time window,
kept in the room table with TTL (docs/operations.md, "Abuse limits" says why this and API
Gateway's throttling, and not WAF).

One count per (kind, client, window) (`Store.spend_budget`; its item: `pk = LIMIT#<kind>#<client
digest>`, `sk = W#<window start>`, `n`, `expiresAt` the window's end plus a minute: TTL deletes it
later; the next window is another item). Each count is conditional on being below the budget,
the device's and the address's in one transaction: concurrent requests never overspend, and a
refusal stores nothing (a failed condition cancels both). The clients are

- the device: the random key the web client keeps (`mafia.deviceKey`, web/js/session.js), stored
  only as its hash (`auth.hash_token`, as a seat keeps it);
- the viewer's address: what CloudFront reports in `CloudFront-Viewer-Address` on a request
  that carries the site's origin secret (handlers/rest.py `source_ip`; API Gateway's own
  `sourceIp` is a CloudFront edge shared by everyone behind it), stored only as an HMAC keyed
  by `MAFIA_LIMIT_KEY` (the stack's id on AWS: not public) and the window, so the same address
  gives another digest in every window and no item names an address.

A refused request answers `429 too_many_requests` with the seconds until its window ends
(`retryAfter`, and the `Retry-After` header on REST). Only a spent budget is refused: a
transaction DynamoDB cancelled for another transaction on the same items or for a throttle
(`storage.Busy`) says nothing about the budget, so it is tried again, at most `ATTEMPTS` times
in all, and then answered `503 busy` (try again), never 429.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import os
import random
import time
from dataclasses import dataclass
from typing import Any

from ..infra import auth, clock
from ..infra.errors import ServiceError
from ..infra.storage import Busy

TTL_SLACK_SECONDS = 60
# A budget transaction cancelled by a conflict or a throttle: tried this many times in all, with a
# short jittered pause between tries (`PAUSE_S` doubled each time), then `503 busy`.
ATTEMPTS = 3
PAUSE_S = 0.02
_pause = time.sleep  # tests put a recorder here: no test waits


@dataclass(frozen=True)
class Budget:
    """At most `per_device` requests per device and `per_ip` per source address, per window."""

    kind: str
    window: int  # seconds
    per_device: int
    per_ip: int


# Room creation: a host makes a few rooms an evening; a school's NAT may hold a whole class.
CREATE_ROOM = Budget("createRoom", window=600, per_device=10, per_ip=60)
# Quick play (POST /quickplay): a tap per game, retries included. A quick play that makes a
# room (no listed lobby took the seat) also spends one CREATE_ROOM.
QUICK_PLAY = Budget("quickPlay", window=600, per_device=30, per_ip=200)
# A seat taken by code (POST /rooms/{code}/players): budgeted like quick play.
JOIN_ROOM = Budget("joinRoom", window=600, per_device=30, per_ip=200)
# The public lists (GET /rooms?public=1, and its "Watch now" page): a home screen reads each
# every few seconds; a school's NAT may hold a class of them. By address only (no device key).
LIST_ROOMS = Budget("listRooms", window=60, per_device=0, per_ip=600)
# A page asking what became of its seat (POST /rooms/{code}/fate): at most every third refused
# reconnect of a page (web/js/connection.js). By address only (the token is no client key).
SEAT_FATE = Budget("seatFate", window=60, per_device=0, per_ip=120)


class RateLimited(ServiceError):
    """`429 too_many_requests`: too many requests of this kind from this client in this window."""

    def __init__(self, code: str, message: str, retry_after: int) -> None:
        super().__init__(code, message, 429)
        self.retry_after = max(1, int(retry_after))

    def as_dict(self) -> dict:
        return {**super().as_dict(), "retryAfter": self.retry_after}


def _key() -> bytes:
    return os.environ.get("MAFIA_LIMIT_KEY", "").encode("utf-8")


# The offline stack's own clients (its browser and e2e tests all come from here); API Gateway and
# CloudFront never report one. Other loopback addresses (127.0.0.2, ...) count as any address, so
# the offline stack can show two viewers behind one edge (tests/e2e/test_viewer_address.py).
UNCOUNTED = frozenset({ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")})


def _loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip) in UNCOUNTED
    except ValueError:
        return False


def address_key(ip: str) -> str:
    """What counts as one client's address: an IPv4 address as it is (an IPv4-mapped IPv6
    address as its IPv4), an IPv6 address by its /64 (one home network's prefix holds 2^64
    addresses: keyed whole, each would be a fresh budget); anything else as given."""
    try:
        addr = ipaddress.ip_address(ip.strip())
    except ValueError:
        return ip
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return str(addr.ipv4_mapped)
    if isinstance(addr, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


def ip_digest(ip: str, window_start: int) -> str:
    """What an item keeps of a source address (its /64 for IPv6: `address_key`): an HMAC of it
    and the window (no address)."""
    return hmac.new(_key(), f"{address_key(ip)}#{window_start}".encode(), hashlib.sha256).hexdigest()[:32]


def spend(store: Any, budget: Budget, device: str | None, ip: str | None, now: float | None = None) -> None:
    """Count one request of `budget.kind` from this client, or raise `RateLimited` (nothing
    written). The device is counted first: a device over its budget spends no IP budget."""
    now = clock.now() if now is None else now
    start = int(now // budget.window) * budget.window
    end = start + budget.window
    expires = end + TTL_SLACK_SECONDS
    wait = math.ceil(end - now)
    checks = []
    if device and budget.per_device:
        checks.append(("d", auth.hash_token(device), budget.per_device))
    if ip and not _loopback(ip):  # the offline stack's clients (API Gateway never reports one)
        checks.append(("ip", ip_digest(ip, start), budget.per_ip))
    # every budget of the client in one transaction: all counted, or (one is spent) none
    if not _spend(store, budget.kind, start, expires, checks):
        raise RateLimited(
            "too_many_requests", f"too many requests from this device or network: try again in {wait} s", wait
        )


def _spend(store: Any, kind: str, start: int, expires: int, checks: list) -> bool:
    """`store.spend_budget`, tried again after a conflict or a throttle (`Busy`); `503 busy`
    when every attempt was cancelled so."""
    for attempt in range(ATTEMPTS):
        try:
            return store.spend_budget(kind, start, expires, checks)
        except Busy:
            if attempt + 1 < ATTEMPTS:
                _pause(PAUSE_S * 2**attempt * (0.5 + random.random()))  # noqa: S311 - jitter, not a secret
    raise ServiceError("busy", "the server is busy, try again in a moment", 503)
