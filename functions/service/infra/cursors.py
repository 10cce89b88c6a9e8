"""A list's page cursor: the last key a Query returned, as opaque base64url JSON for the client,
and back; a cursor that is not one of this list's is `400 bad_cursor` (the public list:
room/public.py; the ladder: ranked/ladder.py)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable

from .errors import ServiceError

MAX_LENGTH = 400


def encode(key: dict | None) -> str | None:
    """The cursor for a page that ended at `key` (None: the last page)."""
    if not key:
        return None
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def decode(cursor: str | None, belongs: Callable[[dict], bool], message: str) -> dict | None:
    """The page's start from a cursor this API gave, when `belongs` says it is one of this
    list's; anything else (made up, too long, another list's) is `bad_cursor` with `message`."""
    if not cursor:
        return None
    bad = ServiceError("bad_cursor", message)
    if len(cursor) > MAX_LENGTH:
        raise bad
    try:
        plain = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise bad from None
    if not isinstance(plain, dict) or not belongs(plain):
        raise bad
    return plain
