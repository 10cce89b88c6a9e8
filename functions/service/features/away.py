"""The "while you were away" marker: what a seat missed while it had no socket (docs/rules.md,
"While you were away").

When a seat's last socket goes during a game, the room notes where the seat stood: the phase
`seq`, how many public events and how many of its own results its view held. When its first
socket comes back in a later phase, the marker gets its other end (the same three numbers
then), and the seat's own view carries both as `you.away`: the client shows the events and
results between them as a dismissable digest (web/js/game/away.js). Coming back in the same
phase drops the marker (nothing was missed); a second device while the first is live changes
nothing (the seat never left). Once a phase passes with the seat back, the marker is dropped
(the digest is about the return, not about the whole game).

The marker is room data (`room.away`, seat id -> marker) and reaches only that seat's view
(`mark`): every other viewer's view is built without it, byte for byte
(tests/functions/test_away.py). Its numbers are what the seat's own view showed: the public
event count and the seat's own result count, nothing of anyone else's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import mafia_engine as me

from .base import Feature, ViewParts


def _where(state: Any, pid: str) -> dict:
    """Where seat `pid` stands: the phase seq, its view's event and own-result counts."""
    view = me.view(state, pid)
    results = (view.get("private") or {}).get("results") or ()
    return {"seq": me.phase_seq(state), "events": len(view.get("events") or ()), "results": len(results)}


def left(room: dict, state: Any, pid: str) -> None:
    """Seat `pid`'s last socket went while a game runs: note where it stood."""
    if state is None or room.get("status") != "running":
        return
    room.setdefault("away", {})[pid] = {"from": _where(state, pid), "to": None}


def back(room: dict, state: Any, pid: str) -> None:
    """Seat `pid`'s first socket came: the marker's other end, or none if no phase passed."""
    marker = (room.get("away") or {}).get(pid)
    if marker is None or marker.get("to") is not None or state is None:
        return
    here = _where(state, pid)
    if here["seq"] == marker["from"]["seq"]:
        room["away"].pop(pid)  # back in the phase it left: nothing missed
        if not room["away"]:
            room.pop("away")
        return
    marker["to"] = here


def expire(room: dict, state: Any, connected: set[str]) -> None:
    """Drop the markers of seats that are back and have lived a later phase since."""
    markers = room.get("away")
    if not markers or state is None:
        return
    seq = me.phase_seq(state)
    for pid in [p for p, m in markers.items() if m.get("to") and p in connected and m["to"]["seq"] < seq]:
        markers.pop(pid)
    if not markers:
        room.pop("away")


def reset(room: dict) -> None:
    """A new game: no seat has missed anything of it yet."""
    room.pop("away", None)


def mark(view: dict, room: dict, viewer: str | None) -> dict:
    """`viewer`'s own view with its marker as `you.away` (absent for everyone else)."""
    marker = (room.get("away") or {}).get(viewer) if viewer else None
    if marker is None or marker.get("to") is None or not view.get("you"):
        return view
    a, b = marker["from"], marker["to"]
    view["you"] = {
        **view["you"],
        "away": {
            "since": a["seq"],
            "back": b["seq"],
            "events": [a["events"], b["events"]],
            "results": [a["results"], b["results"]],
        },
    }
    return view


# ---------------------------------------------------------------- the feature (features/base.py)
def _on_write(c: Any, state: Any, present: set[str]) -> None:
    expire(c.room, state, present)


def _own_fact(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """A game view's `you.away` (its own seat's alone)."""
    if state is None:
        return parts
    return replace(parts, view=mark(parts.view, room, viewer))


FEATURE = Feature("away", on_write=_on_write, view=_own_fact)
