"""Client frames: one pydantic model per room operation, one for engine actions.

Every frame is validated once, through the module-level `FRAME` adapter: a union
discriminated on `action` (room operations by name; any other action is an engine action,
whose payload the engine validates). Room operation frames forbid unknown keys.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    StringConstraints,
    Tag,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from .errors import ServiceError, frame_refusal
from .names import BAD_NAME, Name
from .rest_ops import ROOM_CODE_PATTERN

ActionName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,39}$")]
FrameId = Annotated[str, StringConstraints(max_length=64)] | int | None
RoomHint = Annotated[str, StringConstraints(pattern=ROOM_CODE_PATTERN)]
ENGINE = "engine"  # the discriminator tag of every action that is not a room operation


class RoomFrame(BaseModel):
    """The envelope every frame shares: `action`, the client's `id`, an optional room hint."""

    # Validated only through `FRAME`, which builds every frame's schema once (defer: not
    # twice at a cold start).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    action: ActionName
    id: FrameId = None
    room: RoomHint | None = None  # routing hint for a cold container; checked against the room's items


class Sync(RoomFrame):
    """Send me my full view again."""

    action: Literal["sync"]


def _must_be(kind: type, message: str) -> BeforeValidator:
    """A field check whose refusal is `message` itself (type "frame"), not pydantic's wording."""

    def check(value: Any) -> Any:
        if not isinstance(value, kind):
            raise PydanticCustomError("frame", message)
        return value

    return BeforeValidator(check)


class Ready(RoomFrame):
    """Mark (or unmark) the sender ready in the lobby."""

    action: Literal["ready"]
    ready: Annotated[bool, _must_be(bool, "'ready' must be true or false")] = True


class SetOptions(RoomFrame):
    """Host: change the preset and options (clears every ready mark)."""

    action: Literal["setOptions"]
    options: Annotated[dict[str, Any], _must_be(dict, "'options' must be an object")]
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
    """Host: add a bot seat (named `Bot N` unless a name is given)."""

    action: Literal["addBot"]
    name: Name | None = None


class Ping(RoomFrame):
    """Heartbeat (every ~30 s): answered with `pong`; lets the room notice vanished sockets."""

    action: Literal["ping"]


class TakeHost(RoomFrame):
    """Take the room over once the host has been away long enough."""

    action: Literal["takeHost"]


class EngineFrame(BaseModel):
    """Any other action: handed to the engine, which validates the payload (extra keys)."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)
    action: ActionName
    id: FrameId = None
    room: RoomHint | None = None

    def engine_action(self, player: str) -> dict:
        """The engine action: the payload, `type` from `action`, `player` from the connection."""
        payload = {k: v for k, v in (self.model_extra or {}).items() if k not in ("type", "player")}
        return {**payload, "type": self.action, "player": player}


ROOM_FRAMES: tuple[type[RoomFrame], ...] = (
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
)
ROOM_ACTIONS = frozenset(get_args(m.model_fields["action"].annotation)[0] for m in ROOM_FRAMES)


def _tag(value: Any) -> str:
    action = value.get("action") if isinstance(value, dict) else getattr(value, "action", None)
    return action if action in ROOM_ACTIONS else ENGINE


AnyFrame = Annotated[
    Annotated[EngineFrame, Tag(ENGINE)]
    | Annotated[Sync, Tag("sync")]
    | Annotated[Ready, Tag("ready")]
    | Annotated[SetOptions, Tag("setOptions")]
    | Annotated[Start, Tag("start")]
    | Annotated[Nudge, Tag("nudge")]
    | Annotated[Kick, Tag("kick")]
    | Annotated[Leave, Tag("leave")]
    | Annotated[NewGame, Tag("newGame")]
    | Annotated[AddBot, Tag("addBot")]
    | Annotated[TakeHost, Tag("takeHost")]
    | Annotated[Ping, Tag("ping")],
    Discriminator(_tag),
]
FRAME: TypeAdapter[RoomFrame | EngineFrame] = TypeAdapter(AnyFrame)


def parse_frame(raw: Any) -> RoomFrame | EngineFrame:
    """The validated frame, or ServiceError("bad_frame") naming the first problem."""
    if not isinstance(raw, dict):
        raise ServiceError("bad_frame", "a frame is one JSON object")
    try:
        return FRAME.validate_python(raw)
    except ValidationError as exc:
        raise frame_refusal(exc, skip=1, own_codes=(BAD_NAME,)) from exc
