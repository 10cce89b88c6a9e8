"""A scripted client of the offline (or deployed) stack: REST seats, WebSocket players and
spectators, and a bot that plays any preset by the server's own bot policy
(``mafia_engine.bots.policy``) from its socket's view.

Used by tests/e2e, bench/e2e.py and the browser tests (to fill a room with bots)::

    async with aiohttp.ClientSession() as http:
        api = Api(http, "http://127.0.0.1:8000/")
        host = await api.create_room("Ann")
        seats = [host] + [await api.join(host.room, f"P{i}") for i in range(5)]
        players = [await Player.connect(http, s) for s in seats]
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import jsonpatch

from mafia_engine.bots import policy  # the server's bots' own (layers/engine on the path)


class ApiError(Exception):
    """A REST call answered with an error status."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body

    @property
    def code(self) -> str | None:
        if isinstance(self.body, dict):
            return (self.body.get("error") or {}).get("code")
        return None


@dataclass(frozen=True)
class Seat:
    """What POST /rooms or POST /rooms/{code}/players hands out."""

    room: str
    player_id: str
    token: str
    ws_url: str
    name: str = ""


class Api:
    """The REST API under ``base_url`` (``http://host:port/``; the API lives at ``/api``)."""

    def __init__(self, http: aiohttp.ClientSession, base_url: str, api_path: str = "api") -> None:
        self.http = http
        self.base = base_url.rstrip("/") + "/" + api_path.strip("/")
        self.origin = base_url.rstrip("/")

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with self.http.request(
            method, self.base + path, json=body, headers={"Origin": self.origin}
        ) as r:
            text = await r.text()
            try:
                return r.status, json.loads(text) if text else None
            except ValueError:
                return r.status, text

    async def _ok(self, method: str, path: str, body: Any = None) -> Any:
        status, out = await self.call(method, path, body)
        if status >= 400:
            raise ApiError(status, out)
        return out

    def _ws_url(self, out: dict) -> str:
        url = out.get("wsUrl") or ""
        if url.startswith("/") or not url:
            url = self.origin.replace("http", "ws", 1) + (url or "/ws")
        return url

    async def create_room(self, name: str, preset: str = "classic", options: dict | None = None) -> Seat:
        out = await self._ok("POST", "/rooms", {"name": name, "preset": preset, "options": options or {}})
        return Seat(out["roomCode"], out["playerId"], out["token"], self._ws_url(out), name)

    async def join(self, room: str, name: str) -> Seat:
        out = await self._ok("POST", f"/rooms/{room}/players", {"name": name})
        return Seat(room, out["playerId"], out["token"], self._ws_url(out), name)

    async def summary(self, room: str) -> dict:
        return await self._ok("GET", f"/rooms/{room}")


@dataclass
class Received:
    """One frame as the client got it."""

    at: float  # time.monotonic() at receipt
    size: int
    data: Any  # a `patch` that applied is here as the view frame it made
    patch: dict | None = None  # that patch, as received


class Player:
    """One WebSocket connection (a player with a token, or a spectator without)."""

    _ids = itertools.count(1)

    def __init__(
        self,
        http: aiohttp.ClientSession,
        ws_url: str,
        room: str,
        token: str | None = None,
        *,
        origin: str | None = None,
        name: str = "",
        patches: bool = False,
    ) -> None:
        self.http = http
        self.ws_url = ws_url
        self.room = room
        self.token = token
        self.origin = origin
        self.name = name
        # ask for views as patches (`?patches=1`, as the web client does). Off by default: most
        # tests read the frames as sent; the e2e soak (tests/e2e/test_game.py) plays on patches
        self.patches = patches
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.frames: list[Received] = []
        self.view: dict | None = None
        self.version = -1
        self.view_at = 0.0  # monotonic receipt time of self.view
        self.errors: list[dict] = []
        self.other: list[Any] = []  # frames that are neither views nor errors
        self.close_code: int | None = None
        self._reader: asyncio.Task | None = None
        self._changed = asyncio.Event()
        self._watchers: list[Callable[[Player, Received], None]] = []

    # ------------------------------------------------------------------ connection
    @classmethod
    async def connect(
        cls,
        http: aiohttp.ClientSession,
        seat: Seat | None = None,
        *,
        ws_url: str | None = None,
        room: str | None = None,
        token: str | None = None,
        origin: str | None = None,
        sync: bool = True,
        patches: bool = False,
    ) -> Player:
        """Open a socket (as ``seat``, or as a spectator with ``room`` only); ``sync`` asks for the view."""
        if seat is not None:
            ws_url, room, token = seat.ws_url, seat.room, seat.token
        assert ws_url and room
        player = cls(http, ws_url, room, token, origin=origin, name=seat.name if seat else "", patches=patches)
        await player.open()
        if sync:
            await player.send("sync")
            await player.wait_for(lambda p: p.view is not None, timeout=10)
        return player

    def seat_id(self) -> str | None:
        """This connection's player id (from its view), None for a spectator."""
        return ((self.view or {}).get("you") or {}).get("id")

    def url(self) -> str:
        # `patches=1`: views as patches after the first (docs/protocol.md, "Patches"; `_patched`)
        q = f"room={self.room}" + (f"&token={self.token}" if self.token else "") + ("&patches=1" if self.patches else "")
        return f"{self.ws_url}?{q}"

    async def open(self) -> None:
        headers = {"Origin": self.origin} if self.origin else None
        self.ws = await self.http.ws_connect(self.url(), headers=headers, max_msg_size=0, autoping=True)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        ws = self.ws
        assert ws is not None
        try:
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    self._on_frame(msg.data)
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    self._on_frame(msg.data.decode("utf-8", "replace"))
                else:
                    break
        except (aiohttp.ClientError, ConnectionError):
            pass
        finally:
            self.close_code = ws.close_code
            self._wake()

    def _on_frame(self, text: str) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            data = text
        got = Received(time.monotonic(), len(text.encode()), data)
        if isinstance(data, dict) and data.get("type") == "patch":
            data = self._patched(data)
            got = Received(got.at, got.size, data, patch=got.data)
        self.frames.append(got)
        if isinstance(data, dict) and data.get("type") == "view":
            if data.get("version", 0) >= self.version or self.view is None:
                self.version = data.get("version", 0)
                self.view = data["view"]
                self.view_at = got.at
        elif isinstance(data, dict) and data.get("type") == "error":
            self.errors.append(data)
        else:
            self.other.append(data)
        for watch in self._watchers:
            watch(self, got)
        self._wake()

    def _patched(self, patch: dict) -> dict:
        """The view frame a `patch` makes of the view held (docs/protocol.md, "Patches"); a
        patch that does not follow it stays a patch, and a `sync` is asked for."""
        if self.view is not None and patch.get("version") == self.version + 1:
            base = {k: v for k, v in self.view.items() if k not in ("serverNow", "clockRate")}
            try:
                view = jsonpatch.apply_patch(base, patch.get("ops") or [])
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
                view = None
            if view is not None:
                view.update(serverNow=patch.get("serverNow"), clockRate=patch.get("clockRate"))
                return {"type": "view", "version": patch["version"], "view": view}
        if self.ws is not None and not self.ws.closed and patch.get("version", 0) > self.version:
            asyncio.get_running_loop().create_task(self.send("sync"))
        return patch

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def watch(self, fn: Callable[[Player, Received], None]) -> None:
        """Call ``fn(player, frame)`` on every frame (benchmarks use it to time views)."""
        self._watchers.append(fn)

    @property
    def closed(self) -> bool:
        return self.ws is None or self.ws.closed

    async def close(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=5)

    async def wait_closed(self, timeout: float = 10) -> int | None:
        await self.wait_for(lambda p: p.closed and (p._reader is None or p._reader.done()), timeout=timeout)
        return self.close_code

    # ------------------------------------------------------------------ frames
    async def send(self, action: str, **payload: Any) -> str:
        """Send ``{"action": action, "id": ..., **payload}``; returns the frame id."""
        fid = f"c{next(self._ids)}"
        await self.send_raw(json.dumps({"action": action, "id": fid, **payload}))
        return fid

    async def send_raw(self, data: str | bytes) -> None:
        assert self.ws is not None
        if isinstance(data, bytes):
            await self.ws.send_bytes(data)
        else:
            await self.ws.send_str(data)

    async def wait_for(self, predicate: Callable[[Player], Any], timeout: float = 10.0) -> Any:
        """Wait until ``predicate(self)`` is truthy (checked at every frame); returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate(self)
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"{self.name or self.token or 'spectator'}: condition not met in {timeout}s "
                    f"(phase={self.phase_kind()}, version={self.version})"
                )
            if self.closed and (self._reader is None or self._reader.done()):
                # Nothing more will arrive; one last check.
                value = predicate(self)
                if value:
                    return value
                raise ConnectionError(f"socket closed ({self.close_code}) while waiting")
            event = self._changed
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                pass

    async def wait_view(self, predicate: Callable[[dict], Any], timeout: float = 10.0) -> dict:
        return await self.wait_for(lambda p: p.view is not None and predicate(p.view) and p.view, timeout)

    async def request(self, action: str, timeout: float = 10.0, **payload: Any) -> dict:
        """Send and wait for the answer: the next view (``{"type": "view"...}``) or this frame's error."""
        before = len(self.frames)
        fid = await self.send(action, **payload)

        def answered(p: Player) -> dict | None:
            for got in p.frames[before:]:
                d = got.data
                if isinstance(d, dict) and (d.get("type") == "view" or d.get("id") == fid):
                    return d
            return None

        return await self.wait_for(answered, timeout)

    def error_for(self, fid: str) -> dict | None:
        return next((e for e in self.errors if e.get("id") == fid), None)

    # ------------------------------------------------------------------ clock
    def phase_kind(self) -> str | None:
        return ((self.view or {}).get("phase") or {}).get("kind")

    def server_now(self) -> float:
        """The server clock, estimated from the last view's ``serverNow`` and ``clockRate``
        (0 on a manual clock: it stands still until a step pushes a new view)."""
        v = self.view or {}
        rate = float(v["clockRate"]) if isinstance(v.get("clockRate"), int | float) else 1.0
        return float(v.get("serverNow") or 0.0) + (time.monotonic() - self.view_at) * rate

    def seconds_left(self) -> float | None:
        """Real seconds until the phase's ``endsAt`` (None when untimed; game seconds on a
        manual clock, where no real time brings it closer)."""
        v = self.view or {}
        ends = (v.get("phase") or {}).get("endsAt")
        if ends is None:
            return None
        return (float(ends) - self.server_now()) / float(v.get("clockRate") or 1.0)


# ---------------------------------------------------------------------- the bot
@dataclass
class Bot:
    """Plays one seat with the server's bot policy (``mafia_engine.bots.policy``: the one
    scripted player, reading only this socket's view) and nudges when its countdown hits zero.

    The client adds only what a socket needs on top of the policy: each distinct action is
    sent at most once a phase (a refused or unseen one is not sent again and again), and the
    knobs below. The functions tier's random explorer (``mafia_engine.testing.legal_actions``)
    is a different thing on purpose: it sends what the policy never would, to find refusals.
    """

    player: Player
    rng: random.Random = field(default_factory=random.Random)
    nudge: bool = True
    # also press the discussion's ``readyEarly`` that the view does not show (classic,
    # ``rules.readyUnseen``): the policy's ``decide`` leaves it to ``plan``, which the server's
    # loop schedules once; False sends no ``readyEarly`` in a discussion at all
    ready_early: bool = True
    # the chance of a "yes" ballot on a ``confirm`` task in place of the policy's choice (None:
    # the policy's). bench/e2e.py sets 0.8 for more executions, so shorter games to measure
    confirm_yes: float | None = None
    chat: bool = False  # the policy's chat lines too (off: tests count frames and errors)
    lang: str = "en"  # the language of those lines
    seed: int | str | None = None  # the policy's seed; None: drawn from ``rng`` (deterministic tests)
    actions_sent: int = 0
    nudges_sent: int = 0
    jitter: random.Random = field(default_factory=random.Random)  # the nudges' spread, apart from `rng`
    _sent: set = field(default_factory=set)
    _ballots: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.seed is None:
            self.seed = self.rng.getrandbits(64)

    def decide(self) -> dict | None:
        """The next frame to send for the current view (``{"action": type, ...}``), or None."""
        v = self.player.view
        if not v or not v.get("you"):
            return None
        seq = (v.get("phase") or {}).get("seq")
        for a in self._wanted(v):
            key = (seq, json.dumps(a, sort_keys=True))
            if key in self._sent:
                continue
            self._sent.add(key)
            frame = {k: val for k, val in a.items() if k != "type"}
            return {"action": a["type"], **frame}
        return None

    def _wanted(self, v: dict) -> list[dict]:
        """What the policy wants now, through the knobs (engine action dicts, ``type`` first)."""
        now = self.player.server_now()
        out = [a for a in policy.decide(v, self.seed, now, self.lang) if self.chat or a["type"] != "chat"]
        discussion = (v.get("phase") or {}).get("kind") == "discussion"
        if self.ready_early and discussion:
            out += [a for _, a in policy.plan(v, self.seed, now, lang=self.lang) if a["type"] == "readyEarly"]
        elif discussion:
            out = [a for a in out if a["type"] != "readyEarly"]
        if self.confirm_yes is not None:
            out = [self._ballot(a) if a["type"] == "confirm" else a for a in out]
        return out

    def _ballot(self, action: dict) -> dict:
        """``confirm_yes``'s own draw, once a phase (the same ballot again is not sent twice)."""
        seq = ((self.player.view or {}).get("phase") or {}).get("seq")
        if seq not in self._ballots:
            self._ballots[seq] = "yes" if self.rng.random() < self.confirm_yes else "no"
        return {**action, "choice": self._ballots[seq]}

    async def step(self) -> bool:
        """Send what ``decide`` says; returns whether something was sent."""
        frame = self.decide()
        if frame is None:
            return False
        action = frame.pop("action")
        await self.player.send(action, **frame)
        self.actions_sent += 1
        return True

    async def _nudge(self, nudged: dict) -> None:
        """The phase's deadline passed: nudge the server with the phase's seq, as the web client
        does (web/js/tick.js): at most 6 times a phase, the k-th retry 1.5 k s (real) after the
        one before plus a jitter. A nudge the server finds early answers the current view; one
        for a phase already over changes nothing. Unbounded, a room's bots nudging 4 times a
        second filled the offline stack's handler queue whenever a phase end came late."""
        seq = ((self.player.view or {}).get("phase") or {}).get("seq")
        now = time.monotonic()
        if nudged["seq"] != seq:
            nudged.update(seq=seq, count=0, next=now)
        if nudged["count"] < 6 and now >= nudged["next"]:
            nudged["count"] += 1
            nudged["next"] = now + 1.5 * nudged["count"] + self.jitter.random() * 0.5
            await self.player.send("nudge", phase=seq)
            self.nudges_sent += 1

    async def play(self, until: Callable[[Player], bool] | None = None, timeout: float = 120.0) -> dict:
        """Play until the game has a result (or ``until``); returns the final view."""
        until = until or (lambda p: bool((p.view or {}).get("result")))
        deadline = time.monotonic() + timeout
        nudged: dict = {"seq": None, "count": 0, "next": 0.0}
        while not until(self.player):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{self.player.name}: game not over after {timeout}s (phase={self.player.phase_kind()})"
                )
            await self.step()
            left = self.player.seconds_left()
            if self.nudge and left is not None and left <= 0:
                await self._nudge(nudged)
            wait = 0.25 if left is None else max(0.005, min(0.25, left + 0.01))
            version = self.player.version
            try:
                await self.player.wait_for(lambda p, v=version: p.version != v or p.closed, timeout=wait)
            except TimeoutError:
                pass
            if self.player.closed:
                raise ConnectionError(f"{self.player.name}: socket closed ({self.player.close_code})")
        return self.player.view or {}


async def fill_room(
    api: Api, n_players: int, *, preset: str = "classic", options: dict | None = None, prefix: str = "P"
) -> list[Seat]:
    """Create a room and seat ``n_players`` (the first is the host)."""
    host = await api.create_room(f"{prefix}1", preset, options)
    seats = [host]
    for i in range(2, n_players + 1):
        seats.append(await api.join(host.room, f"{prefix}{i}"))
    return seats


async def ready_up(player: Player, *, timeout: float = 20) -> None:
    """Mark ``player`` ready, retrying while the room answers ``busy`` (optimistic-lock contention)."""
    deadline = time.monotonic() + timeout
    pid = player.seat_id()
    while True:
        fid = await player.send("ready", ready=True)
        try:
            await player.wait_for(
                lambda p, f=fid: (
                    p.error_for(f)
                    or any(q["id"] == pid and q.get("ready") for q in (p.view or {}).get("players", []))
                ),
                timeout=max(0.1, deadline - time.monotonic()),
            )
        except TimeoutError:
            raise TimeoutError(f"{player.name}: not ready after {timeout}s") from None
        err = player.error_for(fid)
        if err is None:
            return
        if err.get("code") != "busy" or time.monotonic() > deadline:
            raise RuntimeError(f"{player.name}: ready refused: {err}")
        await asyncio.sleep(random.uniform(0.01, 0.1))


async def start_game(
    http: aiohttp.ClientSession, seats: list[Seat], *, timeout: float = 20, patches: bool = False
) -> list[Player]:
    """Connect every seat, mark everyone ready, start (host = seats[0]); returns the players
    (`patches`: their sockets ask for views as patches)."""
    players = await seat_ready(http, seats, timeout=timeout, patches=patches)
    await start_seated(players, timeout=timeout)
    return players


async def seat_ready(
    http: aiohttp.ClientSession, seats: list[Seat], *, timeout: float = 20, patches: bool = False
) -> list[Player]:
    """`start_game`'s first half: every seat connected and every guest ready (all at once)."""
    players = [await Player.connect(http, s, patches=patches) for s in seats]
    await asyncio.gather(*(ready_up(p, timeout=timeout) for p in players[1:]))
    n = len(players)
    await players[0].wait_view(lambda v: sum(1 for q in v["players"] if q.get("ready")) >= n - 1, timeout)
    return players


async def start_seated(players: list[Player], *, timeout: float = 20) -> None:
    """`start_game`'s second half: the host (players[0]) starts, and every view leaves the lobby."""
    deadline = time.monotonic() + timeout
    while True:
        reply = await players[0].request("start", timeout=timeout)
        if reply.get("type") != "error":
            break
        if reply.get("code") != "busy" or time.monotonic() > deadline:
            raise RuntimeError(f"start refused: {reply}")
        await asyncio.sleep(0.05)
    for p in players:
        await p.wait_view(lambda v: v["phase"]["kind"] != "lobby", timeout)
