"""A season's ladder per language, read one page per Query (`Store.ladder_page`: the
PublicByLang index's `ladder#<lang>#<season>` partition, most points first; no Scan), and its
opaque cursors (docs/rules.md, "Ranked play"; bench/ladder.py measures a page's read cost)."""

from __future__ import annotations

import re

from ..infra import cursors, storage
from ..infra.errors import ServiceError
from ..infra.storage import Store
from . import ratings as rt

LANGS = ("en", "ko", "ru")
PAGE_SIZE = 25
PAGE_MAX = 50
SEASON = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def encode_cursor(key: dict | None) -> str | None:
    return cursors.encode(key)


def decode_cursor(cursor: str | None, lang: str, season: str) -> dict | None:
    """A page's start from a cursor this API gave; `400 bad_cursor` for any other."""
    return cursors.decode(
        cursor,
        lambda start: storage.ladder_start_ok(lang, season, start),
        "this cursor does not belong to this ladder",
    )


def check(lang: str, season: str, limit: int) -> None:
    if lang not in LANGS:
        raise ServiceError("bad_request", f"lang: one of {', '.join(LANGS)}")
    if not SEASON.match(season):
        raise ServiceError("bad_request", "season: a month, as 2026-12")
    if not 1 <= limit <= PAGE_MAX:
        raise ServiceError("bad_request", f"limit: 1 to {PAGE_MAX}")


def page(store: Store, lang: str, season: str, limit: int, cursor: str | None) -> dict:
    """One page of the ladder: each row's place is counted by the client from the page's
    `offset` (given back with the cursor); each row's tier from its points and games."""
    check(lang, season, limit)
    start = decode_cursor(cursor, lang, season)
    rows, last, _ = store.ladder_page(lang, season, limit, start)
    shown = []
    for r in rows:
        left = max(0, rt.PLACEMENT_GAMES - r["games"])
        shown.append({**r, "tier": "placement" if left else rt.tier_of(r["points"])})
    return {"lang": lang, "season": season, "rows": shown, "cursor": encode_cursor(last)}
