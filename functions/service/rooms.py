"""Rooms: the lobby, room operations and engine actions, applied with optimistic locking.

Every change follows one path (`RoomService._mutate`): one Query reads the room and its
connections, a pure change function builds the new room data / engine state, one conditional
write stores it (reload and re-apply on a conflict, bounded), then the frames go out in
parallel to the connections whose view changed, Gone connections are dropped and the phase
timer is armed if the phase changed. A refused frame writes nothing and answers the sender
with an error frame.
"""

from __future__ import annotations

import copy
import json
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mafia_engine as me

from . import auth, botplay, clock, views
from .errors import ServiceError
from .fanout import Gateway, push_all
from .storage import Conflict, Snapshot, Store
from .telemetry import count, logger
from .timers import Timers
from .views import preset_info

ROOM_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
ROOM_CODE_LENGTH = 5
MAX_FRAME_BYTES = 8 * 1024
MAX_ATTEMPTS = 8
CONNECT_GRACE_SECONDS = 2.0  # real seconds a new connection is not dropped for a 410 (see _mutate)
BACKOFF_BASE_SECONDS = 0.01  # jittered, doubling: racing writers of one room spread out
ARCHIVE_BATCH = 25  # chat messages per archive item
SERVER_ONLY_ACTIONS = frozenset({"phaseTimeout", "presence"})
HOST_ACTIONS = frozenset({"pause", "resume", "endGame"})  # the engine applies them; the room checks the host
HOST_AWAY_SECONDS = 60  # city: another player may take the room over after the host is gone this long
RESERVED_KEYS = frozenset({"action", "id", "type", "player", "room"})


@dataclass
class Change:
    """What a change function produced; the mutate loop writes and pushes it."""

    snap: Snapshot
    room: dict
    state: Any  # engine state object or None
    now: float
    write: bool = True
    bump: bool = True
    conn_puts: dict[str, str | None] = field(default_factory=dict)
    conn_deletes: list[str] = field(default_factory=list)
    exclude: set[str] = field(default_factory=set)  # connections not to push to
    replies: dict[str, bytes] = field(default_factory=dict)  # direct frames (errors, sync)
    close: list[str] = field(default_factory=list)  # connections to close after the write
    sync_to: str | None = None  # connection that gets its full view whatever changed
    result: Any = None
    before: Any = None  # the engine state as read (for views with no stored digest)
    drained: bool = False  # bot actions were applied before the request's own change


def _setup_error(preset: str, options: dict, n_players: int) -> dict | None:
    """The engine's reason a start would be refused, as {"code", "message"}, or None."""
    try:
        me.check_setup({**options, "preset": preset}, n_players)
    except me.InvalidAction as exc:
        return {"code": exc.code, "message": exc.message if hasattr(exc, "message") else str(exc)}
    return None


class RoomService:
    """Room operations over an injected Store, Gateway and Timers."""

    def __init__(
        self, store: Store, gateway: Gateway, timers: Timers, ws_url: str = "", allowed_origins=("*",)
    ):
        self.store = store
        self.gateway = gateway
        self.timers = timers
        self.ws_url = ws_url
        self.allowed_origins = tuple(allowed_origins)
        self._conn_rooms: OrderedDict[str, str] = OrderedDict()  # warm cache: connection -> room

    # ================================================================ REST: rooms and seats
    def create_room(
        self, name: str, preset: str = "classic", options: dict | None = None, lang: str = "en"
    ) -> dict:
        """A new room with its creator as host and first player (p1)."""
        options = dict(options or {})
        options.pop("preset", None)
        err = _setup_error(preset, options, 1)
        if err and err["code"] == "bad_options":
            raise ServiceError("bad_options", err["message"], 400)
        token = auth.new_token()
        room = {
            "preset": preset,
            "options": options,
            "status": "lobby",
            "host": "p1",
            "nextId": 2,
            "seed": secrets.randbits(31),
            "lang": lang,
            "players": [self._seat("p1", name, token)],
            "views": {},
            "timer": None,
            "archive": {"seq": 0, "buffer": []},
        }
        for _ in range(20):
            code = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_LENGTH))
            room["code"] = code
            if self.store.create(code, room):
                logger.info("room created", extra={"room": code, "player": "p1"})
                return {"roomCode": code, "playerId": "p1", "token": token, "wsUrl": self.ws_url}
        raise ServiceError("busy", "could not find a free room code", 503)

    def join_room(self, code: str, name: str) -> dict:
        """A new seat in a lobby: the next player id and a fresh token."""
        code = code.upper()
        token = auth.new_token()

        def change(c: Change) -> None:
            room = c.room
            if room["status"] != "lobby":
                raise ServiceError("already_started", "the game has already started", 409)
            limit = preset_info(room["preset"])["maxPlayers"]
            if len(room["players"]) >= limit:
                raise ServiceError("room_full", f"the room is full ({limit} players)", 409)
            if any(p["name"].casefold() == name.casefold() for p in room["players"]):
                raise ServiceError("name_taken", f"the name {name!r} is taken in this room", 409)
            pid = f"p{room['nextId']}"
            room["nextId"] += 1
            room["players"].append(self._seat(pid, name, token))
            c.result = {"playerId": pid, "token": token, "wsUrl": self.ws_url}

        out = self._mutate(code, change)
        logger.info("player joined", extra={"room": code, "player": out["playerId"]})
        return out

    def summary(self, code: str) -> dict:
        """The public lobby summary (no tokens, no roles)."""
        snap = self._load(code.upper())
        room = snap.room
        connected = {p for p in snap.conns.values() if p}
        state = me.load(snap.state) if snap.state is not None else None
        phase = "lobby"
        if state is not None:
            phase = (me.dump(state).get("phase") or {}).get("kind", "unknown")
        return {
            "roomCode": room["code"],
            "preset": room["preset"],
            "options": views.shown_options(room["preset"], room["options"]),
            "status": room["status"],
            "phase": phase,
            "host": room["host"],
            "maxPlayers": preset_info(room["preset"])["maxPlayers"],
            "setupError": _setup_error(room["preset"], room["options"], len(room["players"]))
            if room["status"] == "lobby"
            else None,
            "players": [
                {
                    "id": p["id"],
                    "name": p["name"],
                    "ready": bool(p.get("ready")),
                    "host": p["id"] == room["host"],
                    "bot": bool(p.get("bot")),
                    "connected": p["id"] in connected,
                    "left": bool(p.get("left")),  # left a running game: the seat is closed
                }
                for p in room["players"]
            ],
        }

    # ================================================================ WebSocket lifecycle
    def connect(
        self, conn_id: str, code: str | None, token: str | None, origin: str | None = None
    ) -> str | None:
        """Admit a connection: a player (token of this room) or a spectator (no token).

        Returns the player id (None for a spectator). Raises ServiceError to refuse.
        """
        if not auth.origin_allowed(origin, self.allowed_origins):
            raise ServiceError("bad_origin", "origin not allowed", 403)
        if not code:
            raise ServiceError("bad_request", "query parameter 'room' is required", 400)
        code = code.upper()

        def change(c: Change) -> None:
            pid = None
            if token:
                pid = auth.find_player(c.room["players"], token)
                if pid is None:
                    raise ServiceError("bad_token", "token not valid for this room", 403)
            c.conn_puts[conn_id] = pid
            c.exclude.add(conn_id)  # API Gateway can't post to it before $connect returns
            if pid is None:
                c.bump = False
            elif pid not in c.snap.conns.values():
                self._presence(c, pid, True)
            c.result = pid

        pid = self._mutate(code, change)
        self._remember(conn_id, code)
        logger.info("connected", extra={"room": code, "player": pid or "spectator"})
        return pid

    def disconnect(self, conn_id: str) -> None:
        """Forget a connection; a player's last connection feeds the engine's absence rule."""
        code = self._conn_rooms.pop(conn_id, None) or self.store.lookup_connection(conn_id)
        if code is None:
            return
        try:
            self._drop(code, [conn_id])
        except ServiceError:
            pass  # the room is gone already

    def _drop(self, code: str, conn_ids: list[str]) -> None:
        def change(c: Change) -> None:
            gone = [x for x in conn_ids if x in c.snap.conns]
            if not gone:
                c.write = False
                return
            c.conn_deletes.extend(gone)
            remaining = {k: v for k, v in c.snap.conns.items() if k not in gone}
            players = {c.snap.conns[x] for x in gone} - {None}
            c.bump = bool(players)
            for pid in sorted(players - set(remaining.values())):
                self._presence(c, pid, False)

        self._mutate(code, change)

    # ================================================================ WebSocket frames
    def handle_message(self, conn_id: str, body: str | bytes | None) -> None:
        """Entry point for `$default`: size cap, parse, route; refusals answer with an error frame."""
        raw = body.encode("utf-8") if isinstance(body, str) else (body or b"")
        if len(raw) > MAX_FRAME_BYTES:
            self._reply_error(conn_id, None, "too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
            return
        try:
            frame = json.loads(raw)
        except ValueError:
            self._reply_error(conn_id, None, "bad_frame", "a frame is one JSON object")
            return
        self.apply_frame(conn_id, frame)

    def apply_frame(self, conn_id: str, frame: Any) -> None:
        """Apply one client frame as connection `conn_id` (used by `$default`, the offline stack, bots).

        The actor is the connection's player; a `player` key in the frame is ignored.
        """
        frame_id = frame.get("id") if isinstance(frame, dict) else None
        try:
            from .models import parse_frame

            frame = parse_frame(frame)
            code = self._room_of(conn_id, frame.get("room"))
            op = ROOM_OPS.get(frame["action"])
            if op is not None:
                self._mutate(code, lambda c: op(self, c, conn_id, frame), sender=conn_id)
            else:
                self._mutate(code, lambda c: self._engine_action(c, conn_id, frame), sender=conn_id)
        except ServiceError as exc:
            self._reply_error(conn_id, frame_id, exc.code, exc.message)
        except Exception:  # noqa: BLE001 - the sender learns something went wrong; we learn what
            logger.exception("frame failed", extra={"connection": conn_id})
            self._reply_error(conn_id, frame_id, "internal_error", "the server could not handle this frame")

    def timeout(self, code: str, phase: int, at: int | None = None) -> str:
        """A Scheduler delivery: end phase `phase` if it is due. Returns what happened."""

        def change(c: Change) -> None:
            if c.state is None or c.room["status"] != "running":
                c.write, c.result = False, "not_running"
                return
            try:
                c.state = me.apply(c.state, {"type": "phaseTimeout", "phase": phase}, now=c.now)
                c.result = "applied"
            except me.InvalidAction as exc:
                c.write, c.result = False, exc.code
                if exc.code == "too_early" and me.phase_seq(c.state) == phase:
                    deadline = me.deadline(c.state)
                    if deadline is not None:  # fired inside the minute but before the second
                        self.timers.arm(code, phase, deadline, after=at)

        try:
            outcome = self._mutate(code.upper(), change)
        except ServiceError as exc:
            outcome = exc.code
        count("Timeouts")
        logger.info("phase timeout", extra={"room": code, "phase": phase, "outcome": outcome})
        return outcome

    # ================================================================ room operations
    def _op_sync(self, c: Change, conn_id: str, frame: dict) -> None:
        self._sender(c, conn_id)
        c.write = False
        c.sync_to = conn_id

    def _op_ready(self, c: Change, conn_id: str, frame: dict) -> None:
        pid = self._player(c, conn_id)
        self._lobby(c)
        ready = frame.get("ready", True)
        if not isinstance(ready, bool):
            raise ServiceError("bad_frame", "'ready' must be true or false")
        seat = self._seat_of(c.room, pid)
        if bool(seat.get("ready")) == ready:
            c.write = False
            return
        seat["ready"] = ready

    def _op_set_options(self, c: Change, conn_id: str, frame: dict) -> None:
        self._host(c, conn_id)
        self._lobby(c)
        options = frame.get("options")
        if not isinstance(options, dict):
            raise ServiceError("bad_frame", "'options' must be an object")
        options = dict(options)
        preset = options.pop("preset", None) or frame.get("preset") or c.room["preset"]
        err = _setup_error(preset, options, len(c.room["players"]))
        if err and err["code"] == "bad_options":
            raise ServiceError("bad_options", err["message"])
        c.room["preset"] = preset
        c.room["options"] = options
        for p in c.room["players"]:
            p["ready"] = bool(p.get("bot"))  # a rule change clears every ready mark (bots stay ready)

    def _op_start(self, c: Change, conn_id: str, frame: dict) -> None:
        host = self._host(c, conn_id)
        self._lobby(c)
        room = c.room
        err = _setup_error(room["preset"], room["options"], len(room["players"]))
        if err:
            raise ServiceError(err["code"], err["message"] or "the game cannot start with this setup", 409)
        waiting = [p["name"] for p in room["players"] if p["id"] != host and not p.get("ready")]
        if waiting:
            raise ServiceError("not_ready", "waiting for: " + ", ".join(waiting), 409)
        ids = [p["id"] for p in room["players"]]
        try:
            c.state = me.new_game(
                players=ids,
                options={**room["options"], "preset": room["preset"]},
                seed=room["seed"],
                now=c.now,
            )
        except me.InvalidAction as exc:
            raise ServiceError(exc.code, str(exc), 409) from exc
        room["status"] = "running"
        present = set(c.snap.conns.values())
        bots = {p["id"] for p in room["players"] if p.get("bot")}
        for pid in ids:
            if pid not in present and pid not in bots:  # bots never connect and are never absent
                self._presence(c, pid, False)

    def _op_nudge(self, c: Change, conn_id: str, frame: dict) -> None:
        self._sender(c, conn_id)
        if c.state is None or c.room["status"] != "running":
            raise ServiceError("not_running", "no phase to end")
        seq = me.phase_seq(c.state)
        if frame.get("phase") is not None and frame.get("phase") != seq:
            # That phase is over already: the new view is on its way (or was sent). Nothing to do.
            c.write = False
            return
        try:
            c.state = me.apply(c.state, {"type": "phaseTimeout", "phase": seq}, now=c.now)
        except me.InvalidAction:
            # Too early (clock skew, or a nudge at room.wakeAt for the bots): answer with the
            # current view, whose serverNow lets the client correct its countdown. Nothing is
            # written unless bot actions fell due (then their changes are pushed instead).
            c.write = False
            c.sync_to = None if c.drained else conn_id

    def _op_kick(self, c: Change, conn_id: str, frame: dict) -> None:
        host = self._host(c, conn_id)
        self._lobby(c)
        target = frame.get("target")
        if target == host:
            raise ServiceError("bad_target", "the host cannot kick themselves")
        self._seat_of(c.room, target)
        self._remove_player(c, target, "kicked", "the host removed you from the room")

    def _op_leave(self, c: Change, conn_id: str, frame: dict) -> None:
        pid = self._player(c, conn_id)
        if c.room["status"] == "lobby":
            self._remove_player(c, pid, "left", "you left the room")
            return
        # A running game keeps the seat; the engine eliminates the character (and may decide
        # the game at once), and the seat's token stops working so it cannot come back.
        seat = self._seat_of(c.room, pid)
        seat["tokenHash"] = ""
        seat["left"] = True
        conns = [k for k, v in c.snap.conns.items() if v == pid]
        c.conn_deletes.extend(conns)
        c.close.extend(conns)
        for k in conns:
            c.replies[k] = views.error_frame(frame.get("id"), "left", "you left the game")
        if c.room["status"] == "running":
            if "leave" in me.ACTION_TYPES:
                try:
                    c.state = me.apply(c.state, {"type": "leave", "player": pid}, now=c.now)
                except me.InvalidAction:
                    self._presence(c, pid, False)
            else:
                self._presence(c, pid, False)
        if c.room["host"] == pid:
            nxt = [p["id"] for p in c.room["players"] if not p.get("left") and not p.get("bot")]
            if nxt:
                c.room["host"] = nxt[0]

    def _op_add_bot(self, c: Change, conn_id: str, frame: dict) -> None:
        self._host(c, conn_id)
        self._lobby(c)
        room = c.room
        limit = preset_info(room["preset"])["maxPlayers"]
        if len(room["players"]) >= limit:
            raise ServiceError("room_full", f"the room is full ({limit} players)")
        taken = {p["name"].casefold() for p in room["players"]}
        name = frame.get("name")
        if name is not None and (not isinstance(name, str) or not 1 <= len(name.strip()) <= 24):
            raise ServiceError("bad_frame", "'name' must be 1-24 characters")
        name = name.strip() if name else next(f"Bot {i}" for i in range(1, 100) if f"bot {i}" not in taken)
        if name.casefold() in taken:
            raise ServiceError("name_taken", f"the name {name!r} is taken in this room")
        pid = f"p{room['nextId']}"
        room["nextId"] += 1
        # no token: nobody can connect as a bot
        room["players"].append({"id": pid, "name": name, "tokenHash": "", "ready": True, "bot": True})

    def _op_new_game(self, c: Change, conn_id: str, frame: dict) -> None:
        self._host(c, conn_id)
        if c.room["status"] != "ended":
            raise ServiceError("not_ended", "a new game can start once this one has ended")
        room = c.room
        room["players"] = [p for p in room["players"] if not p.get("left")]
        for p in room["players"]:
            p["ready"] = bool(p.get("bot"))
        room.update(status="lobby", seed=secrets.randbits(31), timer=None)
        room.pop("botPlan", None)
        c.state = None

    def _op_take_host(self, c: Change, conn_id: str, frame: dict) -> None:
        pid = self._player(c, conn_id)
        room = c.room
        if room["host"] == pid:
            c.write = False
            return
        away = room.get("hostAwaySince")
        if away is None or c.now - away < HOST_AWAY_SECONDS:
            raise ServiceError("host_present", f"the host has not been away for {HOST_AWAY_SECONDS} s")
        room["host"] = pid

    def _engine_action(self, c: Change, conn_id: str, frame: dict) -> None:
        pid = self._player(c, conn_id)
        kind = frame["action"]
        if kind in SERVER_ONLY_ACTIONS:
            raise ServiceError("forbidden_action", f"'{kind}' is sent by the server only")
        if kind in HOST_ACTIONS and pid != c.room["host"]:
            raise ServiceError("not_host", f"only the host can {kind}")
        if c.state is None or c.room["status"] == "lobby":
            raise ServiceError("not_started", "the game has not started")
        action = {k: v for k, v in frame.items() if k not in RESERVED_KEYS}
        action["type"] = kind
        action["player"] = pid  # from the connection, never from the payload
        try:
            c.state = me.apply(c.state, action, now=c.now)
        except me.InvalidAction as exc:
            raise ServiceError(exc.code, str(exc)) from exc
        count("Actions")

    # ================================================================ helpers of the operations
    @staticmethod
    def _seat(pid: str, name: str, token: str) -> dict:
        return {"id": pid, "name": name, "tokenHash": auth.hash_token(token), "ready": False, "bot": False}

    @staticmethod
    def _seat_of(room: dict, pid: Any) -> dict:
        for p in room["players"]:
            if p["id"] == pid:
                return p
        raise ServiceError("bad_target", f"no player {pid!r} in this room")

    @staticmethod
    def _sender(c: Change, conn_id: str) -> str | None:
        if conn_id not in c.snap.conns:
            raise ServiceError("not_connected", "this connection is not in the room")
        return c.snap.conns[conn_id]

    def _player(self, c: Change, conn_id: str) -> str:
        pid = self._sender(c, conn_id)
        if pid is None:
            raise ServiceError("spectator", "spectators cannot act")
        return pid

    def _host(self, c: Change, conn_id: str) -> str:
        pid = self._player(c, conn_id)
        if pid != c.room["host"]:
            raise ServiceError("not_host", "only the host can do that")
        return pid

    @staticmethod
    def _lobby(c: Change) -> None:
        if c.room["status"] != "lobby":
            raise ServiceError("already_started", "only possible in the lobby")

    def _remove_player(self, c: Change, pid: str, code: str, message: str) -> None:
        room = c.room
        room["players"] = [p for p in room["players"] if p["id"] != pid]
        if room["host"] == pid and room["players"]:
            room["host"] = room["players"][0]["id"]
        conns = [k for k, v in c.snap.conns.items() if v == pid]
        c.conn_deletes.extend(conns)
        c.close.extend(conns)
        for k in conns:
            c.replies[k] = views.error_frame(None, code, message)

    @staticmethod
    def _presence(c: Change, pid: str, connected: bool) -> None:
        if c.state is None or c.room["status"] != "running":
            return
        try:
            c.state = me.apply(
                c.state, {"type": "presence", "player": pid, "connected": connected}, now=c.now
            )
        except me.InvalidAction:
            pass  # e.g. a dead player's presence does not matter to the engine

    def _room_of(self, conn_id: str, hint: Any) -> str:
        code = self._conn_rooms.get(conn_id)
        if code is None and isinstance(hint, str) and hint:
            code = hint.upper()  # verified by the connection item in the room's partition
        if code is None:
            code = self.store.lookup_connection(conn_id)
            if code is None:
                raise ServiceError("not_connected", "unknown connection")
            self._remember(conn_id, code)
        return code

    def _remember(self, conn_id: str, code: str) -> None:
        self._conn_rooms[conn_id] = code
        if len(self._conn_rooms) > 20000:
            self._conn_rooms.popitem(last=False)

    def _reply_error(self, conn_id: str, frame_id: Any, code: str, message: str) -> None:
        count("Rejected")
        self.gateway.post(conn_id, views.error_frame(frame_id, code, message))

    def _load(self, code: str) -> Snapshot:
        snap = self.store.load(code)
        if snap is None:
            raise ServiceError("room_not_found", f"no room {code!r}", 404)
        return snap

    # ================================================================ the one write path
    def _mutate(self, code: str, fn: Callable[[Change], None], sender: str | None = None) -> Any:
        """Load, apply `fn`, write conditionally (retry on conflict), push changed views."""
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                # Full jitter: a burst of frames to one room (everyone presses ready) would
                # otherwise collide again on every immediate retry and end in `busy`.
                time.sleep(random.uniform(0, BACKOFF_BASE_SECONDS * 2**attempt))
            snap = self._load(code)
            # The stored dump was just decoded from JSON and belongs to this request alone, and
            # the engine never changes the state it is given: no defensive copies (me.load /
            # me.dump copy the whole state), the state dict is stored as it comes back.
            state = snap.state
            c = Change(snap=snap, room=copy.deepcopy(snap.room), state=state, now=clock.now(), before=state)
            if state is not None:
                c.state, c.drained = botplay.drain(c.room, state, c.now)
            fn(c)
            if c.drained:
                c.write, c.bump = True, True  # the bots' actions are stored and pushed anyway
            if c.state is not None and c.room["status"] == "running":
                botplay.replan(c.room, c.state, c.now)
            if not c.write:
                if c.sync_to:
                    self._sync(c)
                if c.replies:
                    push_all(self.gateway, c.replies)
                return c.result
            conns = {k: v for k, v in snap.conns.items() if k not in c.conn_deletes}
            conns.update(c.conn_puts)
            frames, arm = self._prepare(c, conns, snap.version + (1 if c.bump else 0))
            dumped = c.state
            chat_items = self._archive(c, snap.state, dumped)
            try:
                version = self.store.save(
                    snap,
                    c.room,
                    dumped,
                    bump=c.bump,
                    conn_puts=c.conn_puts,
                    conn_deletes=c.conn_deletes,
                    chat_items=chat_items,
                )
            except Conflict:
                count("Conflicts")
                continue
            for k in c.conn_deletes:
                self._conn_rooms.pop(k, None)
            frames = {k: v for k, v in frames.items() if k not in c.exclude}
            if c.sync_to and c.sync_to not in frames:
                self._sync(c, conns=conns, version=version)
            frames.update(c.replies)
            gone = push_all(self.gateway, frames)
            for k in c.close:
                self.gateway.close(k)
            if arm:
                self.timers.arm(code, *arm)
            # A push can reach a connection whose $connect is stored but not yet returned: API
            # Gateway answers 410 until it does. Dropping it then would lose a live socket, so a
            # young connection is kept; $disconnect or a later 410 still cleans up a dead one.
            young = c.now - CONNECT_GRACE_SECONDS * clock.rate()
            gone = [g for g in gone if g in conns and snap.conn_since.get(g, 0.0) < young]
            if gone:
                try:
                    self._drop(code, gone)
                except ServiceError:
                    logger.warning("dropping gone connections failed", extra={"room": code})
            return c.result
        raise ServiceError("busy", "the room is busy, try again", 503)

    def _prepare(
        self, c: Change, conns: dict[str, str | None], version: int
    ) -> tuple[dict[str, bytes], tuple | None]:
        """Views of every connected viewer; frames for those whose view changed; the timer to arm."""
        room = c.room
        connected = {p for p in conns.values() if p}
        if c.state is not None and room["status"] == "running" and me.result(c.state) is not None:
            room["status"] = "ended"
            _score(room, me.result(c.state))
        if room.get("host") in connected:
            room.pop("hostAwaySince", None)
        elif room.get("hostAwaySince") is None:
            room["hostAwaySince"] = c.now
        viewers = {p if p else views.SPECTATOR for p in conns.values()}
        old = dict(room.get("views") or {})
        new: dict[str, str] = {}
        frames_by_viewer: dict[str, bytes] = {}
        setup_error = None
        if c.state is None:
            setup_error = _setup_error(room["preset"], room["options"], len(room["players"]))
        before_viewers = {p if p else views.SPECTATOR for p in c.snap.conns.values()}
        for viewer in viewers:
            who = None if viewer == views.SPECTATOR else viewer
            if c.state is None:
                view = views.lobby_view(room, connected, who, setup_error)
            else:
                view = views.game_view(c.state, room, connected, who)
            raw = views.render(view)
            new[viewer] = views.digest(raw)
            if viewer not in old and viewer in before_viewers:
                # connected without a write (spectators): rebuild the view as it was before
                old[viewer] = self._old_digest(c, who)
            if new[viewer] != old.get(viewer):
                frames_by_viewer[viewer] = views.frame(raw, version)
        room["views"] = new
        frames = {}
        for conn_id, pid in conns.items():
            data = frames_by_viewer.get(pid if pid else views.SPECTATOR)
            if data is not None:
                frames[conn_id] = data
        arm = None
        if c.state is not None and room["status"] == "running":
            seq, deadline = me.phase_seq(c.state), me.deadline(c.state)
            timer = [seq, deadline]
            if deadline is not None and timer != room.get("timer"):
                arm = (seq, deadline)
            room["timer"] = timer
        return frames, arm

    @staticmethod
    def _old_digest(c: Change, who: str | None) -> str:
        room = c.snap.room
        connected = {p for p in c.snap.conns.values() if p}
        if c.before is None:
            err = _setup_error(room["preset"], room["options"], len(room["players"]))
            return views.digest(views.lobby_view(room, connected, who, err))
        return views.digest(views.game_view(c.before, room, connected, who))

    def _sync(self, c: Change, conns: dict | None = None, version: int | None = None) -> None:
        conns = conns if conns is not None else c.snap.conns
        pid = conns.get(c.sync_to)
        connected = {p for p in conns.values() if p}
        if c.state is None:
            err = _setup_error(c.room["preset"], c.room["options"], len(c.room["players"]))
            view = views.lobby_view(c.room, connected, pid, err)
        else:
            view = views.game_view(c.state, c.room, connected, pid)
        c.replies[c.sync_to] = views.frame(view, version if version is not None else c.snap.version)

    def _archive(self, c: Change, before: dict | None, after: dict | None) -> list[tuple[int, list[dict]]]:
        """Move chat messages that left the engine's bounded window into archive items."""
        if not before or not after:
            return []
        kept = {m.get("id") for m in after.get("chat") or [] if isinstance(m, dict)}
        evicted = [m for m in before.get("chat") or [] if isinstance(m, dict) and m.get("id") not in kept]
        archive = c.room.setdefault("archive", {"seq": 0, "buffer": []})
        if evicted:
            archive["buffer"].extend(evicted)
        ended = c.room["status"] == "ended"
        if len(archive["buffer"]) >= ARCHIVE_BATCH or (ended and archive["buffer"]):
            archive["seq"] += 1
            items = [(archive["seq"], archive["buffer"])]
            archive["buffer"] = []
            return items
        return []


ROOM_OPS: dict[str, Callable[[RoomService, Change, str, dict], None]] = {
    "sync": RoomService._op_sync,
    "ready": RoomService._op_ready,
    "setOptions": RoomService._op_set_options,
    "start": RoomService._op_start,
    "nudge": RoomService._op_nudge,
    "kick": RoomService._op_kick,
    "leave": RoomService._op_leave,
    "newGame": RoomService._op_new_game,
    "addBot": RoomService._op_add_bot,
    "takeHost": RoomService._op_take_host,
}


def _score(room: dict, result: dict) -> None:
    """The room's scoreboard (seed 000 §6): one point to every player who won, the dead too.

    Kept in the room data, so it outlives `newGame`; a game without a winner scores nothing."""
    scores = room.setdefault("scores", {})
    for p in result.get("players") or ():
        scores.setdefault(p["id"], 0)
        if p.get("won"):
            scores[p["id"]] += 1

