"""Every action the engine accepts, as one pydantic discriminated union on ``type`` per preset.

One frozen pydantic model per action (``extra="forbid"``, ``strict=True``: no str -> int, no
int -> bool, no 1.0 for 1), its ``type`` a one-value ``Literal``. A preset's union is the core
actions plus the ones its ``Preset.actions`` names (from ``LIBRARY`` or its own
``action_models``), ``Annotated[Union[...], Field(discriminator="type")]`` behind one
``TypeAdapter``, built on its first action and cached: a room builds only what its preset
needs. Anything malformed is refused with code ``bad_action`` and a message naming the field
and the problem (quoting at most a short prefix of the input: ``errors.quoted``).

What the room layer decoded already (``functions/service/protocol/frames.py`` builds these models from
the client's frame) is taken as it is: ``parse`` validates a plain dict, never a model twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from .errors import InvalidAction, kind_of, quoted

# The chats every game has (``Preset.channels`` starts from these).
CORE_CHANNELS = ("day", "dead", "system")
# Every chat channel a built-in preset declares (``Preset.channels``), in the order the client
# frame schema lists them; tests/unit/test_channels.py checks it is exactly the built-ins'
# declarations. A preset declaring a channel not listed here (one registered with
# ``presets.register``) gets a ``Chat`` model of its own that accepts it (``chat_model``), so
# the list only has to change for a built-in one, and the wire format of the others stays.
CHANNELS = ("day", "mafia", "yakuza", "dead", "lovers", "system")


def _an_int(value: Any) -> Any:
    """An integer ``Literal`` takes integers only: pydantic looks its values up by hash, and
    ``15.0`` hashes like ``15`` (strict mode or not)."""
    if type(value) is not int:
        raise ValueError("expected an integer")
    return value


def int_choice(*values: int) -> Any:
    """``Literal[values]`` that refuses ``15.0`` for ``15`` (and ``True`` for ``1``)."""
    return Annotated[Literal[values], BeforeValidator(_an_int)]


class Action(BaseModel):
    """The base of every action: subclass with ``type: Literal["<type>"]`` (a preset's own too).

    ``sender`` says who may send it over the socket (the room layer reads it, see
    ``functions/service/room/operations.py``): ``player`` (any seated player), ``host`` (the host
    only), ``server`` (never a client: the server's own timer and presence) or ``room``
    (applied by the room layer on a room operation's behalf, ``hint`` says which)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    sender: ClassVar[Literal["player", "host", "server", "room"]] = "player"
    hint: ClassVar[str] = ""
    type: str


class PlayerAction(Action):
    """An action some player takes (``player`` is the actor's id)."""

    player: str


class Chat(PlayerAction):
    """A line of chat: free ``text``, or a phrase of the shared phrasebook (``phrase``, its
    ``args``, a ``variant`` index) that every phone draws in its own language
    (``chat.PHRASES``; exactly one of the two forms, checked by ``chat.check_phrase``)."""

    type: Literal["chat"]
    channel: Literal[CHANNELS]  # type: ignore[valid-type]
    text: str | None = None
    phrase: str | None = None
    args: dict[str, str] | None = None
    variant: int | None = None


# extra channels -> the Chat model accepting them too (built once per set of extra channels)
_CHATS: dict[tuple[str, ...], type[Chat]] = {}


def chat_model(channels: Iterable[str]) -> type[Chat]:
    """The ``Chat`` model for a preset with these channels: ``Chat`` itself when ``CHANNELS``
    has them all (every built-in preset), else one whose ``channel`` also takes the others."""
    extra = tuple(dict.fromkeys(c for c in channels if c not in CHANNELS))
    if not extra:
        return Chat
    model = _CHATS.get(extra)
    if model is None:
        model = _CHATS[extra] = create_model(
            "Chat", __base__=Chat, channel=(Literal[(*CHANNELS, *extra)], ...)
        )
    return model


class Vote(PlayerAction):
    type: Literal["vote"]
    target: str  # a player id or "abstain"


class Confirm(PlayerAction):
    type: Literal["confirm"]
    choice: Literal["yes", "no"]


class MafiaTarget(PlayerAction):
    type: Literal["mafiaTarget"]
    target: str | None


class Investigate(PlayerAction):
    type: Literal["investigate"]
    target: str


class Heal(PlayerAction):
    type: Literal["heal"]
    target: str


class ReadyEarly(PlayerAction):
    type: Literal["readyEarly"]


class SeenRole(PlayerAction):
    """Role reveal: the player has seen their card (the reveal ends once everyone has)."""

    type: Literal["seenRole"]


class Presence(PlayerAction):
    """The room layer reports a player's connection coming or going."""

    sender: ClassVar = "server"
    type: Literal["presence"]
    connected: bool


class Sleep(PlayerAction):
    """City/original night: confirm sleep (citizens) or skip whatever is left to do."""

    type: Literal["sleep"]


class EndTurn(PlayerAction):
    """Original speech: end the turn without a nomination; city/original defense: done speaking."""

    type: Literal["endTurn"]


class Pause(PlayerAction):
    """Room layer (host): freeze the phase clock."""

    sender: ClassVar = "host"
    type: Literal["pause"]


class Resume(PlayerAction):
    """Room layer (host): start the frozen clock again."""

    sender: ClassVar = "host"
    type: Literal["resume"]


class EndGame(PlayerAction):
    """Room layer (host): end the game now without a winner."""

    sender: ClassVar = "host"
    type: Literal["endGame"]


class Leave(PlayerAction):
    """Room layer: the player left a running game; their character is eliminated."""

    type: Literal["leave"]


class Remove(PlayerAction):
    """Room layer (host): ``player`` is removed from a running game, like a ``leave``."""

    sender: ClassVar = "room"
    hint: ClassVar = 'the host removes a player with {"action": "kick", "target": id}'
    type: Literal["remove"]


class PhaseTimeout(Action):
    """The phase's deadline has passed (the Scheduler, or the room layer for a client's nudge)."""

    sender: ClassVar = "server"
    type: Literal["phaseTimeout"]
    phase: int | None = None  # phase_seq the timeout belongs to
    player: str | None = None  # ignored: who nudged (the server checks its own clock)


# Actions every game takes whatever its preset (routed by ``apply`` itself).
CORE = (Chat, Presence, Pause, Resume, EndGame, Leave, Remove, PhaseTimeout)
# Every model a preset may name in ``Preset.actions`` without declaring it itself: the actions
# more than one preset takes. A preset's own action is declared in its package
# (``presets/<name>/actions.py``) and named in ``Preset.action_models``.
LIBRARY = (
    Chat,
    Vote,
    Confirm,
    MafiaTarget,
    Investigate,
    Heal,
    ReadyEarly,
    SeenRole,
    Presence,
    Sleep,
    EndTurn,
    Pause,
    Resume,
    EndGame,
    Leave,
    Remove,
    PhaseTimeout,
)


def type_of(model: type) -> str:
    """The ``type`` an action model is discriminated by (its one-value ``Literal``)."""
    field = getattr(model, "model_fields", {}).get("type") if isinstance(model, type) else None
    if issubclass_safe(model, Action) and field is not None and get_origin(field.annotation) is Literal:
        (tag,) = get_args(field.annotation)
        return tag
    raise ValueError(
        f"{model!r} is not an action model (subclass actions.Action with type: Literal['<type>'])"
    )


def issubclass_safe(model: Any, base: type) -> bool:
    return isinstance(model, type) and issubclass(model, base)


CORE_TYPES = frozenset(type_of(m) for m in CORE)


class ActionSet:
    """The actions of some presets: their discriminated union, its ``TypeAdapter``, the models.

    The adapter is built once per set (``union_of`` caches the set per preset): building one
    costs milliseconds, validating with it about a microsecond."""

    __slots__ = ("adapter", "models", "types", "union")

    def __init__(self, models: tuple[type, ...]) -> None:
        self.models = {type_of(m): m for m in models}
        self.types = tuple(self.models)
        union = models[0] if len(models) == 1 else Union[models]  # noqa: UP007 (a runtime type)
        self.union = Annotated[union, Field(discriminator="type")]
        self.adapter: TypeAdapter = TypeAdapter(self.union)


def build(presets: Iterable[Any]) -> ActionSet:
    """The union of these presets' actions (and the core actions every game takes).

    Each preset names its action types in ``Preset.actions``; their models come from
    ``LIBRARY`` or the preset's own ``action_models``. ValueError if one has no model. ``chat``
    takes every channel the presets declare (``Preset.channels``, ``chat_model``).
    """
    presets = tuple(presets)
    own = {type_of(m): m for p in presets for m in p.action_models}
    models = {type_of(m): m for m in (*LIBRARY, *own.values())}
    models["chat"] = chat_model(c for p in presets for c in getattr(p, "channels", ()))
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
    """The JSON Schema of a union (``$defs`` holds one object schema per action, its ``type`` a
    one-value ``enum`` as well as pydantic's ``const``, for readers of either form)."""
    out = u.adapter.json_schema()
    for d in out.get("$defs", {}).values():
        typ = d.get("properties", {}).get("type", {})
        if "const" in typ:
            typ["enum"] = [typ["const"]]
    return out


def parse(raw: Any, preset: Any = None) -> Any:
    """The validated action (a frozen model), or InvalidAction(bad_action) naming the problem.

    ``preset``: only its actions (and the core ones) are accepted; None: any library action.
    A model the room layer validated already is taken as it is when it is the model this
    preset's union has for its type.
    """
    u = library() if preset is None else union_of(preset)
    if isinstance(raw, Action):
        if u.models.get(raw.type) is type(raw):
            return raw
        raw = raw.model_dump()
    if not isinstance(raw, dict):
        raise InvalidAction("bad_action", "an action must be an object with a 'type'")
    typ = raw.get("type")
    if typ is None:
        raise InvalidAction("bad_action", "an action needs a 'type'")
    if not isinstance(typ, str):
        raise InvalidAction("bad_action", f"bad action: type: expected a string, not {kind_of(typ)}")
    model = u.models.get(typ)
    if model is None:
        where = "" if preset is None else f" in a {preset.name} game"
        raise InvalidAction("bad_action", f"unknown action type {quoted(typ)}{where}")
    if not all(isinstance(k, str) for k in raw):
        raise InvalidAction("bad_action", f"bad action {typ!r}: field names must be strings")
    try:
        return u.adapter.validate_python(raw)
    except ValidationError as e:
        raise InvalidAction("bad_action", f"bad action {typ!r}: {explain(e, raw, model)}") from None


# A JSON kind in messages, by the Python type a field accepts.
_KINDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false", type(None): "null"}
_KIND_OF_VALUE = {
    "a boolean": bool,
    "an integer": int,
    "a number": float,
    "a string": str,
    "null": type(None),
}


def explain(error: ValidationError, raw: dict, model: type[BaseModel], skip: int = 1) -> str:
    """pydantic's first error in words, naming the field and quoting at most a short prefix of
    the input (pydantic's own text may carry the whole input). ``skip``: how many leading
    location parts are the union's (the tag) rather than the model's fields."""
    first = error.errors(include_url=False, include_context=False)[0]
    loc = first["loc"][skip:]
    field = loc[0] if loc and isinstance(loc[0], str) else None
    kind = first["type"]
    if kind == "extra_forbidden":
        return f"unknown field {quoted(field)}"
    if field is None or field not in model.model_fields:
        return "not a valid action"
    if kind == "missing":
        return f"{field}: missing"
    value = raw.get(field)
    accepted = accepted_kinds(model.model_fields[field].annotation)
    got = _KIND_OF_VALUE.get(kind_of(value))
    if got not in accepted and not (got is int and float in accepted):
        want = " or ".join(dict.fromkeys(_KINDS.get(t, "a value") for t in accepted))
        return f"{field}: expected {want}, not {kind_of(value)}"
    choices = literal_values(model.model_fields[field].annotation)
    if choices:
        return f"{field}: {quoted(value)} is not one of {'/'.join(map(str, choices))}"
    return f"{field}: {quoted(value)} is not allowed"


def accepted_kinds(annotation: Any) -> tuple[type, ...]:
    """The Python types of the JSON values a field annotation accepts (a ``Literal``'s values'
    types, each arm of a union, ``Annotated`` looked through)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return accepted_kinds(get_args(annotation)[0])
    if origin is Literal:
        return tuple(dict.fromkeys(type(v) for v in get_args(annotation)))
    if origin is Union or type(annotation).__name__ == "UnionType":
        return tuple(dict.fromkeys(k for arm in get_args(annotation) for k in accepted_kinds(arm)))
    if annotation is None:
        return (type(None),)
    return (annotation,) if isinstance(annotation, type) else ()


def literal_values(annotation: Any) -> tuple:
    """The values a ``Literal`` field allows (empty for any other field)."""
    if get_origin(annotation) is Annotated:
        return literal_values(get_args(annotation)[0])
    return get_args(annotation) if get_origin(annotation) is Literal else ()
