"""What a room feature is: everything the request pipeline and the view fold need to know about
one piece of room moderation (idle seats, public rooms, bots, ...), declared in one place, as
`mafia_engine.presets.base.Preset` is one declaration per rulebook.

A feature is one `Feature` value whose hooks are all optional. None of them touches a port (the
store, the gateway, the Scheduler, the clock): they read what the pipeline hands them and
return what they decide; the room document (`Context.room`, the attempt's own deep copy) is the
one thing a hook may change, as every life-cycle step does. The pipeline
(`service/room/pipeline.py`) and the view fold (`service/room/viewframes.py`, `view_of`) run
the features of `service/room/featureset.py`, in the order of its one tuple, and name none.

The order is an onion: the first feature wraps all the others. `before` runs outermost first
(the bots' due entries are played before an open seat's end is applied, and both before the idle
seats count what passed); every hook on the way out (`after`, `on_write`, `view`, `timer`,
`items`) runs innermost first, so the anonymous games' gate (`aliases`), the outermost, sees
every other feature's facts and errors last.

The hooks (`c`: the attempt's `room.change.Context`, its `state` the engine state so far):

- `before(c) -> Step`: after the load, before the command (a due tick, an expired seat, a
  lobby's countdown that ended);
- `after(c, state, actor) -> Step`: after the command, with the command's new `state` and its
  sender's seat when the frame was a game action (`actor`: an engine action's sender; None for
  a room operation, a `nudge`, a ping, a sync, a server-side change or a spectator);
- `refuse(room, exc) -> exc`: a refused command's `ServiceError`, as the table may read it;
- `on_write(c, state, present)`: the room is written: the document's last changes
  (`present`: the seats with a connection after the change);
- `view(room, state, viewer, parts) -> ViewParts`: one viewer's facts (`viewer`: a seat id,
  None for a spectator; `state` None in the lobby);
- `timer(c, state) -> (seq, at[, after, exact]) | None`: a Scheduler delivery to arm once the write is in;
- `items(c, state, wrote) -> {WritePlan field: tuple}`: items written in the room's one
  conditional write (`infra.storage.WritePlan`), e.g. `chat_items`; `wrote` is the chat
  channel the request's own frame wrote to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Step:
    """What a `before` or `after` hook decided: the engine state from here on, the effects it
    adds (a `room.change.Effects`, None for none), whether the request must write the room even
    if its command wrote nothing, and whether its effects come before the command's (`lead`: a
    game that started by itself) or after them."""

    state: Any
    effects: Any = None
    writes: bool = False
    lead: bool = False


@dataclass(frozen=True)
class ViewParts:
    """One viewer's view as the fold builds it: the engine's view (`view`, its `you` the seat's
    own facts), the `room` block, and each seat's room facts (seat id -> facts)."""

    view: dict
    block: dict
    players: Mapping[str, dict]


Hook = Callable[..., Any]


@dataclass(frozen=True)
class Feature:
    """One room feature's declaration: a name and the hooks it needs (module docstring)."""

    name: str
    before: Callable[[Any], Step] | None = None
    after: Callable[[Any, Any, str | None], Step] | None = None
    refuse: Callable[[dict, Any], Any] | None = None
    on_write: Callable[[Any, Any, set[str]], None] | None = None
    view: Callable[[dict, Any, str | None, ViewParts], ViewParts] | None = None
    timer: Callable[[Any, Any], tuple | None] | None = None
    items: Callable[[Any, Any, str | None], Mapping[str, tuple]] | None = None
