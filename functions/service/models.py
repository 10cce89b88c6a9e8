"""Pydantic models of what clients send: REST bodies and the envelope of WebSocket frames."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from .errors import ServiceError

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=24)]
RoomCode = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9]{4,8}$")]


class CreateRoom(BaseModel):
    """`POST /rooms`: the host's name, the preset and its options."""

    model_config = ConfigDict(extra="forbid")
    name: Name
    preset: Literal["classic", "city", "original"] = "classic"
    options: dict[str, Any] = Field(default_factory=dict)
    lang: Literal["en", "ko", "ru"] = "en"


class JoinRoom(BaseModel):
    """`POST /rooms/{roomCode}/players`: the new player's name."""

    model_config = ConfigDict(extra="forbid")
    name: Name


class RoomCreated(BaseModel):
    roomCode: str
    playerId: str
    token: str
    wsUrl: str


class SeatCreated(BaseModel):
    playerId: str
    token: str
    wsUrl: str


class SetupError(BaseModel):
    code: str
    message: str


class PlayerSummary(BaseModel):
    id: str
    name: str
    ready: bool
    host: bool
    bot: bool
    connected: bool
    left: bool = False


class RoomSummary(BaseModel):
    roomCode: str
    preset: str
    options: dict[str, Any]
    status: Literal["lobby", "running", "ended"]
    phase: str
    host: str | None
    maxPlayers: int
    setupError: SetupError | None
    players: list[PlayerSummary]


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody


class Frame(BaseModel):
    """The envelope of every client frame; the payload keys stay as extra fields."""

    model_config = ConfigDict(extra="allow")
    action: Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,39}$")]
    id: Annotated[str, StringConstraints(max_length=64)] | int | None = None


_FRAME = TypeAdapter(Frame)


def parse_frame(raw: Any) -> dict:
    """A validated frame as a dict, or ServiceError("bad_frame")."""
    if not isinstance(raw, dict):
        raise ServiceError("bad_frame", "a frame is one JSON object")
    try:
        return _FRAME.validate_python(raw).model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "frame"
        raise ServiceError("bad_frame", f"{where}: {first.get('msg')}") from exc
