"""Every action the engine accepts, as one pydantic discriminated union on ``type``.

Validated once through the module-level ``ACTION`` TypeAdapter (strict types, extra fields
forbidden); anything malformed is refused with code ``bad_action``. The union holds the
actions the registered presets name (``build``), so ``ACTION_TYPES`` is never kept by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .errors import InvalidAction

CHANNELS = ("day", "mafia", "yakuza", "dead", "lovers", "system")


class _Action(BaseModel):
    # Validated only through the union (``ACTION``), which builds each model's schema: the
    # models' own validators are built on first direct use, not at import (a cold start).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class _PlayerAction(_Action):
    player: str


class Chat(_PlayerAction):
    type: Literal["chat"]
    channel: Literal["day", "mafia", "yakuza", "dead", "lovers", "system"]
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


class SeenRole(_PlayerAction):
    """Role reveal: the player has seen their card (the reveal ends once everyone has)."""

    type: Literal["seenRole"]


class Presence(_PlayerAction):
    type: Literal["presence"]
    connected: bool


class Sleep(_PlayerAction):
    """City/original night: confirm sleep (citizens) or skip whatever is left to do."""

    type: Literal["sleep"]


class EndTurn(_PlayerAction):
    """Original speech: end the turn without a nomination; city/original defense: done speaking."""

    type: Literal["endTurn"]


class Nominate(_PlayerAction):
    """Original speech: the speaker ends the turn naming one suspect (null: nobody)."""

    type: Literal["nominate"]
    target: str | None


class GodfatherCheck(_PlayerAction):
    type: Literal["godfatherCheck"]
    target: str


class NinjaCheck(_PlayerAction):
    type: Literal["ninjaCheck"]
    target: str


class LawyerPeek(_PlayerAction):
    type: Literal["lawyerPeek"]
    target: str


class YakuzaTarget(_PlayerAction):
    type: Literal["yakuzaTarget"]
    target: str | None


class MadmanKill(_PlayerAction):
    type: Literal["madmanKill"]
    target: str | None


class Arrest(_PlayerAction):
    type: Literal["arrest"]
    target: str | None


class Pause(_PlayerAction):
    """Room layer (host): freeze the phase clock."""

    type: Literal["pause"]


class Resume(_PlayerAction):
    type: Literal["resume"]


class EndGame(_PlayerAction):
    """Room layer (host): end the game now without a winner."""

    type: Literal["endGame"]


class Leave(_PlayerAction):
    """Room layer: the player left a running game; their character is eliminated."""

    type: Literal["leave"]


class Remove(_PlayerAction):
    """Room layer (host): ``player`` is removed from a running game, like a ``leave``."""

    type: Literal["remove"]


class PhaseTimeout(_Action):
    type: Literal["phaseTimeout"]
    phase: int | None = None  # phase_seq the timeout belongs to
    player: str | None = None  # ignored: who nudged (the server checks its own clock)


# Actions every game takes whatever its preset (routed by ``apply`` itself).
CORE = (Chat, Presence, Pause, Resume, EndGame, Leave, Remove, PhaseTimeout)
# Every model a preset may name in ``Preset.actions`` without declaring it itself.
LIBRARY = (
    Chat,
    AdjustTime,
    Vote,
    Confirm,
    MafiaTarget,
    Investigate,
    Heal,
    MediumPeek,
    ReadyEarly,
    SeenRole,
    Presence,
    Sleep,
    EndTurn,
    Nominate,
    GodfatherCheck,
    NinjaCheck,
    LawyerPeek,
    YakuzaTarget,
    MadmanKill,
    Arrest,
    Pause,
    Resume,
    EndGame,
    Leave,
    Remove,
    PhaseTimeout,
)


def type_of(model: type) -> str:
    """The ``type`` literal an action model is discriminated by."""
    return get_args(model.model_fields["type"].annotation)[0]


CORE_TYPES = frozenset(type_of(m) for m in CORE)


def build(presets: Iterable[Any]) -> None:
    """Make the union (``ACTION``) and ``ACTION_TYPES`` the actions of these presets.

    Each preset names its action types in ``Preset.actions``; their models come from
    ``LIBRARY`` or the preset's own ``action_models``. Called by ``presets.register``.
    """
    global ACTION, ACTION_TYPES
    own = {type_of(m): m for p in presets for m in p.action_models}
    models = {type_of(m): m for m in (*LIBRARY, *own.values())}
    wanted = {type_of(m) for m in CORE} | {t for p in presets for t in p.actions}
    missing = sorted(wanted - set(models))
    if missing:
        raise ValueError(f"actions without a model: {', '.join(missing)} (add them to Preset.action_models)")
    chosen = tuple(m for t, m in models.items() if t in wanted)
    ACTION = TypeAdapter(Annotated[Union[chosen], Field(discriminator="type")])  # noqa: UP007
    ACTION_TYPES = tuple(type_of(m) for m in chosen)


# Until ``build`` runs (``presets`` registers the built-in presets once, at import) the union
# is every model of the library, built on first use.
ACTION: TypeAdapter[Any] | None = None
ACTION_TYPES: tuple[str, ...] = tuple(type_of(m) for m in LIBRARY)


def adapter() -> TypeAdapter[Any]:
    """The union of the registered presets' actions."""
    global ACTION
    if ACTION is None:
        ACTION = TypeAdapter(Annotated[Union[LIBRARY], Field(discriminator="type")])  # noqa: UP007
    return ACTION


def parse(raw: Any) -> Any:
    """The validated action model, or InvalidAction(bad_action) naming the problem."""
    if not isinstance(raw, dict):
        raise InvalidAction("bad_action", "an action must be an object with a 'type'")
    try:
        return adapter().validate_python(raw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "action"
        raise InvalidAction(
            "bad_action", f"bad action {raw.get('type')!r}: {where}: {err.get('msg')}"
        ) from None
