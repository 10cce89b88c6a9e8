"""Voice: whom each viewer may speak to and hear in this phase, from the chat's channel rules.

A seat's voice reaches another seat when the speaker may write a channel the listener reads
(``Preset.write_channels`` / ``read_channels``, the rules the chat obeys), judged
from what the two of them know: each sees the other with their real role only if they know
it (``known_roles``), otherwise as a plain ``citizen`` with the same seat, life and phase. So
a policy never depends on a role its viewer may not know: a citizen's night policy is the
same whoever the mafia are, and a spectator's is the same whatever the deal (docs/rules.md,
"Voice"). The price: a channel one side reads or writes only because of a hidden role stays
text only (classic's medium reads the dead chat at night; the dead do not hear them by voice).

Single-device play (option ``untimed``) and the lobby have no voice.
"""

from __future__ import annotations

from typing import Any

from .roles import PLAIN  # how a seat whose role is hidden is judged (a core role of every preset)


def off() -> dict:
    """The policy where there is no voice (the lobby, single-device play)."""
    return {"on": False, "speakTo": [], "hearFrom": [], "toSpectators": False}


class _Table:
    """One state's facts the policies of all its viewers share: who knows whose role, and what
    each seat writes and reads as itself and as a plain citizen (filled as they are asked)."""

    __slots__ = ("s", "preset", "by_id", "known", "writes", "reads")

    def __init__(self, s: dict, preset: Any) -> None:
        self.s = s
        self.preset = preset
        self.by_id = {p["id"]: p for p in s["players"]}
        self.known: dict[str | None, set[str]] = {}
        self.writes: dict[tuple[str, bool], frozenset[str]] = {}
        self.reads: dict[tuple[str | None, bool], frozenset[str]] = {}

    def knows(self, who: str | None, whom: str) -> bool:
        known = self.known.get(who)
        if known is None:
            p = None if who is None else self.by_id[who]
            known = self.known[who] = self.preset.known_roles(self.s, p)
        return whom in known

    def _as(self, pid: str, real: bool) -> dict:
        p = self.by_id[pid]
        return p if real else {**p, "role": PLAIN}

    def reaches(self, a: str, b: str | None) -> bool:
        """Does ``a``'s voice reach ``b`` (None: a spectator), each seen as the other sees them?"""
        key = (a, self.knows(b, a))
        writes = self.writes.get(key)
        if writes is None:
            writes = self.writes[key] = frozenset(self.preset.write_channels(self.s, self._as(*key))) - {
                "system"
            }
        if not writes:
            return False
        rkey = (b, False if b is None else self.knows(a, b))
        reads = self.reads.get(rkey)
        if reads is None:
            seen = None if b is None else self._as(b, rkey[1])
            reads = self.reads[rkey] = frozenset(self.preset.read_channels(self.s, seen))
        return not writes.isdisjoint(reads)


# One-entry memo: the views of one state (one per viewer, built one after the other) share one
# table. It holds the state itself, so identity proves it is the same state; the phase dict's
# identity and the phase counter guard a test that edits a state in place between two views.
_memo: tuple = (None, None, -1, None)


def _table(s: dict, preset: Any) -> _Table:
    global _memo
    memo = _memo
    if memo[0] is not s or memo[1] is not s["phase"] or memo[2] != s["seq"]:
        memo = _memo = (s, s["phase"], s["seq"], _Table(s, preset))
    return memo[3]


def policy(s: dict, viewer: str | None, preset: Any) -> dict:
    """``{"on", "speakTo", "hearFrom", "toSpectators"}``: whether the game has voice, the seats
    ``viewer``'s voice reaches now, the seats whose voice reaches ``viewer`` (ids in seat order;
    a spectator speaks to no one) and whether ``viewer``'s voice reaches the spectators now
    (judged as the spectators see the seat: never by a hidden role)."""
    if s["options"].get("untimed"):
        return off()
    table = _table(s, preset)
    speak = []
    hear = []
    for q in s["players"]:
        qid = q["id"]
        if qid == viewer:
            continue
        if viewer is not None and table.reaches(viewer, qid):
            speak.append(qid)
        if table.reaches(qid, viewer):
            hear.append(qid)
    to_spectators = viewer is not None and viewer in table.by_id and table.reaches(viewer, None)
    return {"on": True, "speakTo": speak, "hearFrom": hear, "toSpectators": to_spectators}


def may_exchange(s: dict, a: str, b: str, preset: Any) -> bool:
    """May seats ``a`` and ``b`` exchange audio now (either's voice reaches the other)? The
    room layer's relay of WebRTC signaling asks this."""
    if a == b or s["options"].get("untimed"):
        return False
    table = _Table(s, preset)
    if a not in table.by_id or b not in table.by_id:
        return False
    return table.reaches(a, b) or table.reaches(b, a)


def reaches_spectators(s: dict, a: str, preset: Any) -> bool:
    """Does seat ``a``'s voice reach the spectators now (as they see ``a``)? The relay asks
    this for a listening spectator's signals, both ways."""
    if s["options"].get("untimed"):
        return False
    table = _Table(s, preset)
    return a in table.by_id and table.reaches(a, None)
