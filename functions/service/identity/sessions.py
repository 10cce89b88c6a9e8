"""Short-lived signed sessions: who a request's person is, without a read.

A session is the text `<person>.<sid>.<expiry>.<mac>`: the person's id, a random session id
(what sign-out revokes: `Store.revoke_session`), the Unix second it lapses, and
base64url(HMAC-SHA256(key, "<person>.<sid>.<expiry>")). `person_of` checks the MAC and the
expiry only (pure: no clock, no store); `persons.signed_in` adds what needs the store (a
revoked session, a deleted or banned person).

The key lives in AWS Secrets Manager (`SESSION_SECRET_ARN`; template.yaml `SessionSecret`),
read with boto3 on the first use in a container and kept for the container's life, as voice's
TURN secret (features/turn.py); never in `config.json`, a view, a frame or a log line. A
session itself is never logged either (callers log person ids at most).

How a request presents it: REST, the header `Authorization: Session <token>` (`bearer`); a
seat taken with a session records the person on the seat (`seat["person"]`, server-only), so
the socket's `$connect` needs nothing more than the seat's token (room/access.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

TTL_SECONDS = 7 * 24 * 3600  # a session lapses after a week: sign in again with the passkey
SCHEME = "Session"  # the Authorization header's scheme on REST
PERSON_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")  # `new_person_id`: 128 bits, base64url
_SESSION = re.compile(r"([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})")


def new_person_id() -> str:
    """A fresh person id: 128 bits from the OS's CSPRNG, base64url (22 characters)."""
    return secrets.token_urlsafe(16)


def _mac(key: bytes, body: str) -> str:
    digest = hmac.new(key, body.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def issue(person: str, now: int, key: bytes, ttl: int = TTL_SECONDS) -> tuple[str, str, int]:
    """A new session for `person`: (the session text, its id, its expiry)."""
    if not PERSON_PATTERN.fullmatch(person):
        raise ValueError("not a person id")
    sid = secrets.token_urlsafe(16)
    expiry = int(now) + ttl
    body = f"{person}.{sid}.{expiry}"
    return f"{body}.{_mac(key, body)}", sid, expiry


@dataclass(frozen=True)
class Claims:
    """What a valid session says: whose it is, its id, when it lapses."""

    person: str
    sid: str
    expiry: int


def claims(session: str | None, now: int, key: bytes) -> Claims | None:
    """The claims of a session whose MAC holds and that has not lapsed at `now`; else None."""
    if not session or len(session) > 200:
        return None
    m = _SESSION.fullmatch(session)
    if m is None:
        return None
    person, sid, expiry, mac = m.groups()
    if not hmac.compare_digest(mac, _mac(key, f"{person}.{sid}.{expiry}")):
        return None
    if int(expiry) <= int(now):
        return None
    return Claims(person, sid, int(expiry))


def person_of(session: str | None, now: int, key: bytes) -> str | None:
    """The person id a session names, if its MAC holds and it has not lapsed at `now`; else
    None. Pure (no store): a signed-out or banned person is `persons.signed_in`'s to refuse."""
    found = claims(session, now, key)
    return found.person if found else None


def bearer(headers: Mapping[str, str] | None) -> str | None:
    """The session a REST request presents (`Authorization: Session <token>`), or None."""
    for k, v in (headers or {}).items():
        if k.lower() == "authorization" and v:
            scheme, _, token = v.strip().partition(" ")
            if scheme == SCHEME and token.strip():
                return token.strip()
    return None


@dataclass
class SessionKey:
    """The session key (fetched once, on first use, by `fetch`; default Secrets Manager)."""

    secret_id: str = ""
    fetch: Callable[[str], str] | None = None
    _key: bytes | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_env(cls) -> SessionKey:
        return cls(secret_id=os.environ.get("SESSION_SECRET_ARN", ""))

    @property
    def configured(self) -> bool:
        return bool(self.secret_id or self.fetch)

    def key(self) -> bytes:
        with self._lock:
            if self._key is None:
                if not self.configured:
                    raise RuntimeError("SESSION_SECRET_ARN is not set")
                fetch = self.fetch or _secrets_manager
                self._key = fetch(self.secret_id).encode("utf-8")
            return self._key


def _secrets_manager(secret_id: str) -> str:
    import boto3  # the service's infra: the Lambda runtime ships it

    return boto3.client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"]
