"""Every action the engine accepts, as one pydantic discriminated union on ``type``.

Validated once through the module-level ``ACTION`` TypeAdapter (strict types, extra fields
forbidden); anything malformed is refused with code ``bad_action``. City/original actions
are added to the union here when those presets arrive.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .errors import InvalidAction

CHANNELS = ("day", "mafia", "dead", "lovers", "system")


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _PlayerAction(_Action):
    player: str


class Chat(_PlayerAction):
    type: Literal["chat"]
    channel: Literal["day", "mafia", "dead", "lovers", "system"]
    text: str


class AdjustTime(_PlayerAction):
    type: Literal["adjustTime"]
    delta: Literal[15, -15]


class Vote(_PlayerAction):
    type: Literal["vote"]
    target: str  # a player id or "abstain"


class Confirm(_PlayerAction):
    type: Literal["confirm"]
    choice: Literal["yes", "no"]


class MafiaTarget(_PlayerAction):
    type: Literal["mafiaTarget"]
    target: str | None


class Investigate(_PlayerAction):
    type: Literal["investigate"]
    target: str


class Heal(_PlayerAction):
    type: Literal["heal"]
    target: str


class MediumPeek(_PlayerAction):
    type: Literal["mediumPeek"]
    target: str


class ReadyEarly(_PlayerAction):
    type: Literal["readyEarly"]


class Presence(_PlayerAction):
    type: Literal["presence"]
    connected: bool


class PhaseTimeout(_Action):
    type: Literal["phaseTimeout"]
    phase: int | None = None  # phase_seq the timeout belongs to
    player: str | None = None  # ignored: who nudged (the server checks its own clock)


Action = Annotated[
    Chat
    | AdjustTime
    | Vote
    | Confirm
    | MafiaTarget
    | Investigate
    | Heal
    | MediumPeek
    | ReadyEarly
    | Presence
    | PhaseTimeout,
    Field(discriminator="type"),
]

ACTION: TypeAdapter[Any] = TypeAdapter(Action)

ACTION_TYPES = (
    "chat",
    "adjustTime",
    "vote",
    "confirm",
    "mafiaTarget",
    "investigate",
    "heal",
    "mediumPeek",
    "readyEarly",
    "presence",
    "phaseTimeout",
)


def parse(raw: Any) -> Any:
    """The validated action model, or InvalidAction(bad_action) naming the problem."""
    if not isinstance(raw, dict):
        raise InvalidAction("bad_action", "an action must be an object with a 'type'")
    try:
        return ACTION.validate_python(raw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "action"
        raise InvalidAction(
            "bad_action", f"bad action {raw.get('type')!r}: {where}: {err.get('msg')}"
        ) from None
