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

PLAIN = "citizen"  # how a seat whose role is hidden is judged (a core role of every preset)


def off() -> dict:
    """The policy where there is no voice (the lobby, single-device play)."""
    return {"on": False, "speakTo": [], "hearFrom": []}


def _seen(p: dict, known: set[str]) -> dict:
    return p if p["id"] in known else {**p, "role": PLAIN}


def _reaches(preset: Any, s: dict, a: dict, b: dict | None, known: dict) -> bool:
    """Does ``a``'s voice reach ``b`` (None: a spectator), each seen as the other sees them?"""
    a_seen = _seen(a, known[None if b is None else b["id"]])
    writes = preset.write_channels(s, a_seen)
    if not writes:
        return False
    b_seen = None if b is None else _seen(b, known[a["id"]])
    reads = preset.read_channels(s, b_seen)
    return any(c in reads for c in writes if c != "system")


def policy(s: dict, viewer: str | None, preset: Any) -> dict:
    """``{"on", "speakTo", "hearFrom"}``: whether the game has voice, the seats ``viewer``'s
    voice reaches now and the seats whose voice reaches ``viewer`` (ids in seat order; a
    spectator speaks to no one)."""
    if s["options"].get("untimed"):
        return off()
    players = s["players"]
    known = {None: preset.known_roles(s, None)}
    for p in players:
        known[p["id"]] = preset.known_roles(s, p)
    me = None if viewer is None else next(p for p in players if p["id"] == viewer)
    speak = []
    hear = []
    for q in players:
        if q is me:
            continue
        if me is not None and _reaches(preset, s, me, q, known):
            speak.append(q["id"])
        if _reaches(preset, s, q, me, known):
            hear.append(q["id"])
    return {"on": True, "speakTo": speak, "hearFrom": hear}


def may_exchange(s: dict, a: str, b: str, preset: Any) -> bool:
    """May seats ``a`` and ``b`` exchange audio now (either's voice reaches the other)? The
    room layer's relay of WebRTC signaling asks this."""
    if a == b or s["options"].get("untimed"):
        return False
    by_id = {p["id"]: p for p in s["players"]}
    pa, pb = by_id.get(a), by_id.get(b)
    if pa is None or pb is None:
        return False
    known = {a: preset.known_roles(s, pa), b: preset.known_roles(s, pb)}
    return _reaches(preset, s, pa, pb, known) or _reaches(preset, s, pb, pa, known)
