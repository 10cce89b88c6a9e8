"""The one gate for hidden information: ``build(state, viewer)``.

Built from an allow-list: every field below is copied on purpose; nothing of the state is
passed through wholesale. What a viewer may know comes from the preset's hooks
(``known_roles``, ``read_channels``, ``private``, ...). Every view has the same top-level
keys; the layout is documented in docs/protocol.md, "View".
"""

from __future__ import annotations

from typing import Any

from . import review as _review
from . import voice as _voice
from .errors import InvalidAction, quoted
from .fairness import gate as fairness_gate
from .jsondata import jcopy as _jcopy
from .roles import team_of

# One-entry memos: the views of one state (one per viewer, built one after the other) share
# one copy of the public events and one copy per set of readable channels of the chat. A
# memo holds the state's list itself, so identity + length prove it is the same, unchanged
# list (events and messages are append-only and never edited). Each memo is one tuple read
# and replaced as a whole, so concurrent threads can never mix two states' data.
_NESTED = ("tally", "ballots", "revealed")  # event fields holding a dict of scalars
_events_memo: tuple = (None, -1, [])
_chat_memo: tuple = (None, -1, {})
# The rules (flags, catalogue, order) depend on the preset and the options alone: the views of
# one game share one copy, held with the options dict it was built from (a state's options
# are never changed after ``new_game``, and clones share that dict).
_rules_memo: tuple = (None, None, {})
_roster_memo: tuple = (None, None, -1, {})  # the same for the roster (and the seat count)


def _rules(preset: Any, options: dict) -> dict:
    global _rules_memo
    memo = _rules_memo
    if memo[0] is not preset or memo[1] is not options:
        memo = _rules_memo = (preset, options, preset.rules_view(options))
    return dict(memo[2])


def _copy_events(items: list[dict]) -> list[dict]:
    global _events_memo
    memo = _events_memo
    if memo[0] is not items or memo[1] != len(items):
        out = []
        for e in items:
            c = e.copy()
            for k in _NESTED:
                v = c.get(k)
                if v is not None:
                    c[k] = v.copy()
            out.append(c)
        memo = _events_memo = (items, len(items), out)
    return list(memo[2])


def _copy_chat(items: list[dict], read: tuple[str, ...]) -> list[dict]:
    """The messages of the readable channels (copies, shared between views of one state)."""
    global _chat_memo
    memo = _chat_memo
    if memo[0] is not items or memo[1] != len(items):
        memo = _chat_memo = (items, len(items), {})
    out = memo[2].get(read)
    if out is None:
        out = memo[2][read] = [m.copy() for m in items if m["channel"] in read]
    return list(out)


def roster(preset: Any, opts: dict, n: int) -> dict[str, int]:
    """``{role: count}`` that ``preset`` deals for ``n`` players with the normalised ``opts``.

    Public by construction: it reads the options and the player count, never who got what,
    and is the same for every viewer (roles in the preset's deal order).
    """
    out: dict[str, int] = {}
    for role in preset.deal(opts, n):
        out[role] = out.get(role, 0) + 1
    return out


def _roster(preset: Any, options: dict, n: int) -> dict[str, int]:
    global _roster_memo
    memo = _roster_memo
    if memo[0] is not preset or memo[1] is not options or memo[2] != n:
        memo = _roster_memo = (preset, options, n, roster(preset, options, n))
    return dict(memo[3])


def _public(s: dict, preset: Any) -> dict:
    """The keys every viewer of ``s`` sees alike (their own copies: ``build`` copies each
    state's value; ``build_many`` hands the same copy to every view it makes)."""
    ph = s["phase"]
    phase = {"kind": ph["kind"], "endsAt": ph["endsAt"], "seq": s["seq"]}
    for key in preset.phases[ph["kind"]].public:
        phase[key] = _jcopy(ph[key])
    options = dict(s["options"])
    for k, v in options.items():
        if isinstance(v, list):
            options[k] = list(v)
    return {
        "options": options,
        "phase": phase,
        "votes": _jcopy(s["votes"]),
        "events": _copy_events(s["events"]),
        "result": _jcopy(s["result"]),
        # the rule flags, the role catalogue, the task table and the phase order (public)
        "rules": _rules(preset, s["options"]),
        # how many of each role this game dealt (from the options and the seat count only)
        "roster": _roster(preset, s["options"], len(s["players"])),
        # the post-game review: every hidden thing, only once the game has ended
        "review": _review.gate(s, preset),
        # the deal's commitment from the start; its seed and salt once ended (fairness.py)
        "fairness": fairness_gate(s),
    }


def build(
    s: dict, viewer: str | None, preset: Any, public: dict | None = None, chats: dict | None = None
) -> dict:
    """``viewer``'s view of ``s``. ``public``, ``chats``: ``build_many``'s one copy of the
    public keys and of each set of readable channels' chat, shared by the views it makes."""
    me = None
    if viewer is not None:
        for p in s["players"]:
            if p["id"] == viewer:
                me = p
                break
        else:
            raise InvalidAction("unknown_player", f"there is no player {quoted(viewer)} in this game")
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
    if chats is None:
        chat = _copy_chat(s["chat"], read)
    else:
        chat = chats.get(read)
        if chat is None:
            chat = chats[read] = _copy_chat(s["chat"], read)
    if public is None:
        public = _public(s, preset)
    return {
        "preset": s["preset"],
        "options": public["options"],
        "day": s["day"],
        "phase": public["phase"],
        "players": players,
        "you": you,
        "private": private,
        "votes": public["votes"],
        "chat": chat,
        "channels": {"read": list(read), "write": list(preset.write_channels(s, me))},
        # whom this viewer's voice reaches and whose reaches them, from the channel rules (voice.py)
        "voice": _voice.policy(s, viewer, preset),
        "events": public["events"],
        "result": public["result"],
        "paused": bool(s.get("paused")),
        "rules": public["rules"],
        "roster": public["roster"],
        "review": public["review"],
        "fairness": public["fairness"],
    }


def build_many(s: dict, viewers: list[str | None], preset: Any) -> dict[str | None, dict]:
    """Each viewer's view of ``s``, as ``build`` makes it, with the public keys (and each set of
    readable channels' chat) made once and shared: the views hold the same objects there, so
    they are read-only (a caller that edits one view's ``events`` edits every view's)."""
    public = _public(s, preset)
    chats: dict = {}
    return {v: build(s, v, preset, public, chats) for v in viewers}


def lobby(preset: Any, options: dict, ids: list[str], viewer: str | None, roster_: dict | None) -> dict:
    """The view before the start (phase ``lobby``): the same top-level keys as a game view.

    ``options``: the host's choices (maybe not valid yet: the lobby shows them with the
    preset's defaults under them); ``roster_``: what the lobby deals (``lobby_roster``)."""
    shown = {**preset.defaults(), **_jcopy(options), "preset": preset.name}
    return {
        "preset": preset.name,
        "options": shown,
        "day": 0,
        "phase": {"kind": "lobby", "endsAt": None, "seq": 0},
        "players": [
            {"id": pid, "seat": i + 1, "alive": True, "revealed": None, "role": None}
            for i, pid in enumerate(ids)
        ],
        "you": None
        if viewer is None
        else {"id": viewer, "role": None, "team": None, "alive": True, "allies": []},
        "private": None,
        "votes": None,
        "chat": [],
        "channels": {"read": [], "write": []},
        "voice": _voice.off(),  # no voice before the start
        "events": [],
        "result": None,
        "paused": False,
        "rules": preset.rules_view(shown),
        "roster": roster_,
        "review": None,
        "fairness": None,  # nothing is dealt yet (fairness.py)
    }
