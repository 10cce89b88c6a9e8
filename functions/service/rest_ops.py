"""The REST side of a room: create it, take a seat in its lobby, read its public summary."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import mafia_engine as me

from . import aliases, auth, fairness, substitutes, views
from .change import Context, Outcome
from .errors import ServiceError
from .operations import new_seat, next_player_id, require_room_for
from .roomcode import ROOM_ALPHABET, ROOM_CODE_LENGTH
from .setup import require_valid_options, room_setup_error
from .storage import Store
from .telemetry import logger

if TYPE_CHECKING:
    from .pipeline import Pipeline

CODE_TRIES = 20


def create_room(store: Store, ws_url: str, name: str, preset: str, options: dict, lang: str) -> dict:
    """A new room with its creator as host and first player (p1)."""
    options = dict(options)
    options.pop("preset", None)
    require_valid_options(preset, options, 1)
    token = auth.new_token()
    room = {
        "preset": preset,
        "options": options,
        "status": "lobby",
        "host": "p1",
        "nextId": 2,
        "seed": fairness.new_secret(),  # the game's secret: every random draw derives from it
        "lang": lang,
        "players": [new_seat("p1", name, auth.hash_token(token))],
        "views": {},
        "timer": None,
        "archive": {"seq": 0, "first": 1, "buffers": {}},
    }
    for _ in range(CODE_TRIES):
        code = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_LENGTH))
        room["code"] = code
        if store.create(code, room):
            logger.info("room created", extra={"room": code, "player": "p1"})
            return {"roomCode": code, "playerId": "p1", "token": token, "wsUrl": ws_url}
    raise ServiceError("busy", "could not find a free room code", 503)


def join_room(pipeline: Pipeline, ws_url: str, code: str, name: str, device: str | None = None) -> dict:
    """A new seat in a lobby: the next player id and a fresh token. `device`: the key the
    joining device keeps; a device that holds a seat of this room takes no second one."""
    token = auth.new_token()

    def change(c: Context) -> Outcome:
        if c.room["status"] != "lobby":
            raise ServiceError("already_started", "the game has already started", 409)
        require_room_for(c.room, name, 409)
        if substitutes.played(c.room, device):  # one person, one seat (docs/rules.md, "Substitutes")
            raise ServiceError("device_seated", "this device already holds a seat in this room", 409)
        pid = next_player_id(c.room)
        c.room["players"].append(new_seat(pid, name, auth.hash_token(token)))
        substitutes.note_device(c.room["players"][-1], device)
        if c.room.get("host") is None:  # everyone left the lobby: the newcomer runs it
            c.room["host"] = pid
        return c.changed(result={"playerId": pid, "token": token, "wsUrl": ws_url})

    out = pipeline.run(code, change)
    logger.info("player joined", extra={"room": code, "player": out["playerId"]})
    return out


def summary(pipeline: Pipeline, code: str) -> dict:
    """The public lobby summary (no tokens, no roles)."""
    snap = pipeline.load(code)
    room = snap.room
    connected = {p for p in snap.conns.values() if p}
    phase = "lobby"
    if snap.state is not None:
        phase = (me.dump(me.load(snap.state)).get("phase") or {}).get("kind", "unknown")
    # an anonymous game: every field through the one gate (aliases.gate)
    return aliases.summary(
        room,
        {
            "roomCode": room["code"],
            "preset": room["preset"],
            "options": views.shown_options(room["preset"], room["options"]),
            "status": room["status"],
            "phase": phase,
            "host": room["host"],
            "maxPlayers": views.preset_info(room["preset"])["maxPlayers"],
            "setupError": room_setup_error(room) if room["status"] == "lobby" else None,
            "players": [
                {
                    "id": p["id"],
                    "name": p["name"],
                    "ready": bool(p.get("ready")),
                    "host": p["id"] == room["host"],
                    "bot": bool(p.get("bot")),
                    "connected": p["id"] in connected,
                    "left": bool(p.get("left")),  # left a running game: the seat is closed
                }
                for p in room["players"]
            ],
            # seats the host removed (ids only): a refused device learns why its seat is gone
            "removed": list(room.get("removed", [])),
        },
    )
