"""The voice relay: a `signal` frame (a WebRTC offer, answer or ICE candidate) goes to the
target seat's connections only while the voice policy lets the two seats exchange audio
(`mafia_engine.voice_pair`; docs/rules.md, "Voice"). Spectators listen: each spectator
connection has a random listener id (`storage.listener_id`, drawn when its connection item is
put: nothing more is stored here); a seat the spectators hear now (`voice_to_spectators`)
offers audio to a listener that asked (`listen`), and the listener only answers.

Nothing of a signal is stored but the pair's state: the relay reads the room once
(`Pipeline.load`: one Query, the connections' items with it) and posts, beside the pipeline's
write path, not through it; a connection's first offer to an address is noted on its item
(`Store.mark_offer`: one write per pair and connection, none for the offers after it), and
only that address may answer it. The sender never gets its own
signal back, nor does anyone but the target seat. What a signal may carry (audio-only SDP,
ICE candidates) is `protocol/sdp.py`'s. Each connection may send `BURST` signals at once and
`RATE` per second after that (`Limiter`: this container's memory, the first and free gate);
and the table's budgets (`Budgets`: per seat, per room's listeners, per target, per
`WINDOW`) hold whatever the container or the connection, at one conditional write per
`LEASE` signals.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import mafia_engine as me

from ..infra.errors import ServiceError
from ..infra.fanout import Gateway, push_all
from ..infra.storage import Snapshot
from ..protocol import sdp, server_frames
from ..protocol.frames import Signal
from . import turn

BURST = 200.0  # a join: an offer or an answer and ~10 ICE candidates for each of 15 peers
RATE = 20.0  # signals per second after the burst
_FORGET_AFTER = 600.0  # seconds: a bucket idle this long is full again, so it can go


@dataclass
class Limiter:
    """A token bucket per connection: `allow` takes one token, or says no."""

    burst: float = BURST
    rate: float = RATE
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)  # conn -> (tokens, at)

    def allow(self, conn_id: str, now: float) -> bool:
        tokens, at = self._buckets.get(conn_id, (self.burst, now))
        tokens = min(self.burst, tokens + max(0.0, now - at) * self.rate)
        if len(self._buckets) > 10_000:  # a warm container's memory stays bounded
            self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < _FORGET_AFTER}
        if tokens < 1.0:
            self._buckets[conn_id] = (tokens, now)
            return False
        self._buckets[conn_id] = (tokens - 1.0, now)
        return True

    def forget(self, conn_id: str) -> None:
        self._buckets.pop(conn_id, None)


# The table's budgets (`Store.spend_budget`, kind `voice`), per WINDOW seconds, counted in leases
# of LEASE signals: a container takes a lease (one count, one conditional write for all the
# budgets a signal spends) and relays LEASE signals on it before it writes again, so a signal
# costs 1/LEASE of a write and every container and every reconnect draws from the same budget.
WINDOW = 10
LEASE = 10
PER_SEAT = 1000  # one seat's signals per window, whatever its connections (a join: ~165; retries)
PER_LISTENERS = 300  # all of a room's listening spectators together per window
PER_TARGET = 1000  # signals to one seat (or listener) per window, from everyone


@dataclass
class Budgets:
    """The table's signal budgets and this container's leases on them."""

    _left: dict[tuple[str, int], int] = field(default_factory=dict)  # (budget, window) -> signals

    def spend(self, store, now: float, keys: list[tuple[str, int]]) -> bool:
        """Count one signal on each budget `(key, limit)`: from this container's leases, or
        by taking a lease on every spent one in one transaction; False (nothing counted) when
        a budget is spent for this window."""
        window = int(now // WINDOW) * WINDOW
        if any(w != window for _, w in self._left):
            self._left = {k: v for k, v in self._left.items() if k[1] == window}
        need = [(key, limit) for key, limit in keys if self._left.get((key, window), 0) <= 0]
        if need:
            counts = [("v", _digest(key), max(1, limit // LEASE)) for key, limit in need]
            if not store.spend_budget("voice", window, window + WINDOW + 60, counts):
                return False
            for key, _ in need:
                self._left[(key, window)] = LEASE
        for key, _ in keys:
            self._left[(key, window)] -= 1
        return True


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def budget_keys(code: str, sender: str, target: str) -> list[tuple[str, int]]:
    """The budgets a signal from `sender` to `target` in room `code` spends."""
    who = f"{code}#L" if _is_listener(sender) else f"{code}#{sender}"
    return [(f"from#{who}", PER_LISTENERS if _is_listener(sender) else PER_SEAT), (f"to#{code}#{target}", PER_TARGET)]


def _is_listener(addr: str) -> bool:
    return addr.startswith("L")


def offered(snap: Snapshot, by: str, to: str) -> bool:
    """Has voice address `by` (a seat, or a listener id) sent an offer to `to` from one of its
    connections in the room now (`Store.mark_offer`)?"""
    if _is_listener(by):
        conns = [c for c, lid in snap.listeners.items() if lid == by]
    else:
        conns = [c for c, p in snap.conns.items() if p == by]
    return any(to in snap.offers.get(c, ()) for c in conns)


def _answers(snap: Snapshot, sender: str, frame: Signal) -> None:
    """An answer goes only to the seat (or listener) that offered to the sender; an ICE
    candidate only between two that one of them offered to (docs/protocol.md, "Voice
    signaling"): whatever the phase now, as the offer was permitted when it was made."""
    if frame.kind == "answer" and not offered(snap, frame.to, sender):
        raise ServiceError("voice_not_offered", "an answer goes only to a seat that offered to you")
    if frame.kind == "ice" and not (offered(snap, frame.to, sender) or offered(snap, sender, frame.to)):
        raise ServiceError("voice_not_offered", "ICE candidates go only between a seat and one it offered to")


def check(snap: Snapshot, conn_id: str, frame: Signal) -> tuple[str, list[str]]:
    """`(from, target connections)` if `frame` may go to `frame.to` now, else ServiceError.

    An offer opens a pair, so it goes only while the policy joins the two now: seat to seat
    while either's voice reaches the other (`voice_pair`), seat to a listening spectator (its
    `L…` id) while the spectators hear the seat (`voice_to_spectators`). An answer goes only in
    answer to the target's own offer, ICE only within a pair one side offered (`_answers`),
    whatever the phase now: a pair, once open, is kept across phases and each end switches
    what it sends and plays (docs/rules.md, "Voice"). A spectator, from its own listener id, to
    a seat: `listen` while it hears that seat, an answer or ICE to a seat that offered to it,
    never an offer (it sends no audio)."""
    if conn_id not in snap.conns:
        raise ServiceError("not_connected", "this connection is not in the room")
    pid = snap.conns[conn_id]
    listener = snap.listeners.get(conn_id) if pid is None else None
    if pid is None and listener is None:
        raise ServiceError("spectator", "this connection has no voice address: reconnect to listen")
    state = snap.state
    if state is None or snap.room.get("status") == "lobby":
        raise ServiceError("voice_closed", "voice opens when the game starts")
    if pid is None:  # a listener: it asks, answers and sends ICE to a seat it hears
        if _is_listener(frame.to) or not any(p["id"] == frame.to for p in state["players"]):
            raise ServiceError("bad_target", "there is no such seat in this game")
        if frame.kind == "offer":
            raise ServiceError("spectator", "spectators listen only: they send no voice")
        if frame.sdp is not None and (
            len(frame.sdp) > sdp.MAX_LISTENER_SDP_CHARS or sdp.sends_audio(frame.sdp)
        ):
            raise ServiceError(
                "bad_frame",
                f"a listener's answer receives only (a=recvonly, no a=ssrc or a=msid), "
                f"at most {sdp.MAX_LISTENER_SDP_CHARS} characters",
            )
        if frame.kind == "listen":
            if not me.voice_to_spectators(state, frame.to):
                raise ServiceError("voice_not_permitted", "you do not hear this seat in this phase")
        else:
            _answers(snap, listener, frame)
        return listener, [c for c, p in snap.conns.items() if p == frame.to]
    if frame.kind == "listen":
        raise ServiceError("voice_not_permitted", "only a listening spectator asks to listen")
    if _is_listener(frame.to):
        targets = [
            c for c, lid in snap.listeners.items() if lid == frame.to and snap.conns.get(c, "") is None
        ]
        if not targets:
            raise ServiceError("bad_target", "that listener is not in the room")
        if frame.kind == "offer":
            if not me.voice_to_spectators(state, pid):
                raise ServiceError("voice_not_permitted", "spectators do not hear you in this phase")
        else:
            _answers(snap, pid, frame)
        return pid, targets
    if not any(p["id"] == frame.to for p in state["players"]):
        raise ServiceError("bad_target", "there is no such seat in this game")
    if frame.kind == "offer":
        if not me.voice_pair(state, pid, frame.to):
            raise ServiceError("voice_not_permitted", "your voices do not reach each other in this phase")
    else:
        _answers(snap, pid, frame)
    return pid, [c for c, p in snap.conns.items() if p == frame.to]


def relay(
    snap: Snapshot, gateway: Gateway, conn_id: str, frame: Signal, store=None, budgets: Budgets | None = None,
    now: float = 0.0,
) -> int:
    """Post `frame` to its target's connections (after `check` and, given a store, the table's
    budgets); returns how many."""
    sender, targets = check(snap, conn_id, frame)
    frame = turn.screen(snap.room, frame)  # strangers' rooms: relay candidates only (turn.py)
    if budgets is not None and not budgets.spend(store, now, budget_keys(snap.code, sender, frame.to)):
        raise ServiceError("voice_rate_limited", "too many voice signals in this room: wait a moment")
    if frame.kind == "offer" and store is not None and frame.to not in snap.offers.get(conn_id, ()):
        # the pair's state: `to` may answer now (one write per pair and connection, not per offer)
        store.mark_offer(snap.code, conn_id, frame.to)
    data = server_frames.encode(
        server_frames.SignalFrame(
            from_=sender,
            kind=frame.kind,
            sdp=frame.sdp,
            candidate=None if frame.candidate is None else frame.candidate.model_dump(exclude_none=True),
        )
    )
    push_all(gateway, {c: data for c in targets})
    return len(targets)
