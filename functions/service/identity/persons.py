"""The person record and its rules: who is signed in, ban, "delete me", one person one seat.

A person is a random id (`sessions.new_person_id`: 128 bits, CSPRNG) and nothing personal:
`created` (Unix second), `casualGames` (finished casual games: ranked play opens after a few),
`banned` (the operator's ban: every passkey and session of the person refused), and
`coolDownUntil` (a leaver's graded wait before the next ranked seat, Unix second). Storage:
`Store.put_person` / `person` / `update_person` / `add_casual_game` / `delete_person`
(service/infra/storage.py, "identity").

A seat taken by a signed-in person records `seat["person"]` (server-only: never in a view, a
frame, a summary or a log line of a game before its end: docs/rules.md, "Ranked play"). A room
whose `ranked` is true (`room["ranked"]`, set by the server only) seats each person once and refuses a seat without a session.
"""

from __future__ import annotations

from collections.abc import Callable

from ..infra.errors import ServiceError
from . import sessions

SIGN_IN_REQUIRED = ("sign_in_required", "a ranked room seats signed-in people only: sign in with a passkey")
BANNED = ("banned", "this account is banned")
PERSON_SEATED = ("person_seated", "you already hold a seat in this room")
# a socket carries no session: a ranked game's open seat is never taken over the socket
SUBSTITUTE_SIGN_IN = ("sign_in_required", "a ranked game's open seat is not taken from here: play ranked signed in")

# Called with (store, person id) by `delete`, before the person's partition goes: what else is
# kept of a person outside it (ratings, ladders: features that keep per-person items elsewhere).
ON_DELETE: list[Callable[[object, str], None]] = []


def new_person(now: int) -> dict:
    return {"id": sessions.new_person_id(), "created": int(now), "casualGames": 0, "banned": False, "coolDownUntil": 0}


def signed_in(store, session: str | None, now: int, key: bytes) -> dict | None:
    """The person record a session stands for, or None without a session (or with one that
    is forged, lapsed, signed out, or whose person was deleted). A banned person: 403 `banned`."""
    found = sessions.claims(session, now, key)
    if found is None or store.session_revoked(found.sid):
        return None
    person = store.person(found.person)
    if person is None:
        return None
    if person.get("banned"):
        raise ServiceError(*BANNED, 403)
    return person


def ranked(room: dict) -> bool:
    """Whether the room is ranked (`room["ranked"]`: set by the server when it makes the room,
    never by a host; no engine option, so no rule of the game changes)."""
    return bool(room.get("ranked"))


def seat_person(room: dict, person: dict | None) -> str | None:
    """The person id a new seat of `room` records, after the room's identity rules: a ranked
    room refuses a seat without a person (`sign_in_required`) and a person who holds a seat of
    it already (`person_seated`, any device, any socket). Raises before any change."""
    pid = person["id"] if person else None
    if ranked(room):
        if pid is None:
            raise ServiceError(*SIGN_IN_REQUIRED, 401)
        if any(seat.get("person") == pid for seat in room.get("players", [])):
            raise ServiceError(*PERSON_SEATED, 409)
    return pid


def note_person(seat: dict, person_id: str | None) -> None:
    """Record the person on a seat (nothing for an anonymous one)."""
    if person_id:
        seat["person"] = person_id


def delete(store, person_id: str) -> int:
    """"Delete me": every hook of `ON_DELETE`, then the person's partition (record, passkeys,
    anything kept under it). The number of items deleted there."""
    for hook in ON_DELETE:
        hook(store, person_id)
    return store.delete_person(person_id)


def ban(store, person_id: str, banned: bool = True) -> bool:
    """The operator's ban (or its lifting); False when there is no such person."""
    return store.update_person(person_id, {"banned": banned})
