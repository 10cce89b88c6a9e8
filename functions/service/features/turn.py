"""Relayed voice: TURN credentials per seat, and no stranger's address through the relay.

**Credentials.** The TURN REST API's shared-secret scheme (coturn's `use-auth-secret`): the
username is `<expiry>:<who>` (a Unix time, then `<ROOM>.<seat>`, or `<ROOM>.spectator` for a
listening spectator) and the password is base64(HMAC-SHA1(secret, username)). The TURN server
holds the same secret and recomputes the password; it refuses a username whose expiry has
passed. The secret lives in AWS Secrets Manager (`TURN_SECRET_ARN`; template.yaml
`TurnSecret`), read with boto3 on the first ask in a container and kept for the container's
life; it is never in `config.json`, a view, a frame or a log line. The servers' URLs are
`TURN_URLS` (comma-separated; template.yaml's `TurnUrls`; the offline stack's own coturn,
local/turn.py). A connection asks with the `iceServers` frame and gets an `iceServers` frame,
to that connection only. Who gets one: a seat once the game has started, and a listening
spectator (a spectator is as much a stranger as a seat: without its own relay it could not
listen to a relay-only table without showing its address); nobody in the lobby.

**Relay only.** Public and anonymous rooms (options `public`, `anonymous`) are strangers'
rooms: their pages use `iceTransportPolicy: "relay"` (the frame says so), and the signal relay
(`screen`) passes on relay candidates only: every host, server-reflexive and peer-reflexive
candidate (in an `ice` signal, or an `a=candidate` line of an offer or answer) is dropped, a
relay candidate's `raddr`/`rport` (the sender's own mapped address) become `0.0.0.0 0`, and a
`c=` or `a=rtcp` address that is no kept candidate's becomes `0.0.0.0`. So a stranger learns
only TURN servers' addresses. Other rooms (friends who shared a link) connect directly first.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from ..infra.errors import ServiceError
from ..infra.telemetry import count, logger
from ..protocol.server_frames import IceServersFrame, encode

TTL_SECONDS = 4 * 3600  # a credential outlives any game: an open pair keeps its relay (no renegotiation)
RELAY_ROOM_OPTIONS = ("public", "anonymous")

_TYP = re.compile(r" typ ([a-z]+)")
_RADDR = re.compile(r" raddr \S+ rport \d+")
_CAND_ADDR = re.compile(r"^candidate:\S+ \d+ \S+ \d+ (\S+) \d+ ")
_CONN_ADDR = re.compile(r"^(c=IN IP[46] |a=rtcp:\d+ IN IP[46] )(\S+)$")


def relay_only(room: dict) -> bool:
    """Whether the room's voice goes through TURN only (strangers: public or anonymous)."""
    options = room.get("options") or {}
    return any(bool(options.get(k)) for k in RELAY_ROOM_OPTIONS)


def password(secret: str, username: str) -> str:
    """The TURN REST API's password for `username`: base64(HMAC-SHA1(secret, username))."""
    return base64.b64encode(hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()).decode()


@dataclass
class Servers:
    """The TURN servers and their shared secret (fetched once, on first use, by `fetch`)."""

    urls: tuple[str, ...] = ()
    secret_id: str = ""
    fetch: Any = None  # secret_id -> the secret; default: Secrets Manager through boto3
    _secret: str | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_env(cls) -> Servers:
        urls = tuple(u.strip() for u in os.environ.get("TURN_URLS", "").split(",") if u.strip())
        return cls(urls=urls, secret_id=os.environ.get("TURN_SECRET_ARN", ""))

    @property
    def configured(self) -> bool:
        return bool(self.urls and self.secret_id)

    def secret(self) -> str:
        with self._lock:
            if self._secret is None:
                fetch = self.fetch or _secrets_manager
                self._secret = fetch(self.secret_id)
            return self._secret

    def credential(self, who: str, now: float, ttl: int = TTL_SECONDS) -> dict:
        """One `RTCIceServer` for `who`, valid until `now + ttl`."""
        username = f"{int(now) + ttl}:{who}"
        return {"urls": list(self.urls), "username": username, "credential": password(self.secret(), username)}


def _secrets_manager(secret_id: str) -> str:
    import boto3  # the service's infra: the Lambda runtime ships it

    return boto3.client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"]


_servers: Servers | None = None


_configured = False


def servers() -> Servers:
    """This container's TURN servers: the environment's (made again only when it changes, so
    the secret is read once per container), or what `configure` set."""
    global _servers
    if not _configured:
        env = Servers.from_env()
        if _servers is None or (_servers.urls, _servers.secret_id) != (env.urls, env.secret_id):
            _servers = env
    return _servers


def configure(value: Servers | None) -> None:
    """Use `value` (None: the environment's again)."""
    global _servers, _configured
    _servers, _configured = value, value is not None


def answer(snap, room: dict, conn_id: str, pid: str | None, frame_id: Any, now: float) -> bytes:
    """The `iceServers` frame for connection `conn_id` (its seat `pid`, None for a spectator):
    the TURN credential and the room's transport policy, or ServiceError."""
    if room.get("status") == "lobby" or snap.state is None:
        raise ServiceError("voice_closed", "voice opens when the game starts")
    if pid is None and snap.listeners.get(conn_id) is None:
        raise ServiceError("spectator", "this connection has no voice address: reconnect to listen")
    who = f"{room['code']}.{pid or 'spectator'}"
    turn = servers()
    ice = [turn.credential(who, now)] if turn.configured else []
    policy = "relay" if relay_only(room) else "all"
    if policy == "relay" and not ice:
        # fail closed: relay only and no relay, so the room has no voice (the page's bar says
        # so); the operator sees it here and in the smoke check (docs/operations.md, "Voice (TURN)")
        count("VoiceWithoutTurn")
        logger.warning("voice unavailable: a strangers' room is relay only and TurnUrls is empty",
                       extra={"room": room["code"]})
    return encode(
        IceServersFrame(
            id=frame_id,
            iceServers=ice,
            iceTransportPolicy=policy,
            expires=int(now) + TTL_SECONDS if ice else None,
        )
    )


# ---------------------------------------------------------------- relay only: the signal screen
def _relay_candidate(line: str) -> str | None:
    """`line` (an ICE candidate without `a=`) as it may reach a stranger: a relay candidate
    with its `raddr`/`rport` blanked, "" (the end) as it is, anything else None."""
    if line == "":
        return line
    typ = _TYP.search(line)
    if typ is None or typ.group(1) != "relay":
        return None
    return _RADDR.sub(" raddr 0.0.0.0 rport 0", line)


def screen_sdp(sdp: str) -> str:
    """`sdp` with its non-relay candidates dropped and no address but relays' left."""
    lines = sdp.split("\r\n")
    kept: list[str] = []
    relays: set[str] = set()
    for line in lines:
        if line.startswith("a=candidate:"):
            relay = _relay_candidate(line[2:])
            if relay is None:
                continue
            line = "a=" + relay
            if m := _CAND_ADDR.match(relay):
                relays.add(m.group(1))
        kept.append(line)
    for i, line in enumerate(kept):
        m = _CONN_ADDR.match(line)
        if m and m.group(2) not in relays and m.group(2) not in ("0.0.0.0", "::"):
            kept[i] = m.group(1)[: m.group(1).index("IN IP")] + "IN IP4 0.0.0.0"
    return "\r\n".join(kept)


def screen(room: dict, frame):
    """The signal `frame` as the relay may pass it on in `room`: unchanged where peers may
    connect directly; in a relay-only room with its non-relay candidates gone (an `ice`
    signal of one is refused: `relay_only`)."""
    if not relay_only(room):
        return frame
    if frame.sdp is not None:
        return frame.model_copy(update={"sdp": screen_sdp(frame.sdp)})
    if frame.candidate is not None:
        relay = _relay_candidate(frame.candidate.candidate)
        if relay is None:
            raise ServiceError(
                "relay_only", "this room's voice goes through the relay: only relay candidates are passed on"
            )
        return frame.model_copy(update={"candidate": frame.candidate.model_copy(update={"candidate": relay})})
    return frame
