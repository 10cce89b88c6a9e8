"""Server frames: every frame the server sends over the socket is one of these models, and
`encode` is the one place they become bytes.

`view` (a connection's view, `views.py`), `error` (a refused frame, or a seat closed:
`kicked`, `left`, `replaced`), `pong` (`connections.py`), `chatLog` (a page of the ended
game's chat, `chat_archive.py`) and `reported` (`reports.py`). Key names and order are the
client's (web/js reads them; docs/protocol.md, "Server frames"); the JSON Schemas in
`docs/schemas/` are generated from these models (`schemas.py`).

Strict JSON out: pydantic writes a non-finite float as `null` (or as `NaN` with
`ser_json_inf_nan="constants"`), so `encode` writes constants and refuses any frame whose bytes
hold one (`ValueError`): a client's JSON parser never gets `NaN`. The check reads the bytes
again only when they contain "NaN" or "Infinity" at all (a chat line may).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic_core import from_json

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


SERVER_FRAMES: tuple[type[ServerFrame], ...] = (ViewFrame, ErrorFrame, Pong, ChatLogPage, Reported)


def encode(frame: BaseModel) -> bytes:
    """The frame's compact UTF-8 JSON; ValueError if a number in it is not finite."""
    raw = frame.__pydantic_serializer__.to_json(frame, by_alias=True)
    if b"NaN" in raw or b"Infinity" in raw:
        from_json(raw, allow_inf_nan=False)  # ValueError on a NaN/Infinity constant, not on text
    return raw
