"""Client frames: one msgspec Struct per room operation, one for engine actions.

Every frame is validated once, by `parse_frame`: its `action` picks the room operation's
Struct from `ROOM_FRAMES`; any other action is an engine action (`EngineFrame`: the envelope is
checked here, the payload by the engine). Room operation frames forbid unknown keys, and every
frame is converted strictly (no "3" for 3, no 1.0 for 1, no 1 for true).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec

from . import names
from .errors import ServiceError, frame_refusal
from .roomcode import ROOM_CODE_PATTERN

ActionName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,39}$")]
FrameId = Annotated[str, msgspec.Meta(max_length=64)] | int | None
RoomHint = Annotated[str, msgspec.Meta(pattern=ROOM_CODE_PATTERN)]
ENVELOPE = ("action", "id", "room")
# An error on one of these fields gets this code and message (msgspec's wording otherwise).
REFUSALS = {
    "action": ("bad_frame", "'action' must be a letter then up to 39 letters, digits or '_'"),
    "id": ("bad_frame", "'id' must be an integer or a string of at most 64 characters"),
    "room": ("bad_frame", "'room' must be a room code (4 to 8 letters and digits)"),
    "ready": ("bad_frame", "'ready' must be true or false"),
    "options": ("bad_frame", "'options' must be an object"),
    "name": (names.BAD_NAME, "a name is a string"),
    "before": ("bad_frame", "'before' must be a whole number from 0 (the `from` of the last page)"),
}


class Envelope(msgspec.Struct, frozen=True, kw_only=True):
    """What every frame carries: `action`, the client's `id`, an optional room hint."""

    action: ActionName
    id: FrameId = None
    room: RoomHint | None = None  # routing hint for a cold container; checked against the room's items


class RoomFrame(Envelope, frozen=True, forbid_unknown_fields=True):
    """A room operation: its own fields only."""


class Sync(RoomFrame):
    """Send me my full view again."""

    action: Literal["sync"]


class Ready(RoomFrame):
    """Mark (or unmark) the sender ready in the lobby."""

    action: Literal["ready"]
    ready: bool = True


class SetOptions(RoomFrame):
    """Host: change the preset and options (clears every ready mark)."""

    action: Literal["setOptions"]
    options: dict[str, Any]
    preset: str | None = None


class Start(RoomFrame):
    """Host: start the game."""

    action: Literal["start"]


class Nudge(RoomFrame):
    """End phase `phase` if it is due (a client's countdown reached zero, or `room.wakeAt`)."""

    action: Literal["nudge"]
    phase: int | None = None


class Kick(RoomFrame):
    """Host: remove a player: from the lobby, or mid-game (the engine's `remove`)."""

    action: Literal["kick"]
    target: str | None = None


class Leave(RoomFrame):
    """Leave the room (lobby) or the game (running: the seat is given up)."""

    action: Literal["leave"]


class NewGame(RoomFrame):
    """Host: back to the lobby after the end, same seats."""

    action: Literal["newGame"]


class AddBot(RoomFrame):
    """Host: add a bot seat (named `Bot N` unless a name is given: the name rule, `bad_name`)."""

    action: Literal["addBot"]
    name: str | None = None

    def __post_init__(self) -> None:
        if self.name is not None:  # names.clean raises ServiceError, which msgspec lets through
            msgspec.structs.force_setattr(self, "name", names.clean(self.name))


class Ping(RoomFrame):
    """Heartbeat (every ~30 s): answered with `pong`; lets the room notice vanished sockets."""

    action: Literal["ping"]


class TakeHost(RoomFrame):
    """Take the room over once the host has been away long enough."""

    action: Literal["takeHost"]


class ChatLog(RoomFrame):
    """After the end: one page of the game's whole chat, the newest lines older than `before`."""

    action: Literal["chatLog"]
    before: Annotated[int, msgspec.Meta(ge=0)] | None = None


class EngineFrame(Envelope, frozen=True):
    """Any other action: handed to the engine, which validates the payload (the other keys).

    Built by `parse_frame` from a checked `Envelope` (`payload` is never read from a key)."""

    payload: dict[str, Any] = {}

    def engine_action(self, player: str) -> dict:
        """The engine action: the payload, `type` from `action`, `player` from the connection."""
        payload = {k: v for k, v in self.payload.items() if k not in ("type", "player")}
        return {**payload, "type": self.action, "player": player}


def _tag(frame: type[RoomFrame]) -> str:
    """The one `action` a room operation's Struct accepts (its `Literal`)."""
    return next(get_args(f.type)[0] for f in msgspec.structs.fields(frame) if f.name == "action")


ROOM_FRAMES: dict[str, type[RoomFrame]] = {
    _tag(frame): frame
    for frame in (
        Sync,
        Ready,
        SetOptions,
        Start,
        Nudge,
        Kick,
        Leave,
        NewGame,
        AddBot,
        TakeHost,
        Ping,
        ChatLog,
    )
}
ROOM_ACTIONS = frozenset(ROOM_FRAMES)


def parse_frame(raw: Any) -> RoomFrame | EngineFrame:
    """The validated frame, or ServiceError (`bad_frame`, or `bad_name` for an `addBot` name)."""
    if not isinstance(raw, dict):
        raise ServiceError("bad_frame", "a frame is one JSON object")
    action = raw.get("action")
    room_frame = ROOM_FRAMES.get(action) if isinstance(action, str) else None
    try:
        if room_frame is not None:
            return msgspec.convert(raw, room_frame, strict=True)
        envelope = msgspec.convert(raw, Envelope, strict=True)  # other keys: the engine's
    except msgspec.ValidationError as exc:
        raise frame_refusal(exc, REFUSALS) from exc
    payload = {k: v for k, v in raw.items() if k not in ENVELOPE}
    return EngineFrame(action=envelope.action, id=envelope.id, room=envelope.room, payload=payload)
