"""Client frames: one pydantic model per frame, room operations and engine actions in ONE
discriminated union on `action`, decoded once from the raw text (`decode`).

Every model is frozen, strict (no "3" for 3, no 1.0 for 1, no 1 for true) and forbids
unknown keys. A room operation's model is declared here; an engine action's frame model is
made from the engine's own action model (`mafia_engine.actions.LIBRARY`, and each registered
preset's `Preset.action_models`, so a preset's own action reaches the wire): the same fields
and rules, `action` for `type`, the actor taken from the connection (a `player` or `type` key
a client sends is accepted and ignored). What a frame needs is class-level metadata read
by everyone who used to keep a list of action names:

- `needs`: who may send it (`access.actor`, the one check): any connection of the room, a
  player, or the host; an engine action's own model refines it (its `sender`);
- `route`: what answers it (the protocol document's list says so): `operation` (a command
  of `operations.py`), `heartbeat` (`connections.heartbeat`, answered with a pong), `archive`
  (`chat_archive.chat_log`, which reads the archive items too) or `engine` (the engine
  applies `action`); every room frame's command is in the one registry,
  `operations.OPERATIONS`, and the pipeline (`pipeline.py`) runs them all alike;
- `asks_gateway`: ask API Gateway which sockets vanished before the change (`takeHost`).

The registry (`FRAMES`), `ROOM_ACTIONS`, the fuzz generator's frame list
(`tests/hostile_frames.py`), the protocol document's list and the JSON Schemas in
`docs/schemas/` (`schemas.py`) are all derived from these models.

Strict JSON (docs/protocol.md, "Frames"): pydantic's JSON parser refuses lone surrogates,
nesting deeper than its recursion limit and invalid UTF-8, and strict models refuse a
non-finite number in any typed field; the one free-form field (`setOptions.options`) and
the ignored keys are checked by `plain_json` (finite numbers, at most `wire.MAX_DEPTH`
levels). A refused frame is read again by the standard library (`wire.loads`) only to name
the problem with the codes and messages of docs/protocol.md and to echo a valid `id`.
"""

from __future__ import annotations

import builtins
import math
import re
from typing import Annotated, Any, ClassVar, Literal, Union, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from mafia_engine import actions as engine_actions
from mafia_engine.errors import quoted
from mafia_engine.presets import PRESETS

from ..infra import auth
from ..infra.errors import ServiceError
from . import names, sdp, wire
from .roomcode import ROOM_CODE_PATTERN

Route = Literal["operation", "heartbeat", "archive", "engine", "signal"]
Need = Literal["connection", "player", "host"]
ACTION_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,39}$"
_ACTION = re.compile(ACTION_PATTERN)
FrameId = Annotated[str, StringConstraints(max_length=64)] | int | None
RoomHint = Annotated[str, StringConstraints(pattern=ROOM_CODE_PATTERN)]
# the random key a device keeps and sends with takeSeat and its connects (one person, one seat)
DeviceKey = Annotated[str, StringConstraints(pattern=auth.DEVICE_PATTERN)]
MAX_FRAME_BYTES = 8 * 1024  # every frame but a voice signal (`Frame.max_bytes`)
MAX_SIGNAL_BYTES = 8 * 1024  # a voice signal: one audio SDP (`sdp.MAX_SDP_CHARS`) and its JSON
MAX_SDP_CHARS = sdp.MAX_SDP_CHARS
# An error on one of these fields gets this code and message (the model's own wording otherwise).
REFUSALS = {
    "action": ("bad_frame", "'action' must be a letter then up to 39 letters, digits or '_'"),
    "id": ("bad_frame", "'id' must be an integer or a string of at most 64 characters"),
    "room": ("bad_frame", "'room' must be a room code (4 to 8 letters and digits)"),
    "ready": ("bad_frame", "'ready' must be true or false"),
    "options": ("bad_frame", "'options' must be an object"),
    "name": (names.BAD_NAME, "a name is a string"),
    "seat": ("bad_frame", "'seat' must be a player id such as p4"),
    "former": ("bad_frame", "'former' must be a token"),
    "device": ("bad_frame", "'device' must be a device key (16 to 64 letters, digits, '-' or '_')"),
    "request": ("bad_frame", "'request' must be a seat request id such as r3"),
    "approve": ("bad_frame", "'approve' must be true or false"),
    "commitment": ("bad_commitment", "'commitment' must be a SHA-256 as 64 lowercase hex digits"),
    "value": ("bad_reveal", "'value' must be 16 to 32 random bytes as lowercase hex"),
    "before": ("bad_frame", "'before' must be a whole number from 0 (the `from` of the last page)"),
    "to": ("bad_frame", "'to' must be a player id such as p4"),
    "kind": ("bad_frame", "'kind' must be offer, answer or ice"),
    "phase": ("bad_frame", "'phase' must be a whole number from 0 (the view's phase.seq)"),
    "sdp": (
        "bad_frame",
        f"'sdp' must be an audio-only session description of known lines, at most {MAX_SDP_CHARS} characters",
    ),
    "candidate": (
        "bad_frame",
        "'candidate' must be one ICE candidate {candidate, sdpMid?, sdpMLineIndex?, usernameFragment?}",
    ),
}


def plain_json(value: Any) -> Any:
    """A free-form value as strict JSON allows it: finite numbers, at most `wire.MAX_DEPTH`
    levels (iterative: a deep value is refused, never walked recursively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            raise ValueError("numbers must be finite")
        if isinstance(node, dict | list):
            if depth > wire.MAX_DEPTH:
                raise ValueError(f"nested deeper than {wire.MAX_DEPTH} levels")
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return value


PlainJson = Annotated[Any, AfterValidator(plain_json)]


class Frame(BaseModel):
    """What every frame carries: `action`, the client's `id`, an optional room hint."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False, defer_build=True)

    route: ClassVar[Route] = "operation"
    needs: ClassVar[Need] = "player"
    asks_gateway: ClassVar[bool] = False
    max_bytes: ClassVar[int] = MAX_FRAME_BYTES  # the raw frame's size cap (`too_large`)

    action: str
    id: FrameId = None
    # routing hint for a cold container; checked against the room's items
    room: RoomHint | None = None

    @classmethod
    def tag(cls) -> str:
        """The one `action` this model accepts (its one-value `Literal`)."""
        return get_args(cls.model_fields["action"].annotation)[0]


class Sync(Frame):
    """Send me my full view again."""

    needs: ClassVar[Need] = "connection"

    action: Literal["sync"]


class Ready(Frame):
    """Mark (or unmark) the sender ready in the lobby."""

    action: Literal["ready"]
    ready: bool = True


class SetOptions(Frame):
    """Host: change the preset and options (clears every ready mark)."""

    needs: ClassVar[Need] = "host"

    action: Literal["setOptions"]
    options: dict[str, PlainJson]
    preset: str | None = None


class Start(Frame):
    """Host: start the game."""

    needs: ClassVar[Need] = "host"

    action: Literal["start"]


class Nudge(Frame):
    """End phase `phase` if it is due (a client's countdown reached zero)."""

    needs: ClassVar[Need] = "connection"

    action: Literal["nudge"]
    phase: int | None = None


class Kick(Frame):
    """Host: remove a player: from the lobby, or mid-game (the engine's `remove`)."""

    needs: ClassVar[Need] = "host"

    action: Literal["kick"]
    target: str | None = None


class Leave(Frame):
    """Leave the room (lobby) or the game (running: the seat is given up)."""

    action: Literal["leave"]


class DealCommit(Frame):
    """Lobby: commit to a random value of this phone's for the deal (docs/rules.md,
    "Randomness"): `commitment` = SHA-256 of `mafia-deal-v3-client:<value>` (64 lowercase hex
    digits), the value 16 to 32 bytes from `crypto.getRandomValues`, kept on the phone until
    the start. A new commitment replaces the seat's own until the start asks for the values."""

    action: Literal["dealCommit"]
    commitment: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class DealReveal(Frame):
    """At the start (`room.deal.revealUntil` set): reveal the value this seat committed to; it
    must hash to the seat's commitment (`bad_reveal`)."""

    action: Literal["dealReveal"]
    value: Annotated[str, StringConstraints(pattern=r"^(?:[0-9a-f]{2}){16,32}$")]


class NewGame(Frame):
    """Host: back to the lobby after the end, same seats."""

    needs: ClassVar[Need] = "host"

    action: Literal["newGame"]


class AddBot(Frame):
    """Host: add a bot seat (named `Bot N` unless a name is given: the name rule, `bad_name`)."""

    needs: ClassVar[Need] = "host"

    action: Literal["addBot"]
    # names.clean raises ServiceError(bad_name), which pydantic lets through
    name: Annotated[str, AfterValidator(names.clean)] | None = None


class Ping(Frame):
    """Heartbeat (every ~30 s): answered with `pong`; lets the room notice vanished sockets."""

    needs: ClassVar[Need] = "connection"

    route: ClassVar[Route] = "heartbeat"
    action: Literal["ping"]


class TakeHost(Frame):
    """Take the room over once the host has been away long enough."""

    asks_gateway: ClassVar[bool] = True  # the host's sockets may have vanished without $disconnect
    action: Literal["takeHost"]


class ChatLog(Frame):
    """After the end: one page of the game's whole chat, the newest lines older than `before`."""

    needs: ClassVar[Need] = "connection"

    route: ClassVar[Route] = "archive"
    action: Literal["chatLog"]
    before: Annotated[int, Field(ge=0)] | None = None


class TakeSeat(Frame):
    """Take over an open seat as its substitute (a connection holding no seat; the host's
    option `substitutes`): answered with a `seat` frame carrying the seat's new token, or,
    while the host must approve (`substituteApproval`), a `seatPending` frame first.
    `former`: a token this browser held in this room before, if any; `device`: the key this
    device keeps (web/js/session.js). A seat that died, left or was removed, or a device that
    held a seat of this game, cannot take one (docs/rules.md, "Substitutes")."""

    needs: ClassVar[Need] = "connection"

    action: Literal["takeSeat"]
    seat: Annotated[str, StringConstraints(pattern=r"^p[0-9]{1,3}$")]
    name: Annotated[str, AfterValidator(names.clean)]
    former: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$")] | None = None
    device: DeviceKey | None = None


class ApproveSeat(Frame):
    """Host: approve (`approve: true`) or refuse a newcomer's request for an open seat (the
    host's view lists them as `room.seatRequests`); a refused seat stays open."""

    needs: ClassVar[Need] = "host"

    action: Literal["approveSeat"]
    request: Annotated[str, StringConstraints(pattern=r"^r[0-9]{1,9}$")]
    approve: bool = True


class Display(Frame):
    """Host: the room's display key, for "Show on a screen" (service/room/displays.py), answered
    with a `display` frame to the host's connection only; `revoke` draws a new key and closes
    every screen; `narrator` switches the screens' narrator on or off (public: `room.narrator`)."""

    needs: ClassVar[Need] = "host"

    action: Literal["display"]
    revoke: bool = False
    narrator: bool | None = None


class IceCandidate(BaseModel):
    """One ICE candidate as `RTCIceCandidate.toJSON()` writes it (`candidate` "" ends them)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    candidate: Annotated[str, StringConstraints(max_length=sdp.MAX_CANDIDATE_CHARS)]
    sdpMid: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,32}$")] | None = None
    sdpMLineIndex: Annotated[int, Field(ge=0, le=0)] | None = None  # one audio section
    usernameFragment: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+/]{1,256}$")] | None = None

    @field_validator("candidate")
    @classmethod
    def _an_ice_candidate(cls, value: str) -> str:
        if not sdp.candidate_ok(value):
            raise ValueError("not an ICE candidate line")
        return value


class Signal(Frame):
    """Voice: a WebRTC offer or answer (`sdp`) or one ICE candidate (`candidate`) for seat `to`
    (or, from a seat, for a listening spectator's `L…` id), relayed to that seat's (that
    spectator's) connections as a `signal` frame only while the voice policy lets the two
    exchange audio (`mafia_engine.voice_pair`, `voice_to_spectators`; docs/rules.md, "Voice");
    else `voice_not_permitted`. `listen` (no payload): a spectator asks a seat whose voice it
    hears for an offer. Never stored; rate-limited per connection (`voice.py`)."""

    route: ClassVar[Route] = "signal"
    max_bytes: ClassVar[int] = MAX_SIGNAL_BYTES

    action: Literal["signal"]
    to: Annotated[str, StringConstraints(pattern=r"^(p[0-9]{1,3}|L[A-Za-z0-9_-]{22})$")]
    kind: Literal["offer", "answer", "ice", "listen"]
    sdp: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SDP_CHARS)] | None = None
    candidate: IceCandidate | None = None

    @field_validator("sdp")
    @classmethod
    def _a_session_description(cls, value: str | None) -> str | None:
        if value is not None and (why := sdp.why_not(value)) is not None:
            raise ValueError(why)
        return value

    @model_validator(mode="after")
    def _one_payload(self) -> Signal:
        if self.kind == "listen":
            if self.candidate is not None or self.sdp is not None:
                raise ValueError("a listen signal carries no 'sdp' and no 'candidate'")
        elif self.kind == "ice":
            if self.candidate is None or self.sdp is not None:
                raise ValueError("an ice signal carries one 'candidate' and no 'sdp'")
        elif self.sdp is None or self.candidate is not None:
            raise ValueError(f"an {self.kind} signal carries an 'sdp' and no 'candidate'")
        return self


class IceServers(Frame):
    """Voice: this connection's ICE servers, answered with an `iceServers` frame to it alone
    (a short-lived TURN credential and the room's transport policy: relay only in public and
    anonymous rooms; service/features/turn.py). A seat once the game has started, or a
    listening spectator; else `voice_closed` or `spectator`. Nothing is written."""

    needs: ClassVar[Need] = "connection"

    action: Literal["iceServers"]


ROOM_FRAMES: tuple[type[Frame], ...] = (
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
    TakeSeat,
    ApproveSeat,
    Display,
    Signal,
    IceServers,
    DealCommit,
    DealReveal,
)
ROOM_ACTIONS = frozenset(f.tag() for f in ROOM_FRAMES)


class EngineFrame(Frame):
    """An engine action sent by a player: the engine model's fields, `action` for its `type`.

    `model` is the engine's action model; `engine_action` makes it with the connection's
    player as the actor. `player` and `type` keys are accepted and ignored (the server takes
    the actor from the connection, never from the payload: docs/protocol.md "WebSocket")."""

    route: ClassVar[Route] = "engine"
    model: ClassVar[builtins.type[engine_actions.Action]]  # `type` is a field here

    player: PlainJson = Field(
        default=None, exclude=True, description="ignored: the actor is the connection's player"
    )
    type: PlainJson = Field(default=None, exclude=True, description="ignored: the type is `action`")
    # the `phase.seq` of the view the action was made in (optional): another phase refuses it
    # `stale_phase`, so a tap repeated or resent after a reconnect never lands in a later turn
    phase: Annotated[int, Field(ge=0)] | None = Field(
        default=None, exclude=True, description="the phase.seq the action was made in"
    )

    def engine_action(self, player: str) -> engine_actions.Action:
        """The engine's action model, validated already (the same fields, the same rules)."""
        fields = {k: getattr(self, k) for k in self.model.model_fields if k not in ("type", "player")}
        return self.model.model_construct(type=self.tag(), player=player, **fields)


def _engine_frame(model: type[engine_actions.Action]) -> type[EngineFrame]:
    tag = engine_actions.type_of(model)
    own = {
        k: (info.annotation, info) for k, info in model.model_fields.items() if k not in ("type", "player")
    }
    frame = create_model(
        f"{model.__name__}Frame",
        __base__=EngineFrame,
        __doc__=model.__doc__ or f"The engine action `{tag}`.",
        action=(Literal[tag], ...),
        **own,
    )
    frame.model = model
    return frame


class FrameSet:
    """The client frames of the presets registered now: the room operations, then one engine
    frame per action of the shared library (`mafia_engine.actions.LIBRARY`) and per action a
    registered preset declares itself (`Preset.action_models`), in one discriminated union."""

    __slots__ = ("presets", "engine_frames", "frames", "adapter")

    def __init__(self, presets: tuple[Any, ...]) -> None:
        self.presets = presets
        models = {engine_actions.type_of(m): m for m in engine_actions.LIBRARY}
        for preset in presets:  # a type two presets declare: the first one's frame carries it
            for m in preset.action_models:
                models.setdefault(engine_actions.type_of(m), m)
        # A room operation and an engine action of one name (`leave`): the room operation answers.
        self.engine_frames: tuple[type[EngineFrame], ...] = tuple(
            _frame_of(m) for t, m in models.items() if t not in ROOM_ACTIONS
        )
        self.frames: dict[str, type[Frame]] = {f.tag(): f for f in (*ROOM_FRAMES, *self.engine_frames)}
        union = Annotated[Union[tuple(self.frames.values())], Field(discriminator="action")]  # noqa: UP007
        self.adapter = TypeAdapter(union)  # a few ms, once per set of registered presets


_FRAME_OF: dict[type, type[EngineFrame]] = {}  # engine model -> its frame, made once
_CURRENT: FrameSet | None = None


def _frame_of(model: type[engine_actions.Action]) -> type[EngineFrame]:
    frame = _FRAME_OF.get(model)
    if frame is None:
        frame = _FRAME_OF[model] = _engine_frame(model)
    return frame


def current() -> FrameSet:
    """The frames of the presets registered now, built on the first frame and again only when
    a preset is registered or removed (every built-in preset is loaded for it)."""
    global _CURRENT
    presets = tuple(PRESETS.values())
    known = _CURRENT
    if (
        known is None
        or len(known.presets) != len(presets)
        or any(a is not b for a, b in zip(known.presets, presets, strict=True))
    ):
        known = _CURRENT = FrameSet(presets)
    return known


def adapter() -> TypeAdapter:
    """The union's `TypeAdapter` for the presets registered now (`current`)."""
    return current().adapter


def __getattr__(name: str) -> Any:
    """`FRAMES` (tag -> frame model) and `ENGINE_FRAMES`: those of the presets registered now."""
    if name == "FRAMES":
        return current().frames
    if name == "ENGINE_FRAMES":
        return current().engine_frames
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def decode(raw: str | bytes | bytearray) -> Frame:
    """The validated frame from the raw text, or ServiceError (`bad_frame`, `bad_unicode`,
    `bad_action`, `bad_name`) with `frame_id` set to the id to echo, when there is one."""
    try:
        return adapter().validate_json(raw)
    except ValidationError as exc:
        raise refusal(raw, exc) from None
    except ServiceError as exc:  # a field's own rule (names.clean)
        exc.frame_id = _id_of(raw)
        raise


def _id_of(raw: str | bytes | bytearray) -> Any:
    try:
        return wire.echo_id(wire.loads(raw, "bad_frame"))
    except ServiceError:
        return None


def refusal(
    raw: str | bytes | bytearray,
    exc: ValidationError,
    model: type[Frame] | None = None,
    refusals: dict[str, tuple[str, str]] = REFUSALS,
) -> ServiceError:
    """Why a frame was refused, in the words of docs/protocol.md: read again strictly
    (`wire.loads`: not JSON, not Unicode, non-finite, too deep), else the first model error
    (of the union, or of `model` when that one model was validated)."""
    try:
        value = wire.loads(raw, "bad_frame")
    except ServiceError as err:
        return err
    if not isinstance(value, dict):
        out = ServiceError("bad_frame", "a frame is one JSON object")
    else:
        out = _model_refusal(value, exc, model, refusals)
        out.frame_id = wire.echo_id(value)
    return out


def _model_refusal(
    value: dict, exc: ValidationError, one: type[Frame] | None, refusals: dict[str, tuple[str, str]]
) -> ServiceError:
    first = exc.errors(include_url=False, include_context=False)[0]
    kind, loc = first["type"], first["loc"]
    action = value.get("action")
    if one is not None:  # one model: no tag in the error's location
        loc = (one.tag(), *loc)
        if loc[1:2] == ("action",):
            return ServiceError(*refusals.get("action", REFUSALS["action"]))
        models = {one.tag(): one}
    else:
        models = current().frames
    if kind == "union_tag_not_found":
        return ServiceError("bad_frame", "a frame needs an 'action'")
    if kind == "union_tag_invalid":
        if not _action_shaped(action):
            return ServiceError(*REFUSALS["action"])
        return ServiceError("bad_action", f"unknown action type {quoted(action)}")
    model = models.get(loc[0]) if loc else None
    field = loc[1] if len(loc) > 1 else None
    if model is not None and field is None and kind == "value_error":  # a whole-model rule (`Signal`)
        return ServiceError(
            "bad_frame", f"bad frame {action!r}: {first['msg'].removeprefix('Value error, ')}"
        )
    if model is None or field is None:
        return ServiceError("bad_frame", "not a valid frame")
    if field in refusals and field in model.model_fields:
        return ServiceError(*refusals[field])
    why = engine_actions.explain(exc, value, model, skip=0 if one is not None else 1)
    if issubclass(model, EngineFrame):
        return ServiceError("bad_action", f"bad action {action!r}: {why}")
    return ServiceError("bad_frame", f"bad frame {action!r}: {why}")


def _action_shaped(action: Any) -> bool:
    return isinstance(action, str) and _ACTION.fullmatch(action) is not None
