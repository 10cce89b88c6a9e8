"""Pydantic models of the REST API: request bodies and answers (WebSocket frames: `frames.py`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from mafia_engine.presets import PRESETS

from . import names
from .errors import ServiceError, quote


def _name(value: Any) -> str:
    """The name rule (`names.clean`) as a pydantic check; a refusal keeps its `bad_name` type."""
    try:
        return names.clean(value)
    except ServiceError as exc:
        raise PydanticCustomError(names.BAD_NAME, "{reason}", {"reason": exc.message}) from None


Name = Annotated[
    str,
    BeforeValidator(_name),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": names.NAME_MAX}),
]


def _known_preset(name: str) -> str:
    if name not in PRESETS:  # read at each request: a preset registered later is known too
        raise ValueError(f"unknown preset {quote(name)} (one of {', '.join(PRESETS)})")
    return name


PresetName = Annotated[
    str, AfterValidator(_known_preset), WithJsonSchema({"type": "string", "enum": list(PRESETS)})
]


class CreateRoom(BaseModel):
    """`POST /rooms`: the host's name, the preset and its options."""

    model_config = ConfigDict(extra="forbid")
    name: Name
    preset: PresetName = "classic"
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
    removed: list[str] = Field(
        default_factory=list,
        description="ids of the seats the host removed (newest last, at most 32): a device "
        "refused at connect reads here that its seat was removed",
    )
