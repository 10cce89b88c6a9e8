"""The pieces of a view and its bytes, each a leaf that `viewframes.py` (where a connection's frame
is made: `viewframes.view_of`, `viewframes.frames_for`) calls; none calls another module back.

The pieces: the engine's view of one viewer (`game_view`, `lobby_view` before the game), the
room's own facts (`room_block`, `player_facts`) as the room holds them, before the anonymous
games' gate. The bytes: `render` serialises a view (without `serverNow`) once, by the declared
models of `server_frames.py`; `digest` fingerprints those bytes, so "did this viewer's view
change?" is one comparison with the digest stored at the last write; `frame` adds
`serverNow`/`clockRate` and wraps them in the `{"type": "view", ...}` frame. Also the preset's
description (`preset_info`, `shown_options`) and every WebSocket error frame (`error_frame`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import mafia_engine as me

from ..infra import clock
from . import server_frames
from .quoting import tidy

# Views carry the most recent chat messages only: the engine keeps up to 60 day + 40 system
# (+ night channels) messages, which would make every push ~10 KB; 40 keeps pushes small
# (older messages are in the chat archive items).
VIEW_CHAT_LIMIT = 40


def preset_info(preset: str) -> dict:
    """The engine's description of this room's preset (its own min/max players and defaults),
    asked per call: a preset registered after the first call is known too.

    ValueError for a preset the engine has not registered (a room is created with a known one)."""
    info = me.presets(only=preset).get(preset)
    if info is None:
        raise ValueError(f"unknown preset {preset!r}")
    return info


def shown_options(preset: str, options: dict) -> dict:
    """The full options shown in the lobby: the preset's defaults overlaid with the host's choices."""
    return {**preset_info(preset)["defaults"], **options, "preset": preset}


def room_block(room: dict, setup_error: dict | None, idle: list[str] | None = None) -> dict:
    """The view's `room` block as the room itself holds it; the room's features add theirs
    (`featureset.view`: the screens' `narrator` and `screens`, a public
    lobby's `autoStartAt`, the substitutes' facts, ...). Not gated: `viewframes.view_of`
    passes it through the anonymous games' gate."""
    return {
        "code": room["code"],
        "host": room.get("host"),
        "hostAwaySince": room.get("hostAwaySince"),
        "status": room["status"],
        "scores": dict(room.get("scores") or {}),  # player id -> games won in this room
        "setupError": setup_error,
        # lobby: switched-on options that change no role at this player count (setup.idle_options)
        "idleOptions": list(idle or []),
        "lang": room.get("lang", "en"),  # the room's language: a screen speaks and reads in it (displays.py)
    }


def player_facts(room: dict, connected: set[str]) -> dict[str, dict]:
    """Each seat's room facts (player id -> name, presence, ready mark, host and bot flags)
    as the room holds them. Not gated: `viewframes.view_of` passes them through the anonymous
    games' gate."""
    return {
        p["id"]: {
            "name": p["name"],
            "connected": p["id"] in connected,
            "ready": bool(p.get("ready")),
            "host": p["id"] == room.get("host"),
            "bot": bool(p.get("bot")),
        }
        for p in room["players"]
    }


def lobby_view(room: dict, viewer: str | None) -> dict:
    """The engine's view before the start (``me.lobby_view``: the same top-level keys as a
    game view), without the room's facts (`viewframes.view_of` adds them)."""
    ids = [p["id"] for p in room["players"]]
    return me.lobby_view(ids, {**room["options"], "preset": room["preset"]}, viewer)


def game_view(state: Any, viewer: str | None) -> dict:
    """The engine's view for `viewer` (its gate: `mafia_engine.view`) with the most recent
    chat only, without the room's facts (`viewframes.view_of` adds them)."""
    view = dict(me.view(state, viewer))
    if len(view.get("chat") or ()) > VIEW_CHAT_LIMIT:
        view["chat"] = view["chat"][-VIEW_CHAT_LIMIT:]
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
