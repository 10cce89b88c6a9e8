"""`RoomService`: the entry points the handlers, the offline stack and the bots call.

Each entry point picks a command (`rest_ops`, `connections`, `lifecycle`, `operations`: the
one registry of client frames) and runs it through the one request pipeline
(`pipeline.Pipeline.run`). Where each concept lives: docs/architecture.md, "Room layer".
"""

from __future__ import annotations

import re
from typing import Any

from ..features import botplay, leavers, limits, voice
from ..identity import persons, sessions
from ..identity import played as casual
from ..infra import clock
from ..infra.auth import DEVICE_PATTERN, origin_allowed, token_shaped
from ..infra.errors import ServiceError
from ..infra.fanout import Gateway
from ..infra.storage import Store
from ..infra.telemetry import count, logger
from ..infra.timers import Timers
from ..protocol import frames
from ..protocol.roomcode import room_code_shaped
from ..protocol.views import error_frame
from ..ranked import ladder, records
from ..ranked import ratings as rt
from . import connections, displays, lifecycle, operations, public, rest_ops, substitutes
from .connections import CONNECT_GRACE_SECONDS
from .pipeline import MAX_ATTEMPTS, Pipeline
from .setup import require_valid_options

MAX_FRAME_BYTES = frames.MAX_FRAME_BYTES  # a voice signal may have up to frames.MAX_SIGNAL_BYTES

__all__ = ["CONNECT_GRACE_SECONDS", "MAX_ATTEMPTS", "MAX_FRAME_BYTES", "RoomService"]


# "Delete me" removes what ranked play keeps of the person too (service/ranked/records.py)
if records.forget not in persons.ON_DELETE:
    persons.ON_DELETE.append(records.forget)


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
        self._conn_rooms = connections.ConnectionRooms()  # warm cache: connection -> room
        self.pipeline = Pipeline(store, gateway, timers, self._conn_rooms)
        self._signals = voice.Limiter()  # voice signals per connection, in this container
        self._signal_budgets = voice.Budgets()  # and per seat and target, in the table
        self.sessions = sessions.SessionKey.from_env()  # the session key (identity/sessions.py)

    def session_key(self) -> bytes:
        """The session key (Secrets Manager, once per container); 503 when none is set up."""
        if not self.sessions.configured:
            raise ServiceError("sign_in_unavailable", "signing in is not set up on this server", 503)
        return self.sessions.key()

    def person(self, session: str | None) -> dict | None:
        """The person record a request's session stands for (None without one, or with one
        forged, lapsed or signed out; 403 `banned`): identity/persons.py `signed_in`."""
        if not session:
            return None
        return persons.signed_in(self.store, session, int(clock.now()), self.session_key())

    # ---------------------------------------------------------------- REST
    def create_room(
        self,
        name: str,
        preset: str = "classic",
        options: dict | None = None,
        lang: str = "en",
        device: str | None = None,
        ip: str | None = None,
        session: str | None = None,
    ) -> dict:
        """A new room with its creator as host and first player (p1), within the client's
        budget (`limits.CREATE_ROOM`: `429 too_many_requests` first, nothing stored). `session`:
        the creator's, if signed in (the seat records the person). A host never makes a ranked
        room (`ranked` is no option: ranked quick play's own rooms, rest_ops `ranked=True`)."""
        require_valid_options(preset, {k: v for k, v in (options or {}).items() if k != "preset"}, 1)
        person = self.person(session)
        limits.spend(self.store, limits.CREATE_ROOM, device, ip)
        return rest_ops.create_room(
            self.store, self.ws_url, name, preset, options or {}, lang, device, ip, person=person
        )

    def admit_quick_play(self, device: str | None, ip: str | None) -> None:
        """What quick play (`POST /quickplay`) asks before it seats anyone: `429 leaver_cooldown`
        for a device that left public games mid-game lately (leavers.py), `429 too_many_requests`
        over the client's budget (`limits.QUICK_PLAY`); either refusal stores nothing."""
        leavers.require_no_wait(self.store, device)
        limits.spend(self.store, limits.QUICK_PLAY, device, ip)

    def leaver_wait(self, device: str | None) -> int:
        """Seconds before quick play may seat this device again (0: now; leavers.py)."""
        return leavers.leaver_wait(self.store, device)

    def join_room(
        self,
        code: str,
        name: str,
        device: str | None = None,
        ip: str | None = None,
        session: str | None = None,
    ) -> dict:
        """A new seat in a lobby: the next player id and a fresh token (a public room: one seat
        per device and per address, `ip`; a ranked room: one per person, `session` required);
        first the client's own budget (`limits.JOIN_ROOM`: `429 too_many_requests`, nothing stored)."""
        person = self.person(session)
        limits.spend(self.store, limits.JOIN_ROOM, device, ip)
        # a signed-in person's ranked seat elsewhere (read only if this room is ranked): a
        # ranked room refuses a second one (docs/rules.md, "Ranked play")
        elsewhere = (lambda: records.seated_elsewhere(self.store, person["id"])) if person else None
        return rest_ops.join_room(
            self.pipeline, self.ws_url, code.upper(), name, device, ip=ip, person=person, elsewhere=elsewhere
        )

    def summary(self, code: str) -> dict:
        """The public lobby summary (no tokens, no roles)."""
        return rest_ops.summary(self.pipeline, code.upper())

    def seat_fate(self, code: str, token: str | None, ip: str | None = None) -> dict:
        """What became of the seat `token` held in room `code` (rest_ops.seat_fate); first the
        address's budget (`limits.SEAT_FATE`), the same for every answer."""
        limits.spend(self.store, limits.SEAT_FATE, None, ip)
        return rest_ops.seat_fate(self.pipeline, code.upper(), token)

    def public_rooms(
        self,
        lang: str,
        preset: str | None = None,
        cursor: str | None = None,
        limit: int = public.PAGE_SIZE,
        watch: bool = False,
        ip: str | None = None,
    ) -> dict:
        """One page of the listed public lobbies, or with `watch` of the running public games
        (one Query of a sparse index): `{rooms, cursor}`; first the client's own budget
        (`limits.LIST_ROOMS`)."""
        public.list_args(lang, preset, cursor, limit, watch)  # bad input: 400 before any budget
        limits.spend(self.store, limits.LIST_ROOMS, None, ip)
        return public.list_rooms(self.store, clock.now(), lang, preset, cursor, limit, watch)

    def quick_play(
        self,
        name: str,
        lang: str = "en",
        preset: str | None = None,
        device: str | None = None,
        ip: str | None = None,
        party: str | None = None,
        session: str | None = None,
        ranked: bool = False,
    ) -> dict:
        """A seat in the fullest public lobby that fits, or a new public room (as `create_room`);
        `party`: a table playing again together (rest_ops.quick_play); first the leaver's cool-down and the client's budget (`admit_quick_play`); a quick play
        that goes on to make a room spends one room creation too (`limits.CREATE_ROOM`)."""
        person = self.person(session)
        if (
            ranked
        ):  # "Play ranked": signed in, casual games played, no cool-down (docs/rules.md, "Ranked play")
            return self.ranked_quick_play(name, lang, preset, person, device, ip)
        self.admit_quick_play(device, ip)
        return rest_ops.quick_play(
            self.pipeline,
            self.store,
            self.ws_url,
            clock.now(),
            name,
            lang,
            preset,
            device,
            ip,
            party,
            before_create=lambda: limits.spend(self.store, limits.CREATE_ROOM, device, ip),
            person=person,
        )

    # ---------------------------------------------------------------- ranked play (service/ranked/)
    def ranked_quick_play(
        self,
        name: str,
        lang: str,
        preset: str | None,
        person: dict | None,
        device: str | None,
        ip: str | None,
    ) -> dict:
        """ "Play ranked" (`POST /quickplay` with `ranked`): 401 `sign_in_required` without a
        session, 403 `ranked_locked` before `RANKED_AFTER_CASUAL` finished casual games, 429
        `ranked_cooldown` while a leave's wait runs (saying until when), 409 `ranked_seated`
        while the person holds a seat of a ranked lobby or running game; then the quick-play
        budget, and a seat (rest_ops.ranked_quick_play)."""
        if person is None:
            raise ServiceError(*persons.SIGN_IN_REQUIRED, 401)
        played = casual.casual_games(self.store, person)
        if played < rt.RANKED_AFTER_CASUAL:
            left = rt.RANKED_AFTER_CASUAL - played
            raise ServiceError(
                "ranked_locked",
                f"ranked play opens after {rt.RANKED_AFTER_CASUAL} finished casual games: {left} to go",
                403,
            )
        now = clock.now()
        records.require_no_cooldown(self.store, records.handle(person["id"]), now)
        # one ranked game at a time: a seat held in a ranked lobby or running game refuses another
        records.require_not_seated_elsewhere(records.seated_elsewhere(self.store, person["id"]), None)
        self.admit_quick_play(device, ip)  # every public rule: the device's cool-down, the budget
        return rest_ops.ranked_quick_play(
            self.pipeline, self.store, self.ws_url, now, name, lang, preset, person, device, ip
        )

    def ladder(self, lang: str, season: str | None, limit: int, cursor: str | None) -> dict:
        """One page of a season's ladder in `lang` (`GET /ladder`): one Query."""
        return ladder.page(self.store, lang, season or rt.season_of(clock.now()), limit, cursor)

    def person_page(self, handle: str, lang: str, season: str | None) -> dict:
        """A person's page (`GET /people/{handle}`): season standing and last ranked games."""
        return records.person_page(self.store, handle, season or rt.season_of(clock.now()), lang)

    # ---------------------------------------------------------------- socket life cycle
    def connect(
        self,
        conn_id: str,
        code: str | None,
        token: str | None,
        origin: str | None = None,
        patches: bool = False,
        device: str | None = None,
        display: str | None = None,
        ip: str | None = None,
    ) -> str | None:
        """Admit a connection: a player (token of this room) or a spectator (no token); `patches`:
        it asked for its views as patches (service/protocol/patches.py); `device`: the key its device
        keeps (a seat remembers the devices that held it: one person, one seat); `display`: the
        room's display key (a screen for the room: service/room/displays.py); `ip`: the socket's
        source address (its digest joins the seat's: substitutes.note_socket_address).

        Returns the player id (None for a spectator). Raises ServiceError to refuse.
        """
        if not origin_allowed(origin, self.allowed_origins):
            raise ServiceError("bad_origin", "origin not allowed", 403)
        if not code:
            raise ServiceError("bad_request", "query parameter 'room' is required", 400)
        if not room_code_shaped(code):  # refused before any read: nothing of it is echoed
            raise ServiceError("bad_request", "query parameter 'room' is not a room code", 400)
        if token and not token_shaped(token):
            raise ServiceError("bad_token", "token not valid for this room", 403)
        if device is not None and not re.fullmatch(DEVICE_PATTERN, device):
            raise ServiceError("bad_request", "query parameter 'device' is not a device key", 400)
        if display is not None and (token or not displays.key_shaped(display)):
            raise ServiceError("bad_display_key", "this screen link is not valid", 403)
        code = code.upper()
        pid = self.pipeline.run(
            code,
            connections.admit(
                conn_id, token, self.gateway, patches, device, display, public.address_digest(ip)
            ),
        )
        self._conn_rooms.remember(conn_id, code)
        logger.info("connected", extra={"room": code, "player": pid or "spectator"})
        return pid

    def disconnect(self, conn_id: str) -> None:
        """Forget a connection; a player's last connection feeds the engine's absence rule."""
        self._signals.forget(conn_id)
        code = self._conn_rooms.pop(conn_id, None) or self.store.lookup_connection(conn_id)
        if code is None:
            return
        try:
            self.pipeline.run(code, lifecycle.drop_connections([conn_id]))
        except ServiceError:
            pass  # the room is gone already

    # ---------------------------------------------------------------- frames
    def handle_message(self, conn_id: str, body: str | bytes | None, ip: str | None = None) -> None:
        """Entry point for `$default`: size cap, then `apply_frame` (`ip`: the sender's source
        address as API Gateway reports it)."""
        raw = body or b""
        size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
        if size > frames.MAX_SIGNAL_BYTES:  # no frame is larger; each model caps its own (`max_bytes`)
            self._reply_error(conn_id, None, "too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
            return
        self.apply_frame(conn_id, raw, size, ip)

    def apply_frame(self, conn_id: str, raw: str | bytes, size: int = 0, ip: str | None = None) -> None:
        """Apply one client frame (its raw text, `size` bytes) as connection `conn_id`: decoded
        once into its model (`frames.decode`), then answered by its command
        (`operations.command_for`, the one registry) through the pipeline, or relayed without a
        write (a voice `signal`: `voice.relay`). The actor is the connection's player; a
        `player` key in the frame is ignored. Refusals answer with an error frame."""
        frame_id = None
        try:
            frame = frames.decode(raw)
            frame_id = frame.id
            if size > frame.max_bytes:
                raise ServiceError("too_large", f"frames are limited to {frame.max_bytes} bytes")
            code = self._conn_rooms.room_of(self.store, conn_id, frame.room)
            if frame.route == "signal":
                if not self._signals.allow(conn_id, clock.now()):
                    raise ServiceError("voice_rate_limited", "too many voice signals: wait a moment")
                voice.relay(
                    self.pipeline.load(code),
                    self.gateway,
                    conn_id,
                    frame,
                    self.store,
                    self._signal_budgets,
                    clock.now(),
                )
                return
            # a substitute's request is checked against the seats' addresses (substitutes.py):
            # its address's digest, never the address; no other frame needs one
            addr = public.address_digest(ip) if isinstance(frame, frames.TakeSeat) else ""
            self.pipeline.frame(code, conn_id, frame, operations.command_for(frame), addr)
        except ServiceError as exc:
            self._reply_error(conn_id, exc.frame_id if frame_id is None else frame_id, exc.code, exc.message)
        except Exception:  # noqa: BLE001 - the sender learns something went wrong; we learn what
            logger.exception("frame failed", extra={"connection": conn_id})
            count("InternalErrors")
            self._reply_error(conn_id, frame_id, "internal_error", "the server could not handle this frame")

    def _reply_error(self, conn_id: str, frame_id: Any, code: str, message: str) -> None:
        count("Rejected")
        self.gateway.post(conn_id, error_frame(frame_id, code, message))

    # ---------------------------------------------------------------- the phase timer
    def timeout(self, code: str, phase: int, at: int | None = None) -> str:
        """A Scheduler delivery: end phase `phase` if it is due. Returns what happened."""
        code = code.upper()

        def rearm(deadline: float) -> None:
            if (
                at is None or at >= deadline - 60
            ):  # a bots' wake (botplay.py) well before it: the phase's own timer stands
                self.timers.arm(code, phase, deadline, after=at)

        # the delivery's second: the bots act with the delivery of their wake (features/botplay.py),
        # an idle seat's bot comes with it (substitutes.py)
        waking = substitutes.waking.set(at)
        delivering = botplay.delivery.set((phase, at) if at is not None else None)
        try:
            outcome = self.pipeline.run(code, operations.phase_timeout(phase, rearm))
        except ServiceError as exc:
            outcome = exc.code
        finally:
            botplay.delivery.reset(delivering)
            substitutes.waking.reset(waking)
        count("Timeouts")
        logger.info("phase timeout", extra={"room": code, "phase": phase, "outcome": outcome})
        return outcome
