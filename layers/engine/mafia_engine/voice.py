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

    def known_by(self, who: str | None) -> set[str]:
        """The seats whose role ``who`` (None: a spectator) knows."""
        known = self.known.get(who)
        if known is None:
            p = None if who is None else self.by_id[who]
            known = self.known[who] = self.preset.known_roles(self.s, p)
        return known

    def knows(self, who: str | None, whom: str) -> bool:
        return whom in self.known_by(who)

    def _as(self, pid: str, real: bool) -> dict:
        p = self.by_id[pid]
        return p if real else {**p, "role": PLAIN}

    def writes_of(self, pid: str, real: bool) -> frozenset[str]:
        """The channels ``pid`` writes (but ``system``), seen with their real role or as a citizen."""
        key = (pid, real)
        writes = self.writes.get(key)
        if writes is None:
            writes = self.writes[key] = frozenset(self.preset.write_channels(self.s, self._as(*key))) - {
                "system"
            }
        return writes

    def reads_of(self, pid: str | None, real: bool) -> frozenset[str]:
        """The channels ``pid`` (None: a spectator, ``real`` False) reads, seen as above."""
        key = (pid, real)
        reads = self.reads.get(key)
        if reads is None:
            seen = None if pid is None else self._as(pid, real)
            reads = self.reads[key] = frozenset(self.preset.read_channels(self.s, seen))
        return reads

    def reaches(self, a: str, b: str | None) -> bool:
        """Does ``a``'s voice reach ``b`` (None: a spectator), each seen as the other sees them?"""
        writes = self.writes_of(a, self.knows(b, a))
        if not writes:
            return False
        return not writes.isdisjoint(self.reads_of(b, False if b is None else self.knows(a, b)))


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
    if viewer is not None and viewer not in table.by_id:
        return _policy_pairwise(table, s, viewer)
    # reaches(), unrolled over the seats (the hot path: one call per view): the viewer and
    # each other seat ``q``, each seen as the other sees them. Whether ``q`` knows the viewer's
    # role is not asked of a citizen viewer: seen as themselves or as a plain citizen, they
    # write and read the same channels.
    known_by, writes_of, reads_of = table.known_by, table.writes_of, table.reads_of
    known, writes, reads = table.known, table.writes, table.reads  # their memos, read inline
    v_knows = known_by(viewer)
    ask = viewer is not None and table.by_id[viewer]["role"] != PLAIN
    v_writes: dict[bool, frozenset[str]] = {}  # the viewer's, by "q knows the viewer's role"
    v_reads: dict[bool, frozenset[str]] = {}
    v_seen = False
    speak = []
    hear = []
    for q in s["players"]:
        qid = q["id"]
        if qid == viewer:
            continue
        q_seen = qid in v_knows  # the viewer sees q's real role
        if ask:
            q_knows = known.get(qid)
            if q_knows is None:
                q_knows = known_by(qid)
            v_seen = viewer in q_knows
        key = (qid, q_seen)
        if viewer is not None:  # a spectator speaks to no one
            w = v_writes.get(v_seen)
            if w is None:
                w = v_writes[v_seen] = writes_of(viewer, v_seen)
            if w:
                r = reads.get(key)
                if r is None:
                    r = reads_of(qid, q_seen)
                if not w.isdisjoint(r):
                    speak.append(qid)
        w = writes.get(key)
        if w is None:
            w = writes_of(qid, q_seen)
        if w:
            r = v_reads.get(v_seen)
            if r is None:
                r = v_reads[v_seen] = reads_of(viewer, v_seen)
            if not w.isdisjoint(r):
                hear.append(qid)
    to_spectators = viewer is not None and table.reaches(viewer, None)
    return {"on": True, "speakTo": speak, "hearFrom": hear, "toSpectators": to_spectators}


def _policy_pairwise(table: _Table, s: dict, viewer: str) -> dict:
    """``policy`` pair by pair, for a viewer who holds no seat of the game."""
    speak = []
    hear = []
    for q in s["players"]:
        qid = q["id"]
        if table.reaches(viewer, qid):
            speak.append(qid)
        if table.reaches(qid, viewer):
            hear.append(qid)
    return {"on": True, "speakTo": speak, "hearFrom": hear, "toSpectators": False}


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
