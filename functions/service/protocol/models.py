"""The REST API's bodies and answers, as pydantic models (WebSocket frames: `frames.py`).

One declaration serves three purposes: Powertools' `APIGatewayRestResolver(enable_validation=True)`
(`handlers/rest.py`) validates each request body into its model (strict types, unknown fields
refused), answers are serialized through theirs (so an answer never carries a key the API does
not declare), and the resolver writes `docs/openapi.json` from the same models
(`scripts/openapi.py`).

A refusal raised here is a `PydanticCustomError` whose type is our error code (`bad_name`,
`bad_request`): `handlers/rest.py` answers it with that code, without matching message text.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from mafia_engine.presets import PRESETS

from ..infra.auth import DEVICE_PATTERN
from ..infra.errors import ServiceError, quote
from . import names
from .roomcode import PARTY_PATTERN


class Model(BaseModel):
    """Strict (`"3"` is not 3), closed (unknown fields refused), immutable; built on first use,
    not at import (`defer_build`: a cold start builds only the models its request needs)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class Answer(BaseModel):
    """An answer: keys the service adds but the model does not declare are dropped."""

    model_config = ConfigDict(frozen=True, defer_build=True)


def _name(raw: Any) -> str:
    """The name rule (`service/protocol/names.py`, shared with the WebSocket frames) as a validator."""
    try:
        return names.clean(raw)
    except ServiceError as exc:
        raise PydanticCustomError(exc.code, "{reason}", {"reason": exc.message}) from None


def _preset(name: str) -> str:
    if name not in PRESETS:  # read at each request: a preset registered later is known too
        raise PydanticCustomError(
            "bad_request",
            "unknown preset {preset} (one of {known})",
            {"preset": quote(name), "known": ", ".join(PRESETS)},
        )
    return name


# The schema documents the bounds of a stored name; the rule itself is `names.clean`.
Name = Annotated[str, BeforeValidator(_name), Field(min_length=1, max_length=names.NAME_MAX)]
PresetName = Annotated[str, AfterValidator(_preset), Field(json_schema_extra={"enum": list(PRESETS)})]
Lang = Literal["en", "ko", "ru"]


class Body(Model):
    """A request body naming a player: the name rule applies to `name`."""

    name: Name


class CreateRoom(Body):
    """`POST /rooms`: the host's name, the preset and its options, the room's language, and the
    key the creating device keeps (`device`, optional: its budget of new rooms, service/features/limits.py)."""

    preset: PresetName = "classic"
    options: dict[str, Any] = {}
    lang: Lang = "en"
    device: Annotated[str, Field(pattern=DEVICE_PATTERN)] | None = None


class JoinRoom(Body):
    """`POST /rooms/{roomCode}/players`: the new player's name, and the key the joining device
    keeps (`device`, optional): a device that holds a seat of the room takes no second one."""

    device: Annotated[str, Field(pattern=DEVICE_PATTERN)] | None = None


class QuickPlay(Body):
    """`POST /quickplay`: the player's name, the language to play in, the preset (optional: any),
    and the key the joining device keeps (`device`, optional, as a join's: one person, one seat;
    its quick-play budget and leaver cool-down); `party` (optional): play again with a table."""

    lang: Lang = "en"
    preset: PresetName | None = None
    device: Annotated[str, Field(pattern=DEVICE_PATTERN)] | None = None
    party: Annotated[str, Field(pattern=PARTY_PATTERN)] | None = Field(
        default=None,
        description="an ended public game's `room.party`: play again with that table (one new public lobby)",
    )
    ranked: bool = Field(
        default=False,
        description="Play ranked: a signed-in person's seat in an anonymous ranked lobby of similar "
        "rating (the session required; docs/rules.md, \"Ranked play\")",
    )


class PublicRoom(Answer):
    """A listed public lobby (or, on the "Watch now" page, a running public game: `status`
    "running") as anyone may see it."""

    roomCode: str
    lang: str
    preset: str
    seats: int = Field(description="seats taken (people and bots)")
    maxPlayers: int
    status: Literal["lobby", "running"]


class PublicRooms(Answer):
    """`GET /rooms?public=1`: one page of the listed lobbies, fullest first; `cursor` (opaque)
    asks for the next page, null on the last."""

    rooms: list[PublicRoom]
    cursor: str | None


class RoomCreated(Answer):
    """The new room: its code, the host's seat (`p1`) and secret token, and where to connect."""

    roomCode: str
    playerId: str
    token: str
    wsUrl: str


class SeatCreated(Answer):
    """The new seat and its secret token (keep it: it is the only way back into the seat)."""

    playerId: str
    token: str
    wsUrl: str


class SetupError(Answer):
    """Why the lobby cannot start yet (e.g. `too_few_players`)."""

    code: str
    message: str


class PlayerSummary(Answer):
    """A seat as anyone may see it: no token, no role."""

    id: str
    name: str
    ready: bool
    host: bool
    bot: bool
    connected: bool
    left: bool = False
    alias: dict[str, str] | None = Field(
        default=None,
        description="anonymous games, after the start: the seat's alias per language (en, ko, ru); "
        "while the game runs `name` is the alias in the room's language",
    )


class RoomSummary(Answer):
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
    removed: list[str] = Field(
        default=[],
        description="ids of the seats the host removed (newest last, at most 32): a device "
        "refused at connect reads here that its seat was removed",
    )


SeatFateName = Literal["held", "handedOn", "removed", "left", "unknown", "gone"]


class SeatFate(Answer):
    """`POST /rooms/{roomCode}/fate`: what became of the seat a token held, told only to the
    token's holder (docs/protocol.md, "REST"): the same one key for every answer, never a seat
    id, a name, who took it or whether a bot did."""

    fate: SeatFateName = Field(
        description="held: the token still holds its seat; handedOn: the seat was handed on "
        "(an idle seat, or a substitute took it); removed: the host removed it; left: its player "
        "left the game; unknown: this token holds no seat of this room (a wrong token too); "
        "gone: there is no such room any more"
    )


class Error(Answer):
    """A refusal: a short machine `code` and a human `message`; a `429` also says in how many
    seconds to try again (`retryAfter`, as the `Retry-After` header)."""

    code: str
    message: str
    retryAfter: int | None = None


class ErrorAnswer(Answer):
    """Every error answer's body."""

    error: Error


# ---------------------------------------------------------------- ranked play (service/ranked/)
Tier = Literal["placement", "bronze", "silver", "gold", "platinum", "diamond"]


class LadderRow(Answer):
    """One person on a ladder: their public handle (never their person id), points, games, tier."""

    handle: str
    points: int
    games: int
    tier: Tier


class Ladder(Answer):
    """`GET /ladder`: one page of a season's ladder in a language, most points first; `cursor`
    (opaque) asks for the next page, null on the last."""

    lang: str
    season: str
    rows: list[LadderRow]
    cursor: str | None


class Standing(Answer):
    """A rating as players read it: points, tier ("placement" for the first games)."""

    points: int
    tier: Tier
    placementLeft: int
    games: int


class RankedGame(Answer):
    """One of a person's ranked games: its room (the review's link), when, the move."""

    room: str
    at: float
    season: str
    preset: str
    lang: str
    won: bool
    delta: int
    after: Standing


class PersonPage(Answer):
    """`GET /people/{handle}`: a person's season standing in a language and last ranked games."""

    handle: str
    season: str
    lang: str
    standing: Standing
    games: list[RankedGame]
