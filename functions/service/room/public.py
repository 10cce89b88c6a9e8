"""Public rooms (host option `public`): the list strangers read, quick play, and the lobby's
countdown to a start by itself (docs/rules.md, "Public rooms"; docs/architecture.md, "Public
rooms").

- **The list.** A public room's item carries the keys of two sparse global secondary indexes
  (`PublicByLang`, `PublicByPreset`: template.yaml) only while its lobby is open: public, in
  the lobby, not full and not idle. `track` decides it at every write of the room (the
  pipeline's life-cycle step) and `storage.index_attributes` writes the keys, so the write that
  starts or fills the room is the write that takes it off the list. A page of the list is one
  Query of one index (`Store.list_public`), never a Scan.
- **Idle.** A lobby where no person is connected leaves the list `EMPTY_GRACE_SECONDS` after
  the last one went (or after it was made, if its creator never connected); one where nothing
  was written for `IDLE_SECONDS` leaves it too, unless a heartbeat renews it (`refresh_due`).
  The index keeps an idle room's entry until its next write, but its rank (`storage.index_attributes`:
  `listUntil` first) lies below the Query's bound: a page reads live entries only (docs/rules.md, "Public rooms").
- **Watch now.** A running public game with someone seated connected (`track_watch`,
  `room.watching`) is keyed in the same two indexes under `watch#` partitions
  (`storage.WATCH_PREFIX`): `list_rooms(..., watch=True)` reads a page of them.
- **Quick play** (`rest_ops.quick_play`): the fullest live lobby of the first page of the language (and preset) whose
  conditional write takes the seat; a lost race reads the room again and moves on when it is
  full; no room fits: the window's forming lobby (`rest_ops.forming_code`, claimed by a
  conditional create, joined by the other racers), else a new public room.
- **Start by itself.** Once `autoStart` people (not bots) sit in a public lobby, it starts
  after `COUNTDOWN_SECONDS` (`room.autoStartAt`), bots filling the seats a game needs when
  `autoStartBots` is on. The countdown rides on the phase timer's Scheduler path (phase
  `LOBBY_PHASE`), and any request after it (a heartbeat, a client's nudge) starts it too
  (`start_if_due`, a pipeline step like the bots' ticks).
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..features.base import Feature, Step, ViewParts
from ..features.fairness import revealing
from ..infra import auth, cursors, storage
from ..infra.errors import ServiceError
from ..infra.telemetry import count, logger
from ..protocol.roomcode import PARTY_LENGTH, ROOM_ALPHABET
from ..protocol.views import preset_info
from . import operations
from .change import Context, Effects
from .setup import protects, room_setup_error

if TYPE_CHECKING:
    from ..infra.storage import Store

LANGS = ("en", "ko", "ru")
COUNTDOWN_SECONDS = 15  # a public lobby with enough people starts this long after it got them
WAIT_SECONDS = 60  # a public lobby with anyone here starts at the latest this long after they came
EMPTY_GRACE_SECONDS = 90  # a public lobby nobody is connected to stays listed this long
IDLE_SECONDS = 15 * 60  # a listing lasts this long after the room's last write
WATCH_SECONDS = 10 * 60  # a running game stays on "Watch now" this long after its last write
LOBBY_PHASE = operations.LOBBY_PHASE  # the countdown's timer: the phase a lobby's delivery carries
FILL_TO = 8  # a game started by itself: bots fill up to this many seats (within the preset's range)
PAGE_SIZE = 20  # rooms per page of the list (the Query's Limit)
PAGE_MAX = 50
QUICK_CANDIDATES = 10  # listed rooms quick play tries before it makes a new one
SKIP = frozenset(
    {
        "room_full",
        "already_started",
        "not_public",
        "room_not_found",
        "name_taken",
        "device_seated",
        "address_seated",
        "busy",
    }
)


def is_public(room: dict) -> bool:
    return bool(room.get("options", {}).get("public"))


def humans(room: dict) -> list[dict]:
    return [p for p in room["players"] if not p.get("bot")]


# ---------------------------------------------------------------- the list: a room's entry
def track(room: dict, present: set[str], now: float) -> None:
    """At each write of the room: whether it is listed (`room.listing`, which
    `storage.index_attributes` turns into the indexes' keys) and its countdown (`room.autoStartAt`).
    `present`: the player ids with a connection."""
    if is_public(room) and room.get("status") in ("running", "ended"):
        room.setdefault("party", new_party())  # the table's code for "Play again with this table"
    if not is_public(room) or room.get("status") != "lobby":
        room.pop("listing", None)
        room.pop("emptySince", None)
        room.pop("autoStartAt", None)
        room.pop("waitSince", None)
        room.pop("enoughAt", None)
        return
    people = humans(room)
    if any(p["id"] in present for p in people):
        room.pop("emptySince", None)
        until = now + IDLE_SECONDS
    else:
        since = room.setdefault("emptySince", now)
        until = since + EMPTY_GRACE_SECONDS
    seats = len(room["players"])
    limit = preset_info(room["preset"])["maxPlayers"]
    if seats >= limit or not people:
        room.pop("listing", None)
    else:
        room["listing"] = {
            "lang": room.get("lang") or "en",
            "preset": room["preset"],
            "seats": seats,
            "max": limit,
            "until": until,
            "since": room.get("listedSince") or now,
        }
        room.setdefault("listedSince", now)
    # no stranger waits forever: a lobby with someone here starts within `WAIT_SECONDS` of
    # their coming (`waitSince`); `autoStart` people shorten it to `COUNTDOWN_SECONDS`
    here = any(p["id"] in present for p in people)
    # a start waiting for the phones' values (reveals.py) counts down no more
    can = _can_start(room) and not revealing(room)
    if here and can:
        room.setdefault("waitSince", now)
    else:
        room.pop("waitSince", None)
    enough = len(people) >= room["options"].get("autoStart", 4) and can
    if enough:
        room.setdefault("enoughAt", now + COUNTDOWN_SECONDS)
    else:
        room.pop("enoughAt", None)
    due = [room["waitSince"] + WAIT_SECONDS] if "waitSince" in room else []
    due += [room["enoughAt"]] if "enoughAt" in room else []
    if due:
        room["autoStartAt"] = min(due)
    else:
        room.pop("autoStartAt", None)


def track_watch(room: dict, present: set[str], now: float) -> None:
    """At each write of the room: whether its game is on the "Watch now" list (`room.watching`,
    keyed by `storage.index_attributes` under the `watch#` partitions): a public room whose game
    runs while at least one person (not a bot) is connected; for `WATCH_SECONDS` after the
    write, renewed by the game's next write (every phase writes). Anyone may watch a listed game
    as a spectator: what a spectator sees is public information only (docs/rules.md, "Public rooms": Watch now)."""
    people = humans(room)
    if not is_public(room) or room.get("status") != "running" or not any(p["id"] in present for p in people):
        room.pop("watching", None)
        return
    room["watching"] = {
        "lang": room.get("lang") or "en",
        "preset": room["preset"],
        "seats": len(room["players"]),
        "max": preset_info(room["preset"])["maxPlayers"],
        "until": now + WATCH_SECONDS,
    }


def _can_start(room: dict) -> bool:
    """Whether a start by itself would deal a game (with bots, if they may fill seats)."""
    if room["options"].get("autoStartBots", True):
        return True
    return room_setup_error(room) is None


def refresh_due(room: dict, now: float) -> bool:
    """A listed lobby whose listing ends within half of `IDLE_SECONDS` while people are
    connected: the request (a heartbeat) writes the room to renew it."""
    lst = room.get("listing")
    return bool(lst) and "emptySince" not in room and lst["until"] - now < IDLE_SECONDS / 2


# ---------------------------------------------------------------- the list: reading it
def encode_cursor(key: dict | None) -> str | None:
    return cursors.encode(key)


def decode_cursor(cursor: str | None, index: str, partition: str) -> dict | None:
    """The page's start (`Store.list_public`) from an opaque cursor this API gave; refused when
    it is not one of this list's (another language or preset, or made up)."""
    return cursors.decode(
        cursor,
        lambda start: storage.public_start_ok(index, partition, start),
        "this cursor does not belong to this list",
    )


def list_args(
    lang: str, preset: str | None, cursor: str | None, limit: int, watch: bool = False
) -> tuple[str, str, dict | None]:
    """A page's (index, partition, start), or `400` for bad input (checked before any budget
    is spent: `RoomService.public_rooms`)."""
    if lang not in LANGS:
        raise ServiceError("bad_request", f"lang: one of {', '.join(LANGS)}")
    if not 1 <= limit <= PAGE_MAX:
        raise ServiceError("bad_request", f"limit: 1 to {PAGE_MAX}")
    prefix = storage.WATCH_PREFIX if watch else ""
    index, partition = (
        ("PublicByPreset", f"{prefix}{lang}#{preset}") if preset else ("PublicByLang", prefix + lang)
    )
    return index, partition, decode_cursor(cursor, index, partition)


def list_rooms(
    store: Store,
    now: float,
    lang: str,
    preset: str | None,
    cursor: str | None,
    limit: int,
    watch: bool = False,
) -> dict:
    """One page of the listed lobbies of `lang` (and `preset`), or with `watch` of its running
    public games ("Watch now"): one Query of one sparse index."""
    index, partition, start = list_args(lang, preset, cursor, limit, watch)
    items, last, _ = store.list_public(index, partition, limit, start, now)
    # a listed room as anyone may see it: code, language, preset, seats; nothing else
    status = "running" if watch else "lobby"
    return {"rooms": [{**entry, "status": status} for entry in items], "cursor": encode_cursor(last)}


# ---------------------------------------------------------------- one person, one seat
def address_key(ip: str | None) -> str:
    """What counts as one source address in a public room (docs/rules.md, "Public rooms"): an
    IPv4 address as it is, an IPv6 address by its /64 (a home network's prefix holds 2^64 of
    them), an IPv4-mapped IPv6 address as its IPv4; "" (not keyed) for none, one that does not
    parse, or a loopback address (never a client's on AWS: the offline stack's every client)."""
    try:
        addr = ipaddress.ip_address((ip or "").strip())
    except ValueError:
        return ""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if addr.is_loopback:
        return ""
    if isinstance(addr, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


def address_digest(ip: str | None) -> str:
    """What a seat keeps of its source address (`seat.addr`): a hash, never the address."""
    key = address_key(ip)
    return auth.hash_token(f"addr:{key}") if key else ""


def note_address(seat: dict, ip: str | None) -> None:
    digest = address_digest(ip)
    if digest:
        seat["addr"] = digest


def require_one_seat(room: dict, ip: str | None) -> None:
    """A public room: no second seat for an address that holds one (`409 address_seated`);
    a private room keeps the host's judgement (a household shares an address)."""
    digest = address_digest(ip)
    if is_public(room) and digest and any(p.get("addr") == digest for p in room["players"]):
        raise ServiceError(
            "address_seated", "someone at this address already holds a seat in this public room", 409
        )


# ---------------------------------------------------------------- quick play
def join_check(lang: str, preset: str | None):
    """The extra conditions of a quick play seat, checked on the room as read by the write's
    own attempt (so the conditional write decides races: `rest_ops.join_room`)."""

    def check(c: Context) -> None:
        room = c.room
        lst = room.get("listing")
        if not is_public(room) or not lst or lst["until"] < c.now:
            raise ServiceError("not_public", "this room is not open to strangers", 409)
        if (room.get("lang") or "en") != lang or (preset and room["preset"] != preset):
            raise ServiceError("not_public", "this room plays another language or preset", 409)
        if not protects(room["options"]):  # a room stored before the rule: never a stranger's seat
            raise ServiceError("not_public", "this room is not open to strangers", 409)

    return check


# ---------------------------------------------------------------- play again together
def new_party() -> str:
    """A public game's party code (`room.party`, drawn when it starts): the people seated at its
    end read it and send it with "Play again with this table" (`rest_ops.quick_play`'s `party`),
    which seats them in one new public lobby (`rest_ops.party_code`). Random, never derived from
    the game's secret (which the end reveals to spectators too)."""
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(PARTY_LENGTH))


def party_for(room: dict, viewer: str | None) -> str | None:
    """The party code `viewer` reads: a person seated at the end of a public game, else None
    (a spectator, a screen, a bot's seat or one that left never reads it)."""
    if room.get("status") != "ended" or not is_public(room) or viewer is None:
        return None
    seat = next((p for p in room["players"] if p["id"] == viewer), None)
    if seat is None or seat.get("bot") or seat.get("left"):
        return None
    return room.get("party")


# ---------------------------------------------------------------- start by itself
def countdown_to_arm(room: dict) -> tuple[int, float] | None:
    """The lobby countdown's timer to schedule (once per countdown): (LOBBY_PHASE, when)."""
    at = room.get("autoStartAt")
    if at is None or room.get("status") != "lobby":
        return None
    timer = [LOBBY_PHASE, at]
    if room.get("timer") == timer:
        return None
    room["timer"] = timer
    return LOBBY_PHASE, at


def start_if_due(c: Context) -> tuple[Any, Effects] | None:
    """The game of a public lobby whose countdown has ended, started by itself (bots filling
    seats if allowed): (state, effects) or None. Refused set-ups leave the lobby as it is."""
    room = c.room
    at = room.get("autoStartAt")
    if room.get("status") != "lobby" or at is None or c.now < at or not is_public(room):
        return None
    room.pop("autoStartAt", None)
    if room["options"].get("autoStartBots", True):
        info = preset_info(room["preset"])
        target = max(info["minPlayers"], min(FILL_TO, info["maxPlayers"]), len(room["players"]))
        while len(room["players"]) < target:
            operations.add_bot_seat(room)
        while room_setup_error(room) and len(room["players"]) < info["maxPlayers"]:
            operations.add_bot_seat(room)  # a preset whose roster wants another count
    if room_setup_error(room):
        logger.info("public room could not start by itself", extra={"room": room.get("code")})
        return None
    state, effects = operations.begin(c)
    count("AutoStarts")
    return state, effects


# ---------------------------------------------------------------- the feature (features/base.py)
def _start_step(c: Context) -> Step:
    """Before the command: a lobby whose countdown ended starts (its effects before the
    command's); a listing about to lapse while people are here is renewed by a write."""
    started = start_if_due(c)
    if started is not None:
        state, effects = started
        return Step(state, effects, writes=True, lead=True)
    return Step(c.state, writes=refresh_due(c.room, c.now))


def _on_write(c: Context, state: Any, present: set[str]) -> None:
    track(c.room, present, c.now)  # the list's entry, the countdown
    track_watch(c.room, present, c.now)  # a running game's "Watch now" entry


def _lobby_fact(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """Every view's `room.autoStartAt`: when a public lobby starts by itself, or null; at the end
    of a public game a seated person's `room.party` (play again together)."""
    at = room.get("autoStartAt") if room["status"] == "lobby" else None
    party = party_for(room, viewer)
    extra = {"party": party} if party else {}
    return replace(parts, block={**parts.block, "autoStartAt": at, **extra})


def _countdown(c: Context, state: Any) -> tuple[int, float] | None:
    return countdown_to_arm(c.room)


FEATURE = Feature("public", before=_start_step, on_write=_on_write, view=_lobby_fact, timer=_countdown)
