"""Ranked play's stored records (docs/rules.md, "Ranked play"), as side items behind `Store`
(service/infra/storage.py keys them; `storage.ladder_attributes` puts a person's season
rating on its ladder):

- `rating`: a person's rating in one season and language (owner: the person's public handle,
  key `<season>#<lang>`), on that ladder; a preset's pseudo-players and bot (owner
  `preset:<preset>`, key the entity), on no ladder;
- `rgame`: one of a person's ranked games (owner: handle, key `<season>#<ms>#<room>`), what
  their page lists, newest first, each with its room code (its review);
- `rleave`: a ranked game a person left alive (owner: handle, key `<room>#<seat>`), what
  their cool-down is counted from (`ratings.cooldown_until`);
- `rseat`: a ranked room a person took a seat in (owner: handle, key `<ms>#<room>`), written
  with the seat (the room's create or its join's write); the newest tell where a person may
  still sit, and the room itself says whether they do (`seated_elsewhere`: one ranked game at
  a time).

The person id never leaves the server: everything public is keyed by `handle(person)`, a hash
of it, and shown only once a game ended (an anonymous game's names and ratings wait for it).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from datetime import UTC, datetime

from ..infra.errors import ServiceError
from ..infra.storage import RATING_KIND, SideItem, Store
from . import ratings as rt
from .ratings import Rating

GAME_KIND = "rgame"
LEAVE_KIND = "rleave"
SEAT_KIND = "rseat"
SEAT_KEPT_SECONDS = 2 * 24 * 3600  # a seat's record outlives its room (storage.TTL_SECONDS)
SEATS_READ = 2  # the newest seat records read: one ranked seat at a time, and a race's second
KEPT_SECONDS = 400 * 24 * 3600  # a season's rating and games: a year and a month after the game
GAMES_SHOWN = 20  # a person's page: their last games
ENTITIES_READ = 64  # a preset's pseudo-players (a side per table size) and bot: one Query


def handle(person: str) -> str:
    """A person's public name on ladders and pages: a hash of their id (which never leaves)."""
    return hashlib.sha256(f"mafia-handle#{person}".encode()).hexdigest()[:16]


def entities_owner(preset: str) -> str:
    return f"preset:{preset}"


def season_rating(store: Store, who: str, season: str, lang: str) -> Rating:
    """A person's (handle's) rating this season in `lang` (a new one: none yet)."""
    key = f"{season}#{lang}"
    for item in store.side_items(RATING_KIND, who, 64):
        if item.key == key:
            return Rating.of(item.data)
    return Rating()


def preset_entities(store: Store, preset: str) -> dict[str, dict]:
    """A preset's pseudo-players' and bot's ratings (one Query)."""
    return {i.key: dict(i.data) for i in store.side_items(RATING_KIND, entities_owner(preset), ENTITIES_READ)}


def rating_items(
    season: str, lang: str, preset: str, new: Mapping[str, Rating], now: float
) -> list[SideItem]:
    """The rating items a rated game writes: each person's season rating (on the ladder) and
    each pseudo-player's and bot's."""
    exp = int(now + KEPT_SECONDS)
    out = []
    for entity, r in sorted(new.items()):
        if rt.is_person(entity):
            data = {**r.as_dict(), "points": rt.points(r), "ladder": {"lang": lang, "season": season}}
            out.append(SideItem(RATING_KIND, entity, f"{season}#{lang}", data, exp))
        else:
            out.append(SideItem(RATING_KIND, entities_owner(preset), entity, r.as_dict(), exp))
    return out


def game_item(who: str, season: str, code: str, now: float, data: Mapping) -> SideItem:
    return SideItem(
        GAME_KIND, who, f"{season}#{int(now * 1000):014d}#{code}", dict(data), int(now + KEPT_SECONDS)
    )


def leave_item(who: str, code: str, seat: str, at: float, waived: bool) -> SideItem:
    exp = int(at + rt.COOLDOWN_WINDOW + rt.COOLDOWN_STEPS[-1])
    return SideItem(LEAVE_KIND, who, f"{code}#{seat}", {"at": float(at), "waived": bool(waived)}, exp)


def seat_item(person: str, code: str, now: float) -> SideItem:
    """The record of a seat a person took in ranked room `code` (written with the seat)."""
    key = f"{int(now * 1000):014d}#{code}"
    return SideItem(SEAT_KIND, handle(person), key, {"room": code}, int(now + SEAT_KEPT_SECONDS))


def holds_seat(room: dict, person: str) -> bool:
    """Whether `person` holds a seat of ranked `room` now: its lobby or its running game, a seat
    they did not leave and no bot took (an ended game, or a room gone: no)."""
    if not room.get("ranked") or room.get("status") not in ("lobby", "running"):
        return False
    return any(
        s.get("person") == person and not s.get("left") and not s.get("bot") for s in room.get("players", ())
    )


def seated_elsewhere(store: Store, person: str) -> str | None:
    """The ranked room where `person` holds a seat now, or None (one Query of their newest seat
    records, and a read of each room they name: the room is the truth, a record only a hint)."""
    for item in store.side_items(SEAT_KIND, handle(person), SEATS_READ, newest_first=True):
        snap = store.load(str(item.data["room"]))
        if snap is not None and holds_seat(snap.room, person):
            return snap.code
    return None


RANKED_SEATED = (
    "ranked_seated",
    "you already hold a seat in another ranked game: finish it (or leave it) before you take another",
)


def require_not_seated_elsewhere(held: str | None, code: str | None) -> None:
    """`409 ranked_seated` when the person holds a ranked seat in a room other than `code`."""
    if held is not None and held != code:
        raise ServiceError(*RANKED_SEATED, 409)


def cooldown_until(store: Store, who: str, now: float) -> float:
    """Until when the handle's ranked leaves keep it from ranked play (one Query)."""
    leaves = [
        (float(i.data["at"]), bool(i.data.get("waived"))) for i in store.side_items(LEAVE_KIND, who, 64)
    ]
    return rt.cooldown_until(leaves, now)


class Cooldown(ServiceError):
    """`429 ranked_cooldown`: a ranked leave's wait runs; says until when (`retryAfter`)."""

    def __init__(self, until: float, now: float) -> None:
        self.retry_after = max(1, math.ceil(until - now))
        at = datetime.fromtimestamp(math.ceil(until), UTC).strftime("%Y-%m-%d %H:%M UTC")
        minutes = max(1, math.ceil(self.retry_after / 60))
        super().__init__(
            "ranked_cooldown",
            f"you left a ranked game before it ended: you can play ranked again at {at} (in {minutes} min)",
            429,
        )

    def as_dict(self) -> dict:
        return {**super().as_dict(), "retryAfter": self.retry_after}


def require_no_cooldown(store: Store, who: str, now: float) -> None:
    """Raise `Cooldown` while a leave's wait runs (ranked quick play asks before seating)."""
    until = cooldown_until(store, who, now)
    if until > now:
        raise Cooldown(until, now)


def forget(store: Store, person: str) -> int:
    """ "Delete me" (identity/persons.py `ON_DELETE`): the person's ratings (off every ladder),
    games, leaves and seat records; the number of items deleted."""
    who = handle(person)
    return sum(
        store.delete_side_items(kind, who) for kind in (RATING_KIND, GAME_KIND, LEAVE_KIND, SEAT_KIND)
    )


def person_page(store: Store, who: str, season: str, lang: str) -> dict:
    """A person's page: this season's standing in `lang` and their last ranked games (two
    Queries)."""
    games = [
        {**dict(i.data), "season": i.key.split("#", 1)[0]}
        for i in store.side_items(GAME_KIND, who, GAMES_SHOWN, newest_first=True)
    ]
    return {
        "handle": who,
        "season": season,
        "lang": lang,
        "standing": rt.standing(season_rating(store, who, season, lang)),
        "games": games,
    }
