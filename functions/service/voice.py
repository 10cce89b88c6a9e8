"""The voice relay: a `signal` frame (a WebRTC offer, answer or ICE candidate) goes to the
target seat's connections only while the voice policy lets the two seats exchange audio
(`mafia_engine.voice_pair`; docs/rules.md, "Voice").

Nothing is stored: the relay reads the room once (`Pipeline.load`: one Query) and posts;
it never writes, so it runs beside the pipeline's write path, not through it. The sender
never gets its own signal back, nor does anyone but the target seat. Each connection may
send `BURST` signals at once and `RATE` per second after that (`Limiter`: in this
container's memory, as a signal leaves no trace in the store; a second container gives a
connection a second bucket, which API Gateway's own stage throttling bounds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mafia_engine as me

from . import server_frames
from .errors import ServiceError
from .fanout import Gateway, push_all
from .frames import Signal
from .storage import Snapshot

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


def check(snap: Snapshot, conn_id: str, frame: Signal) -> str:
    """The sender's player id if `frame` may go to seat `frame.to` now, else ServiceError."""
    if conn_id not in snap.conns:
        raise ServiceError("not_connected", "this connection is not in the room")
    pid = snap.conns[conn_id]
    if pid is None:
        raise ServiceError("spectator", "spectators listen only: they send no voice")
    state = snap.state
    if state is None or snap.room.get("status") == "lobby":
        raise ServiceError("voice_closed", "voice opens when the game starts")
    if not any(p["id"] == frame.to for p in state["players"]):
        raise ServiceError("bad_target", "there is no such seat in this game")
    if not me.voice_pair(state, pid, frame.to):
        raise ServiceError("voice_not_permitted", "your voices do not reach each other in this phase")
    return pid


def relay(snap: Snapshot, gateway: Gateway, conn_id: str, frame: Signal) -> int:
    """Post `frame` to the target seat's connections (after `check`); returns how many."""
    sender = check(snap, conn_id, frame)
    data = server_frames.encode(
        server_frames.SignalFrame(
            from_=sender,
            kind=frame.kind,
            sdp=frame.sdp,
            candidate=None if frame.candidate is None else frame.candidate.model_dump(exclude_none=True),
        )
    )
    targets = {c: data for c, p in snap.conns.items() if p == frame.to}
    push_all(gateway, targets)
    return len(targets)
