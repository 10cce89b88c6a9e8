"""The values a room change passes along the request pipeline (`pipeline.py`), all frozen.

- `Context`: what the request read (the snapshot, the time, the engine state after the bots'
  due actions) and the room document this attempt owns;
- `Request`: who sent what (a client frame; `actor` is filled by `access.actor`), and the
  ports a command may need (the store for archive pages, the gateway for GetConnection);
- `Outcome`: what a command decided: the new engine state, what to write (`Write`), the
  `Effects` after the write, and the result the caller gets;
- `Effects`: connection items to put or delete, spectator places to claim, frames to send
  (direct replies, the sender's full view, frames sent last), sockets to close.

The room document (`Context.room`) is the one mutable thing: a deep copy of the stored room
made for this attempt alone, changed by the command and the life-cycle steps, then written.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from ..infra.storage import Snapshot, WritePlan

_EMPTY: Mapping = MappingProxyType({})


def _empty() -> Mapping:
    return _EMPTY


class Write(enum.Enum):
    """What the conditional write stores."""

    NOTHING = "nothing"  # a read-only request: no write, only direct replies
    CONNECTIONS = "connections"  # connection items only; the room item is checked, not written
    ROOM = "room"  # the room item (a new version) and any connection and archive items


@dataclass(frozen=True)
class Effects:
    """What happens besides the room item: connection items, places, frames, closes."""

    puts: Mapping[str, str | None] = field(
        default_factory=_empty
    )  # connection id -> player (None: spectator)
    deletes: tuple[str, ...] = ()
    slots: Mapping[int, str] = field(default_factory=_empty)  # spectator places claimed (connections.admit)
    replies: Mapping[str, bytes] = field(
        default_factory=_empty
    )  # direct frames (errors, farewells), over any view frame
    closes: tuple[str, ...] = ()  # sockets to close after the write
    unpushed: frozenset[str] = frozenset()  # connections no view frame goes to ($connect not returned)
    patched: frozenset[str] = frozenset()  # of `puts`: connections that asked for patches (patches.py)
    full_view: str | None = None  # connection that gets its full view whatever changed (sync)
    last: Mapping[str, bytes] = field(default_factory=_empty)  # frames sent after everything else (pong)

    def __post_init__(self) -> None:
        for name in _MAPPINGS:
            value = getattr(self, name)
            if isinstance(value, Mapping) and not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    def write_plan(self, *, bump: bool, **items: tuple) -> WritePlan:
        """What the conditional write stores for these effects (`Store.save`'s one argument
        besides the room): the connection items, the places claimed, and the features' items
        (`featureset.items`: `chat_items`, ...)."""
        return WritePlan(
            bump=bump,
            conn_puts=dict(self.puts),
            conn_patches=frozenset(self.patched),
            conn_deletes=tuple(self.deletes),
            slot_claims=dict(self.slots),
            **items,
        )

    def __add__(self, other: Effects) -> Effects:
        # nothing added on either side (most hooks add nothing): the other one, as it is
        # (frozen, its mappings read-only: the same value the sum would be)
        if other is NO_EFFECTS:
            return self
        if self is NO_EFFECTS:
            return other
        return Effects(
            puts={**self.puts, **other.puts},
            deletes=self.deletes + tuple(k for k in other.deletes if k not in self.deletes),
            slots={**self.slots, **other.slots},
            replies={**self.replies, **other.replies},
            closes=self.closes + other.closes,
            unpushed=self.unpushed | other.unpushed,
            patched=self.patched | other.patched,
            full_view=other.full_view or self.full_view,
            last={**self.last, **other.last},
        )


# the fields that hold a mapping (each kept read-only: `Effects.__post_init__`)
_MAPPINGS = tuple(f.name for f in fields(Effects) if f.default_factory is _empty)
NO_EFFECTS = Effects()


@dataclass(frozen=True)
class Outcome:
    """A command's decision: the new engine state, what to write, what follows the write."""

    state: Any
    write: Write = Write.ROOM
    effects: Effects = NO_EFFECTS
    result: Any = None
    wrote: str | None = None  # the chat channel the request's own frame wrote to (chat_archive.collect)

    def also(self, effects: Effects) -> Outcome:
        """This outcome with more effects."""
        return replace(self, effects=self.effects + effects)


@dataclass(frozen=True)
class Context:
    """One attempt's reading of the room. `before` is the engine state as stored (views with
    no stored digest are rebuilt from it)."""

    snap: Snapshot
    room: dict
    state: Any
    now: float

    @property
    def before(self) -> Any:
        return self.snap.state

    @property
    def running(self) -> bool:
        """A game is on (started, not ended)."""
        return self.state is not None and self.room["status"] == "running"

    def unchanged(self, effects: Effects = NO_EFFECTS, result: Any = None) -> Outcome:
        """Nothing to write (the bots' due actions may still make the pipeline write)."""
        return Outcome(self.state, Write.NOTHING, effects, result)

    def changed(self, state: Any = ..., effects: Effects = NO_EFFECTS, **kw: Any) -> Outcome:
        """The room document (and `state`, when given) changed: write a new version."""
        return Outcome(self.state if state is ... else state, Write.ROOM, effects, **kw)


@dataclass(frozen=True)
class Ports:
    """What a command may call besides the room: the store (archive pages) and the gateway
    (GetConnection, for sockets that vanished without `$disconnect`)."""

    store: Any
    gateway: Any


@dataclass(frozen=True)
class Request:
    """A client frame sent on connection `conn_id`; `actor` is its sender's player id (None
    for a spectator), set once who may act was checked (`access.actor`)."""

    conn_id: str
    frame: Any
    ports: Ports
    actor: str | None = field(default=None)
    # what a seat keeps of the sender's source address (`public.address_digest`: a hash, ""
    # when unknown): a substitute's request is checked against the seats' (substitutes.py)
    addr: str = field(default="")


ChangeFn = Callable[[Context], Outcome]
