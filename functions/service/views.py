"""Per-connection views: the engine's view of one viewer, plus room data the engine doesn't know.

`build` returns the view WITHOUT `serverNow`; `digest` fingerprints it so "did this viewer's
view change?" is one comparison with the digest stored at the last write; `frame` adds
`serverNow`/`clockRate` and wraps it in the `{"type": "view", ...}` frame. The view is
serialised once, by the declared models of `server_frames.py` (`render`): the fingerprint and
the frame share those bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any

import mafia_engine as me

from . import aliases, botplay, clock, server_frames
from .quoting import tidy
from .setup import idle_options

SPECTATOR = "*"  # viewer key for spectators in digests
# Views carry the most recent chat messages only: the engine keeps up to 60 day + 40 system
# (+ night channels) messages, which would make every push ~10 KB; 40 keeps pushes small
# (older messages are in the chat archive items).
VIEW_CHAT_LIMIT = 40
_PRESETS: dict | None = None


def preset_info(preset: str) -> dict:
    """The engine's description of a preset (min/max players, defaults), cached per process."""
    global _PRESETS
    if _PRESETS is None:
        _PRESETS = me.presets()
    return _PRESETS.get(preset) or {"maxPlayers": 16, "minPlayers": 1, "defaults": {}}


def shown_options(preset: str, options: dict) -> dict:
    """The full options shown in the lobby: the preset's defaults overlaid with the host's choices."""
    return {**preset_info(preset).get("defaults", {}), **options, "preset": preset}


def room_block(
    room: dict,
    setup_error: dict | None,
    kind: str | None = None,
    idle: list[str] | None = None,
    viewer: str | None = None,
) -> dict:
    block = {
        "code": room["code"],
        "host": room.get("host"),
        "hostAwaySince": room.get("hostAwaySince"),
        "status": room["status"],
        # the bots' next public tick (phase start + k * step, the same for every viewer in
        # every phase: docs/architecture.md, "Bots"); null in the lobby
        "wakeAt": botplay.wake_at(room) if kind is not None else None,
        "scores": dict(room.get("scores") or {}),  # player id -> games won in this room
        "setupError": setup_error,
        # lobby: switched-on options that change no role at this player count (setup.idle_options)
        "idleOptions": list(idle or []),
    }
    return aliases.room_facts(room, block, viewer)  # anonymous games: no host seat, no scores


def _player_extras(room: dict, connected: set[str], viewer: str | None = None) -> dict[str, dict]:
    extras = {
        p["id"]: {
            "name": p["name"],
            "connected": p["id"] in connected,
            "ready": bool(p.get("ready")),
            "host": p["id"] == room.get("host"),
            "bot": bool(p.get("bot")),
        }
        for p in room["players"]
    }
    return aliases.facts(room, extras, viewer)  # anonymous games: aliases for names


def lobby_view(room: dict, connected: set[str], viewer: str | None, setup_error: dict | None) -> dict:
    """The view before the start (phase.kind "lobby"), same top-level keys as a game view."""
    extras = _player_extras(room, connected)
    players = [
        {"id": p["id"], "seat": i + 1, "alive": True, "revealed": None, **extras[p["id"]]}
        for i, p in enumerate(room["players"])
    ]
    you = None
    if viewer is not None:
        you = {"id": viewer, "role": None, "team": None, "alive": True, "allies": []}
    return {
        "preset": room["preset"],
        "options": shown_options(room["preset"], room["options"]),
        # the host's own options: the shown ones carry every default, and a default alias
        # (classic's noVoteDayOne) would contradict a host's choice (firstPhase night)
        "roster": me.lobby_roster({**room["options"], "preset": room["preset"]}, len(players)),
        "day": 0,
        "phase": {"kind": "lobby", "endsAt": None, "seq": 0},
        "players": players,
        "you": you,
        "private": None,
        "votes": None,
        "chat": [],
        "channels": {"read": [], "write": []},
        "events": [],
        "result": None,
        "room": room_block(
            room, setup_error, idle=idle_options(room["preset"], room["options"], len(players))
        ),
    }


def game_view(state: Any, room: dict, connected: set[str], viewer: str | None) -> dict:
    """The engine's view for `viewer` with names, presence, ready and host merged in."""
    view = dict(me.view(state, viewer))
    if len(view.get("chat") or ()) > VIEW_CHAT_LIMIT:
        view["chat"] = view["chat"][-VIEW_CHAT_LIMIT:]
    extras = _player_extras(room, connected, viewer)
    view["players"] = [{**p, **extras.get(p.get("id"), {})} for p in view.get("players", [])]
    view["room"] = room_block(room, None, (view.get("phase") or {}).get("kind"), viewer=viewer)
    return view


def model(view: dict | server_frames.View) -> server_frames.View:
    """The view as its declared model (validated once; ValueError if it is not a view).

    Validation, not `model_construct`: pydantic-core builds the nested models in one call,
    where `model_construct` runs Python per model and took longer here (bench/views.py)."""
    return view if isinstance(view, server_frames.View) else server_frames.View.model_validate(view)


def render(view: dict | server_frames.View) -> server_frames.RenderedView:
    """The view (without serverNow) serialised once by its model: what "changed?" hashes and
    what `frame` sends.

    ValueError for a non-finite number in it: a frame is strict JSON or not sent."""
    return server_frames.render_view(model(view))


def digest(view: dict | server_frames.View | server_frames.RenderedView) -> str:
    """A short fingerprint of a view (without serverNow)."""
    raw = view if isinstance(view, server_frames.RenderedView) else render(view)
    return hashlib.blake2b(raw.body, digest_size=8).hexdigest()


def server_clock() -> server_frames.ServerClock:
    """The server's clock as a view frame carries it (ValueError if it is not finite)."""
    return server_frames.ServerClock(serverNow=round(clock.now(), 3), clockRate=float(clock.rate()))


def frame(
    view: dict | server_frames.View | server_frames.RenderedView,
    version: int,
    at: server_frames.ServerClock | None = None,
) -> bytes:
    """The `{"type": "view", "version": N, "view": {...}}` frame with the server's clock added
    (`at`: read once for a whole fan-out; by default, now)."""
    rendered = view if isinstance(view, server_frames.RenderedView) else render(view)
    return server_frames.view_frame(version, rendered, at if at is not None else server_clock())


def error_frame(frame_id: Any, code: str, message: str) -> bytes:
    """Every WebSocket error frame: the message quotes at most a short prefix of any input."""
    return server_frames.encode(server_frames.ErrorFrame(id=frame_id, code=code, message=tidy(message)))
