"""Every action the engine accepts, as one msgspec tagged union on ``type`` per preset.

One frozen ``msgspec.Struct`` per action, tagged on ``type`` (``tag_field="type"``), unknown
fields forbidden. A preset's union is the core actions plus the ones its ``Preset.actions``
names (from ``LIBRARY`` or its own ``action_models``), built on its first action and cached:
a room builds only what its preset needs. An action is converted once, strictly
(``msgspec.convert`` to the union, ``strict=True``: no str -> int, no int -> bool); anything
malformed is refused with code ``bad_action`` and a message naming the field and the problem.

msgspec rather than pydantic: the WebSocket and timer handlers import the engine on every
cold start, and msgspec imports and builds its types in a fraction of pydantic's time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal, Union, get_args, get_origin

import msgspec

from .errors import InvalidAction, kind_of, quoted

CHANNELS = ("day", "mafia", "yakuza", "dead", "lovers", "system")


class Action(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    """The base of every action: subclass with ``tag="<type>"`` (a preset's own actions too)."""

    @property
    def type(self) -> str:
        """The action's ``type`` (msgspec keeps the tag in the class, not in a field)."""
        return self.__struct_config__.tag


class PlayerAction(Action):
    """An action some player takes (``player`` is the actor's id)."""

    player: str


class Chat(PlayerAction, tag="chat"):
    channel: Literal["day", "mafia", "yakuza", "dead", "lovers", "system"]
    text: str


class AdjustTime(PlayerAction, tag="adjustTime"):
    delta: Literal[15, -15]


class Vote(PlayerAction, tag="vote"):
    target: str  # a player id or "abstain"


class Confirm(PlayerAction, tag="confirm"):
    choice: Literal["yes", "no"]


class MafiaTarget(PlayerAction, tag="mafiaTarget"):
    target: str | None


class Investigate(PlayerAction, tag="investigate"):
    target: str


class Heal(PlayerAction, tag="heal"):
    target: str


class MediumPeek(PlayerAction, tag="mediumPeek"):
    target: str


class ReadyEarly(PlayerAction, tag="readyEarly"):
    pass


class SeenRole(PlayerAction, tag="seenRole"):
    """Role reveal: the player has seen their card (the reveal ends once everyone has)."""


class Presence(PlayerAction, tag="presence"):
    connected: bool


class Sleep(PlayerAction, tag="sleep"):
    """City/original night: confirm sleep (citizens) or skip whatever is left to do."""


class EndTurn(PlayerAction, tag="endTurn"):
    """Original speech: end the turn without a nomination; city/original defense: done speaking."""


class Nominate(PlayerAction, tag="nominate"):
    """Original speech: the speaker ends the turn naming one suspect (null: nobody)."""

    target: str | None


class GodfatherCheck(PlayerAction, tag="godfatherCheck"):
    target: str


class NinjaCheck(PlayerAction, tag="ninjaCheck"):
    target: str


class LawyerPeek(PlayerAction, tag="lawyerPeek"):
    target: str


class YakuzaTarget(PlayerAction, tag="yakuzaTarget"):
    target: str | None


class MadmanKill(PlayerAction, tag="madmanKill"):
    target: str | None


class Arrest(PlayerAction, tag="arrest"):
    target: str | None


class Pause(PlayerAction, tag="pause"):
    """Room layer (host): freeze the phase clock."""


class Resume(PlayerAction, tag="resume"):
    pass


class EndGame(PlayerAction, tag="endGame"):
    """Room layer (host): end the game now without a winner."""


class Leave(PlayerAction, tag="leave"):
    """Room layer: the player left a running game; their character is eliminated."""


class Remove(PlayerAction, tag="remove"):
    """Room layer (host): ``player`` is removed from a running game, like a ``leave``."""


class PhaseTimeout(Action, tag="phaseTimeout"):
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
    """The ``type`` tag an action model is discriminated by."""
    if isinstance(model, type) and issubclass(model, Action) and isinstance(model.__struct_config__.tag, str):
        return model.__struct_config__.tag
    raise ValueError(f"{model!r} is not an action model (subclass actions.Action with tag='<type>')")


CORE_TYPES = frozenset(type_of(m) for m in CORE)


class ActionSet:
    """The actions of some presets: the tagged union msgspec converts to, and its models.

    ``box`` is a one-field Struct holding the union: msgspec caches a Struct's converter on
    its class, but not a bare union's (converting to ``union`` itself would rebuild it every
    call, ~90 µs instead of ~1 µs).
    """

    __slots__ = ("box", "models", "types", "union")

    def __init__(self, models: tuple[type, ...]) -> None:
        self.models = {type_of(m): m for m in models}
        self.types = tuple(self.models)
        self.union = Union[models]  # noqa: UP007 (a runtime type for msgspec, not an annotation)
        self.box = msgspec.defstruct("Actions", [("action", self.union)], frozen=True)


def build(presets: Iterable[Any]) -> ActionSet:
    """The union of these presets' actions (and the core actions every game takes).

    Each preset names its action types in ``Preset.actions``; their models come from
    ``LIBRARY`` or the preset's own ``action_models``. ValueError if one has no model.
    """
    presets = tuple(presets)
    own = {type_of(m): m for p in presets for m in p.action_models}
    models = {type_of(m): m for m in (*LIBRARY, *own.values())}
    wanted = set(CORE_TYPES) | {t for p in presets for t in p.actions}
    missing = sorted(wanted - set(models))
    if missing:
        raise ValueError(f"actions without a model: {', '.join(missing)} (add them to Preset.action_models)")
    return ActionSet(tuple(m for t, m in models.items() if t in wanted))


# preset name -> (the preset it was built for, its union): built on a room's first action
_UNIONS: dict[str, tuple[Any, ActionSet]] = {}
_EVERY: ActionSet | None = None


def union_of(preset: Any) -> ActionSet:
    """The union of ``preset``'s actions, built once per preset (again if it is replaced)."""
    hit = _UNIONS.get(preset.name)
    if hit is None or hit[0] is not preset:
        hit = _UNIONS[preset.name] = (preset, build((preset,)))
    return hit[1]


def forget(name: str) -> None:
    """Drop a cached union (``presets.register`` / ``unregister`` changed the preset)."""
    _UNIONS.pop(name, None)


def library() -> ActionSet:
    """Every model of the library (``parse`` without a preset)."""
    global _EVERY
    if _EVERY is None:
        _EVERY = ActionSet(LIBRARY)
    return _EVERY


def schema(u: ActionSet) -> dict:
    """The JSON Schema of a union (``$defs`` holds one object schema per action)."""
    return msgspec.json.schema(u.union)


def parse(raw: Any, preset: Any = None) -> Any:
    """The validated action (a frozen Struct), or InvalidAction(bad_action) naming the problem.

    ``preset``: only its actions (and the core ones) are accepted; None: any library action.
    """
    if not isinstance(raw, dict):
        raise InvalidAction("bad_action", "an action must be an object with a 'type'")
    u = library() if preset is None else union_of(preset)
    typ = raw.get("type")
    if typ is None:
        raise InvalidAction("bad_action", "an action needs a 'type'")
    if not isinstance(typ, str):
        raise InvalidAction("bad_action", f"bad action: type: expected a string, not {kind_of(typ)}")
    model = u.models.get(typ)
    if model is None:
        where = "" if preset is None else f" in a {preset.name} game"
        raise InvalidAction("bad_action", f"unknown action type {quoted(typ)}{where}")
    try:
        return msgspec.convert({"action": raw}, u.box, strict=True).action
    except msgspec.ValidationError as e:
        raise InvalidAction("bad_action", f"bad action {typ!r}: {_explain(str(e), raw, model)}") from None


_AT = re.compile(r" - at `\$\.action\.([A-Za-z_][A-Za-z0-9_]*)`$")
_EXPECTED = re.compile(r"^Expected `([^`]*)`, got `([^`]*)`")
_KINDS = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "null": "null",
    "array": "a list",
    "object": "an object",
}


def _explain(msg: str, raw: dict, model: type) -> str:
    """msgspec's first error in words, naming the field (its text never quotes raw input)."""
    m = _AT.search(msg)
    field = m.group(1) if m else None
    fields = model.__struct_fields__
    if field is None:
        if msg.startswith("Object contains unknown field"):
            extra = next((k for k in raw if k != "type" and k not in fields), None)
            return f"unknown field {quoted(extra)}"
        if msg.startswith("Object missing required field"):
            absent = next((f for f in fields if f not in raw), "?")
            return f"{absent}: missing"
        if "`key`" in msg:
            return "field names must be strings"
        return "not a valid action"
    value = raw.get(field)
    exp = _EXPECTED.match(msg)
    if exp:
        want = " or ".join(_KINDS.get(k.strip(), k.strip()) for k in exp.group(1).split("|"))
        return f"{field}: expected {want}, not {kind_of(value)}"
    choices = _choices(model, field)
    if choices:
        return f"{field}: {quoted(value)} is not one of {'/'.join(map(str, choices))}"
    return f"{field}: {quoted(value)} is not allowed"


def _choices(model: type, field: str) -> tuple:
    """The values a ``Literal`` field allows (empty for any other field)."""
    for f in msgspec.structs.fields(model):
        if f.name == field and get_origin(f.type) is Literal:
            return get_args(f.type)
    return ()
