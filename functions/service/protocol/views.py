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
import marshal
from typing import Any

from pydantic import BaseModel, create_model

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


def game_views(state: Any, viewers: list[str | None]) -> dict[str | None, dict]:
    """`game_view` for each of `viewers` at once (`mafia_engine.views`): the views share their
    public part, the same objects (each set of readable channels' recent chat too), so
    `render` with one `seen` writes each shared part once. Read-only below the top level: a
    view's own keys may be replaced (the features' facts), never edited in place."""
    out = me.views(state, viewers)
    recent: dict[int, tuple[list, list]] = {}  # id(chat) -> (that chat, its recent part)
    for view in out.values():
        chat = view.get("chat") or ()
        if len(chat) > VIEW_CHAT_LIMIT:
            hit = recent.get(id(chat))
            if hit is None:  # held beside its part: the id is never another list's meanwhile
                hit = recent[id(chat)] = (chat, chat[-VIEW_CHAT_LIMIT:])
            view["chat"] = hit[1]
    return out


def model(view: dict | server_frames.View) -> server_frames.View:
    """The view as its declared model (validated once; ValueError if it is not a view).

    Validation, not `model_construct`: pydantic-core builds the nested models in one call,
    where `model_construct` runs Python per model and took longer here (bench/views.py)."""
    return view if isinstance(view, server_frames.View) else server_frames.View.model_validate(view)


def render(
    view: dict | server_frames.View, shared: dict | None = None, seen: dict | None = None
) -> server_frames.RenderedView:
    """The view (without serverNow) serialised once by its model: what "changed?" hashes and
    what `frame` sends.

    `shared`: the parts already rendered (`PARTS`, kept by this process: `viewframes.frames_for`
    passes it), so a key whose value is one already rendered (the rules, the options, the
    phase, the public chat: most of a view, for every viewer and from one change to the next)
    is validated and serialised once, and only what is new or differs per viewer (`you`,
    `private`, the seats as each may see them, a new chat line) is rendered (`_part`). The
    bytes are the same as without it (tests/functions/test_view_bytes.py).

    `seen`: one change's parts by the identity of their value (`game_views` hands every view
    the same public objects): a value already written for another viewer of the change is
    not fingerprinted again. Empty at the start of the change, dropped at its end, and only
    for views nobody edits in between.

    ValueError for a non-finite number in it: a frame is strict JSON or not sent."""
    if shared is None or type(view) is not dict or not _DECLARED.issubset(view):
        return server_frames.render_view(model(view))  # a model, or a view short of a key: refused there
    declared = [(k, _part(k, view[k], shared, seen)) for k in _KEYS]
    extra = [(k, _part(k, v, shared, seen)) for k, v in view.items() if k not in _DECLARED]
    return server_frames.RenderedView(_members(declared), _members(extra), (*declared, *extra))


# ---------------------------------------------------------------- a view's parts, each on its own
# One model per declared key of `server_frames.View` (the same field, the same config) and one
# for the others (extra="allow", as `View`): `{"key": value}` validated and serialised by it is
# the part `render_view` writes for that key (the model's own serializer with `include`).
_KEYS = tuple(server_frames.View.model_fields)
_DECLARED = frozenset(_KEYS)
_CONFIG = {k: v for k, v in server_frames.View.model_config.items() if k != "json_schema_extra"}
_PART_MODELS: dict[str, type[BaseModel]] = {
    k: create_model(f"ViewPart_{k}", __config__=_CONFIG, **{k: (f.annotation, f)})
    for k, f in server_frames.View.model_fields.items()
}
_EXTRA_MODEL = create_model("ViewPart_extra", __config__=_CONFIG)


# (key, fingerprint) -> the part's bytes; every viewer's, of every room this process served: a
# part is a function of its key and value only, so whose it was does not matter. PARTS_KEPT
# bounds it (a few MB at most: parts are ~3 KB at the largest)
PARTS: dict[tuple[str, bytes], bytes] = {}
PARTS_KEPT = 2048


def _members(parts: list[tuple[str, bytes]]) -> bytes:
    return b"{" + b",".join(raw[1:-1] for _, raw in parts) + b"}"


def _part(key: str, value: Any, shared: dict, seen: dict | None = None) -> bytes:
    """`{"key": value}` as the view's model writes it: validated and serialised by the key's
    model the first time its value is seen (`_fingerprint`; a string, a whole number, a flag or
    null by its type and itself, without writing it), taken from `shared` after; a value this
    change wrote already (the same object, `seen`), taken from there."""
    t = type(value)
    if t in _SCALARS:
        seen_as: Any = (t, value)
    else:
        mine = None if seen is None else seen.get((key, id(value)))
        if mine is not None and mine[0] is value:
            return mine[1]
        seen_as = _fingerprint(value)
    raw = None if seen_as is None else shared.get((key, seen_as))
    if raw is None:
        m = _PART_MODELS.get(key, _EXTRA_MODEL).model_validate({key: value})
        raw = server_frames._strict(m.__pydantic_serializer__.to_json(m))
        if seen_as is not None:
            if len(shared) >= PARTS_KEPT:
                shared.clear()  # bounded: start again (a dict's own operations are safe across threads)
            shared[(key, seen_as)] = raw
    if seen is not None and t not in _SCALARS:
        seen[(key, id(value))] = (value, raw)  # held beside its bytes: its id is never another's meanwhile
    return raw


# Scalars a part is keyed by as themselves: hashable, and type-strict with their type beside
# them (True and 1 apart); never a float (0.0 == -0.0, and NaN is never equal to itself).
_SCALARS = frozenset((str, int, bool, type(None)))


def _fingerprint(value: Any) -> bytes | None:
    """The value as `marshal` writes it (in C, no validation, no JSON): type-strict where ==
    is not (True, 1 and 1.0 each by its own type code, -0.0 and NaN by their bits, a dict's
    keys in their order), and only the exact built-in types (a subclass, an enum member, any
    other object is refused: never shared). Two values with the same fingerprint load back
    from it to the same value, so they are the same input to the key's model and get the
    same bytes from it (never kept, never read back here). Equal values may be written apart
    (marshal marks an object referenced elsewhere): that is one more rendering, never a wrong
    part. About a third less CPU than writing the value's JSON with pydantic-core's `to_json`
    (docs/operations.md, "Handler CPU and latency"). None for what it cannot write."""
    try:
        return _marshal(value)
    except ValueError:
        return None


_marshal = marshal.dumps


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
