"""Player tokens and the Origin check.

Tokens are 128-bit random, handed out once; only their SHA-256 is stored and compared.
A token never reaches a log line: nothing here logs, and callers only log player ids.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

# What a token may look like (`new_token` makes 22 characters of this alphabet): anything
# else is refused before a read (`$connect`), whatever it is.
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


# the random key a device keeps and sends with its connects, join and takeSeat (one person,
# one seat: functions/service/room/substitutes.py); stored only as its hash, like a token
DEVICE_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"


def new_token() -> str:
    """A fresh 128-bit token, URL-safe."""
    return secrets.token_urlsafe(16)


def token_shaped(token: str) -> bool:
    """Whether `token` could be a token at all (alphabet and length; says nothing of its room)."""
    return TOKEN_PATTERN.fullmatch(token) is not None


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def find_player(players: list[dict], token: str | None) -> str | None:
    """The id of the player whose stored hash matches `token`, or None."""
    if not token:
        return None
    digest = hash_token(token)
    found = None
    for p in players:
        if hmac.compare_digest(p.get("tokenHash", ""), digest):
            found = p["id"]
    return found


def was_kicked(players: list[dict], token: str | None) -> bool:
    """Whether `token` is the token of a seat the host removed (`kickedHash`)."""
    if not token:
        return False
    digest = hash_token(token)
    return any(hmac.compare_digest(p.get("kickedHash", ""), digest) for p in players if p.get("kickedHash"))


def origin_allowed(origin: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket `Origin` header may connect.

    Browsers always send `Origin`; a missing one means a non-browser client (bots, tools),
    which cross-site WebSocket hijacking cannot involve, so it is allowed.
    """
    if not origin or "*" in allowed:
        return True
    return origin.rstrip("/") in allowed
