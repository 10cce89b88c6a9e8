"""The REST API's bodies and answers, as msgspec Structs (WebSocket frames: `frames.py`).

One declaration serves three purposes: `handlers/rest.py` converts each request body into its
Struct (strict types, unknown fields refused), answers are converted through theirs (so an
answer never carries a key the API does not declare), and `handlers/openapi.py` writes
`docs/openapi.json` from the same Structs at build time. msgspec rather than pydantic keeps
the REST cold start as light as the socket handlers' (issue 15 §5).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from mafia_engine.presets import PRESETS

from . import names
from .errors import ServiceError, quote

# Checked by the name rule (`names.clean`, code `bad_name`), not by msgspec: the schema only
# documents the bounds of a stored name.
Name = Annotated[str, msgspec.Meta(extra_json_schema={"minLength": 1, "maxLength": names.NAME_MAX})]
PresetName = Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(PRESETS)})]
Lang = Literal["en", "ko", "ru"]


class Body(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A request body naming a player: the name rule applies to `name`."""

    name: Name

    def __post_init__(self) -> None:
        try:  # a ServiceError goes through msgspec as it is: name the field ourselves
            msgspec.structs.force_setattr(self, "name", names.clean(self.name))
        except ServiceError as exc:
            raise ServiceError(exc.code, f"name: {exc.message}", exc.status) from None


class CreateRoom(Body, frozen=True):
    """`POST /rooms`: the host's name, the preset and its options, the room's language."""

    preset: PresetName = "classic"
    options: dict[str, Any] = {}
    lang: Lang = "en"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.preset not in PRESETS:  # read at each request: a preset registered later is known too
            raise ServiceError(
                "bad_request", f"preset: unknown preset {quote(self.preset)} (one of {', '.join(PRESETS)})"
            )


class JoinRoom(Body, frozen=True):
    """`POST /rooms/{roomCode}/players`: the new player's name."""


class RoomCreated(msgspec.Struct, frozen=True):
    """The new room: its code, the host's seat (`p1`) and secret token, and where to connect."""

    roomCode: str
    playerId: str
    token: str
    wsUrl: str


class SeatCreated(msgspec.Struct, frozen=True):
    """The new seat and its secret token (keep it: it is the only way back into the seat)."""

    playerId: str
    token: str
    wsUrl: str


class SetupError(msgspec.Struct, frozen=True):
    """Why the lobby cannot start yet (e.g. `too_few_players`)."""

    code: str
    message: str


class PlayerSummary(msgspec.Struct, frozen=True):
    """A seat as anyone may see it: no token, no role."""

    id: str
    name: str
    ready: bool
    host: bool
    bot: bool
    connected: bool
    left: bool = False


class RoomSummary(msgspec.Struct, frozen=True):
    """`GET /rooms/{roomCode}`: the public lobby summary."""

    roomCode: str
    preset: str
    options: dict[str, Any]
    status: Literal["lobby", "running", "ended"]
    phase: str
    host: str | None
    maxPlayers: int
    setupError: SetupError | None
    players: list[PlayerSummary]
    removed: Annotated[
        list[str],
        msgspec.Meta(
            description="ids of the seats the host removed (newest last, at most 32): a device "
            "refused at connect reads here that its seat was removed"
        ),
    ] = []


class Error(msgspec.Struct, frozen=True):
    """A refusal: a short machine `code` and a human `message`."""

    code: str
    message: str


class ErrorAnswer(msgspec.Struct, frozen=True):
    """Every error answer's body."""

    error: Error
