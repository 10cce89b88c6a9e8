"""Server frames: every frame the server sends over the socket is one of these models, and
`encode` is the one place they become bytes.

`view` (a connection's view, `views.py`), `patch` (the change to it, `patches.py`), `error` (a refused frame, or a seat closed:
`kicked`, `left`, `replaced`), `pong` (`connections.py`), `chatLog` (a page of the ended
game's chat, `chat_archive.py`), `reported` (`reports.py`) and `signal` (voice, `voice.py`). Key names and order are the
client's (web/js reads them; docs/protocol.md, "Server frames"); the JSON Schemas in
`docs/schemas/` are generated from these models (`schemas.py`).

Strict JSON out: pydantic writes a non-finite float as `null` (or as `NaN` with
`ser_json_inf_nan="constants"`), so `encode` writes constants and refuses any frame whose bytes
hold one (`ValueError`): a client's JSON parser never gets `NaN`. The check reads the bytes
again only when they contain "NaN" or "Infinity" at all (a chat line may).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter
from pydantic_core import from_json
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

# What a reply may echo of the client's `id` (`wire.echo_id` picks it; a model refuses more).
EchoId = Annotated[str, StringConstraints(max_length=64)] | int | None


class ServerFrame(BaseModel):
    """The base of every server frame (`type` says which)."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        ser_json_inf_nan="constants",
        # the published schema (docs/schemas/) describes what is sent: `type` is always there
        json_schema_serialization_defaults_required=True,
    )


class ViewPhase(BaseModel):
    """The phase every view names (the rest of the phase's keys depend on the preset)."""

    model_config = ConfigDict(frozen=True, extra="allow", ser_json_inf_nan="constants")

    kind: str = Field(
        description="lobby, roleReveal, greeting, discussion, vote, defense, confirm, night, ended, ..."
    )
    endsAt: float | None = Field(description="server epoch seconds, or null (paused, untimed, lobby, ended)")
    seq: int = Field(description="the phase counter (a nudge or a timeout carries it)")


class ViewPlayer(BaseModel):
    """One seat as this viewer may see it; also `seat`, `revealed`, `connected`, `ready`,
    `host`, `bot`, and what the engine's gate shows of its role (docs/protocol.md, "Views")."""

    model_config = ConfigDict(frozen=True, extra="allow", ser_json_inf_nan="constants")

    id: str
    name: str
    alive: bool


class You(BaseModel):
    """The viewer's own seat (null for spectators); also `team`, `alive`, `allies`."""

    model_config = ConfigDict(frozen=True, extra="allow", ser_json_inf_nan="constants")

    id: str
    role: str | None


class View(BaseModel):
    """Everything one connection may see (the engine's gate, `mafia_engine.view`, plus the room
    layer's `room` block); in a game also `paused`, `rules` and `review` (after the end)."""

    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        ser_json_inf_nan="constants",
        json_schema_extra={
            "properties": {
                "paused": {"description": "the host froze the clock: {left, by}, or null"},
                "rules": {"type": "object", "description": "the preset's public rules (rule flags)"},
                "review": {"description": "after the end: the whole game, every secret shown"},
                "fairness": {
                    "description": "the deal's commitment {scheme, commitment, seed, salt} from the start;"
                    " seed and salt are null until the end (docs/rules.md, 'A provably fair deal')"
                },
            }
        },
    )

    preset: str
    options: dict[str, Any]
    day: int
    phase: ViewPhase
    players: list[ViewPlayer]
    you: You | None
    private: Any = Field(
        description="this viewer's private data (one field of the same shape for every role)"
    )
    votes: Any
    chat: list[dict[str, Any]]
    channels: dict[str, list[str]]
    events: list[dict[str, Any]]
    result: dict[str, Any] | None
    roster: dict[str, int] | None
    room: dict[str, Any]


class Clocked(View):
    """A view as pushed: with the server's clock (`serverNow`, seconds) and its rate."""

    serverNow: float
    clockRate: float


class ViewFrame(ServerFrame):
    """`{"type": "view", "version": N, "view": {...}}`: whenever what this connection may see changed."""

    type: Literal["view"] = "view"
    version: int = Field(description="increases with every view this connection is sent")
    view: Clocked


class PatchFrame(ServerFrame):
    """`{"type": "patch", "version": N, "ops": [...], "serverNow", "clockRate"}`: instead of a view,
    to a connection that asked for patches and holds version N - 1 (docs/protocol.md, "Patches")."""

    type: Literal["patch"] = "patch"
    version: int = Field(description="this viewer's version after the patch: the one held + 1")
    ops: list[dict[str, Any]] = Field(
        description="RFC 6902 operations turning the view of version N - 1 (without serverNow and "
        "clockRate) into the view of version N"
    )
    serverNow: float
    clockRate: float


class ErrorFrame(ServerFrame):
    """A refused frame (to its sender only), or a seat closed (`kicked`, `left`, `replaced`)."""

    type: Literal["error"] = "error"
    id: EchoId = Field(description="the refused frame's `id` when it was a valid one, else null")
    code: str
    message: str


class Pong(ServerFrame):
    """The answer to `ping`."""

    type: Literal["pong"] = "pong"
    id: EchoId


class ChatLogPage(ServerFrame):
    """One page of the ended game's whole chat (`chatLog`), oldest line first."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    type: Literal["chatLog"] = "chatLog"
    id: EchoId
    lines: list[dict[str, Any]]
    from_: int = Field(alias="from", ge=0, description="the `before` of the next older page (0: none)")


class ReportReceipt(ServerFrame):
    """What a reporter learns back: that it is filed, about whom, why."""

    id: str
    target: str
    reason: str


class Reported(ServerFrame):
    """The answer to `report`."""

    type: Literal["reported"] = "reported"
    id: EchoId
    report: ReportReceipt


class SeatFrame(ServerFrame):
    """The answer to `takeSeat`, to the substitute's connection only: the seat's new token
    (kept in that browser like a REST seat's; docs/rules.md, "Substitutes")."""

    type: Literal["seat"] = "seat"
    id: EchoId
    player: str = Field(description="the seat's player id (unchanged in the game)")
    token: str = Field(description="the seat's new token; the old one stopped working")
    room: str


class SeatPending(ServerFrame):
    """The answer to `takeSeat` while the host must approve each substitute, to the asking
    connection only: the request waits for the host's tap (`approveSeat`); then a `seat`
    frame, or an error `seat_refused` (docs/rules.md, "Substitutes")."""

    type: Literal["seatPending"] = "seatPending"
    id: EchoId
    request: str = Field(description="the request's id, as the host's view lists it")
    player: str = Field(description="the open seat asked for")


class DisplayFrame(ServerFrame):
    """The answer to `display`, to the host's connection only: the room's display key, which
    the host's "Show on a screen" link carries (service/room/displays.py). It is in no view."""

    type: Literal["display"] = "display"
    id: EchoId
    room: str
    key: str = Field(description="the display key: `?room=CODE&display=KEY` opens the room as a screen")
    gen: int = Field(
        description="how many times the host revoked the screens when this key was current (views' `room.displayGen`): "
        "an answer with a lower count is older than the one shown"
    )
    screens: int = Field(description="screens connected now")
    narrator: bool = Field(description="whether the screens' narrator speaks (also `room.narrator` in views)")


class SignalFrame(ServerFrame):
    """Voice: a WebRTC offer, answer or ICE candidate from seat `from` (or from a listening
    spectator's `L…` id: an answer, an ICE candidate or `listen`, its ask for an offer),
    relayed to this seat's (this spectator's) connections only (the client frame `signal`;
    docs/protocol.md, "Voice signaling")."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    type: Literal["signal"] = "signal"
    from_: str = Field(
        alias="from", description="the sending seat's player id, or a listening spectator's random `L…` id"
    )
    kind: Literal["offer", "answer", "ice", "listen"]
    sdp: str | None = Field(default=None, description="offer, answer: the session description")
    candidate: dict[str, Any] | None = Field(default=None, description="ice: one ICE candidate")


class IceServersFrame(ServerFrame):
    """Voice: the ICE servers this connection's peer connections use (the client frame
    `iceServers`; service/features/turn.py), sent to that connection only and never logged."""

    type: Literal["iceServers"] = "iceServers"
    id: EchoId
    iceServers: list[dict[str, Any]] = Field(
        description="`RTCIceServer`s: the TURN servers with this connection's own short-lived "
        "credential (username `<expiry>:<ROOM>.<seat>`); empty when the stack runs no TURN"
    )
    iceTransportPolicy: Literal["relay", "all"] = Field(
        description="`relay` in public and anonymous rooms (strangers: no address but a relay's "
        "is passed on), else `all`"
    )
    expires: int | None = Field(default=None, description="when the credential expires (Unix seconds)")


SERVER_FRAMES: tuple[type[ServerFrame], ...] = (
    ViewFrame,
    PatchFrame,
    ErrorFrame,
    Pong,
    ChatLogPage,
    Reported,
    SeatFrame,
    SeatPending,
    DisplayFrame,
    SignalFrame,
    IceServersFrame,
)


def _strict(raw: bytes) -> bytes:
    if b"NaN" in raw or b"Infinity" in raw:
        from_json(raw, allow_inf_nan=False)  # ValueError on a NaN/Infinity constant, not on text
    return raw


def encode(frame: BaseModel) -> bytes:
    """The frame's compact UTF-8 JSON; ValueError if a number in it is not finite."""
    return _strict(frame.__pydantic_serializer__.to_json(frame, by_alias=True))


# ---------------------------------------------------------------- the view frame, serialised once
# A push builds one view per viewer and sends it only if its fingerprint changed, so the view is
# serialised once (`render_view`) and those bytes are both what is fingerprinted and what the
# frame carries (`view_frame`): the frame is not a second model of the same data, serialised
# again. pydantic cannot embed pre-serialised JSON in a model's output, so the frame is the
# view's bytes between the envelope's and the clock's, each serialised by its declared type;
# tests/functions/test_view_bytes.py checks the result is byte for byte `encode(ViewFrame(...))`.
class RenderedView(NamedTuple):
    """A view serialised by `View`: its declared keys (`fields`) and the others (`extra`), each
    a JSON object (`{}`: none). `Clocked` writes `serverNow` and `clockRate` between the two.
    `parts`: each top-level key and its own `{"key": value}` bytes, in the body's order (the
    body is their members joined): a patch compares the view with the one held key by key and
    parses only the keys whose bytes changed (`patches.diff_parts`)."""

    fields: bytes
    extra: bytes
    parts: tuple[tuple[str, bytes], ...] = ()

    @property
    def body(self) -> bytes:
        """The view's JSON, as `encode(view)` writes it."""
        return self.fields if self.extra == b"{}" else self.fields[:-1] + b"," + self.extra[1:]


def _members(parts: list[tuple[str, bytes]]) -> bytes:
    return b"{" + b",".join(raw[1:-1] for _, raw in parts) + b"}"


_ONLY: dict[str, set[str]] = {}  # key -> {key}: the `include` of its part, made once per key


def _only(key: str) -> set[str]:
    got = _ONLY.get(key)
    if got is None:
        got = _ONLY[key] = {key}
    return got


_VIEW_KEYS = tuple(View.model_fields)
_VIEW_FIELDS = frozenset(_VIEW_KEYS)


def render_view(view: View) -> RenderedView:
    """The view's two parts, serialised key by key (each key by the model's own serializer,
    `include`: the same bytes as the whole, tests/functions/test_view_bytes.py); ValueError if
    a number in it is not finite."""
    ser = view.__pydantic_serializer__
    keys = _VIEW_KEYS if type(view) is View else tuple(type(view).model_fields)
    declared = [(k, ser.to_json(view, include=_only(k))) for k in keys]
    extra = [(k, ser.to_json(view, include=_only(k))) for k in view.__pydantic_extra__ or ()]
    out = RenderedView(_members(declared), _members(extra), (*declared, *extra))
    _strict(out.fields)  # a constant is in one part or none: checked on the whole
    _strict(out.extra)
    return out


class _Envelope(TypedDict):
    type: Literal["view"]
    version: int


class ServerClock(BaseModel):
    """`Clocked`'s two keys, validated (the server's own clock: a non-finite one is refused)."""

    model_config = ConfigDict(frozen=True, strict=True, allow_inf_nan=False)

    serverNow: float
    clockRate: float


# The frame's other keys, ViewFrame's `type` and `version`: numbers the server itself counts.
_ENVELOPE = TypeAdapter(_Envelope)


def view_frame(version: int, view: RenderedView, at: ServerClock) -> bytes:
    """`encode(ViewFrame(version=version, view=Clocked(**view, **at)))`, from the view's bytes."""
    envelope = _ENVELOPE.dump_json({"type": "view", "version": version})
    clock = encode(at)
    extra = b"}" if view.extra == b"{}" else b"," + view.extra[1:]
    return b"".join((envelope[:-1], b',"view":', view.fields[:-1], b",", clock[1:-1], extra, b"}"))
