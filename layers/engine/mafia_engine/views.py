"""The one gate for hidden information: ``build(state, viewer)``.

Built from an allow-list: every field below is copied on purpose; nothing of the state is
passed through wholesale. What a viewer may know comes from the preset's hooks
(``known_roles``, ``read_channels``, ``private``, ...). Every view has the same top-level
keys; the layout is documented in docs/protocol.md, "View".
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidAction
from .roles import team_of


def _jcopy(v: Any) -> Any:
    """A copy of JSON-shaped data (views must never share mutable parts with the state)."""
    if isinstance(v, dict):
        return {k: _jcopy(x) if isinstance(x, dict | list) else x for k, x in v.items()}
    if isinstance(v, list):
        return [_jcopy(x) if isinstance(x, dict | list) else x for x in v]
    return v


# Event fields that hold a dict (of scalars); every other event value is a scalar.
_NESTED = ("tally", "ballots", "revealed")


# One-entry memo: the views of one state (one per viewer, built one after the other) share
# one copy of the public events. The memo holds the state's list itself, so identity + length
# prove it is the same, unchanged list (events are append-only and never edited).
_memo: list = [None, -1, None]


def _copy_events(items: list[dict]) -> list[dict]:
    if _memo[0] is items and _memo[1] == len(items):
        return list(_memo[2])
    out = []
    for e in items:
        c = e.copy()
        for k in _NESTED:
            v = c.get(k)
            if v is not None:
                c[k] = v.copy()
        out.append(c)
    _memo[:] = [items, len(items), out]
    return list(out)


def build(s: dict, viewer: str | None, preset: Any) -> dict:
    me = None
    if viewer is not None:
        for p in s["players"]:
            if p["id"] == viewer:
                me = p
                break
        else:
            raise InvalidAction("unknown_player", f"there is no player {viewer!r} in this game")
    ph = s["phase"]
    spec = preset.phases[ph["kind"]]
    known = preset.known_roles(s, me)
    players = [
        {
            "id": p["id"],
            "seat": p["seat"],
            "alive": p["alive"],
            "revealed": dict(p["revealed"]) if p["revealed"] else None,
            "role": p["role"] if p["id"] in known else None,
        }
        for p in s["players"]
    ]
    phase = {"kind": ph["kind"], "endsAt": ph["endsAt"], "seq": s["seq"]}
    for key in spec.public:
        phase[key] = _jcopy(ph[key])
    if me is None:
        you = None
        private = None
    else:
        you = {
            "id": me["id"],
            "role": me["role"],
            "team": team_of(me["role"]),
            "alive": me["alive"],
            "allies": preset.allies(s, me),
        }
        private = preset.private(s, me)
    read = preset.read_channels(s, me)
    chat = [dict(m) for m in s["chat"] if m["channel"] in read]
    options = dict(s["options"])
    for k, v in options.items():
        if isinstance(v, list):
            options[k] = list(v)
    return {
        "preset": s["preset"],
        "options": options,
        "day": s["day"],
        "phase": phase,
        "players": players,
        "you": you,
        "private": private,
        "votes": _jcopy(s["votes"]),
        "chat": chat,
        "channels": {"read": list(read), "write": list(preset.write_channels(s, me))},
        "events": _copy_events(s["events"]),
        "result": _jcopy(s["result"]),
    }
