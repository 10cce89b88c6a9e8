"""Room operations and engine actions: one change function per client frame model.

Each operation gets the `Change` (room data and engine state as read), the sender's
connection id and its validated frame (`frames.py`); it refuses with `ServiceError` (nothing
is written) or changes `c` in place. The unit of work does the rest. An operation registers
for its frame model (`@operation(f.Sync)`), so the registry's names are the models' own.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import mafia_engine as me

from . import aliases, chat_archive, names, views
from . import frames as f
from .errors import ServiceError, quote
from .lifecycle import presence, running
from .quoting import tidy
from .setup import require_valid_options, room_setup_error
from .telemetry import count
from .views import preset_info

if TYPE_CHECKING:
    from .unitofwork import Change

BOT_WORD = {"en": "Bot", "ko": "봇", "ru": "Бот"}  # a bot seat's default name: "<word> N"
REMOVED_KEPT = 32  # ids of seats the host removed, newest last, for the public summary
HOST_AWAY_SECONDS = 60  # city: another player may take the room over after the host is gone this long

Operation = Callable[["Change", str, Any], None]
OPERATIONS: dict[str, Operation] = {}  # room operation (the frame's `action`) -> change function


def operation(model: type[f.Frame]) -> Callable[[Operation], Operation]:
    """Register the change function of the room operation whose frame is `model`."""
    if model.route != "operation":
        raise ValueError(f"{model.__name__} is answered by {model.route!r}, not by an operation")

    def register(fn: Operation) -> Operation:
        OPERATIONS[model.tag()] = fn
        return fn

    return register


def change_for(conn_id: str, frame: f.Frame) -> Callable[[Change], None]:
    """The change function that applies `frame` as connection `conn_id`."""
    op = engine_action if isinstance(frame, f.EngineFrame) else OPERATIONS[frame.action]
    return lambda c: op(c, conn_id, frame)


# ---------------------------------------------------------------- who may act
def sender(c: Change, conn_id: str) -> str | None:
    """The sender's player id (None for a spectator); refused if not in this room."""
    if conn_id not in c.snap.conns:
        raise ServiceError("not_connected", "this connection is not in the room")
    return c.snap.conns[conn_id]


def player(c: Change, conn_id: str) -> str:
    pid = sender(c, conn_id)
    if pid is None:
        raise ServiceError("spectator", "spectators cannot act")
    return pid


def host(c: Change, conn_id: str) -> str:
    pid = player(c, conn_id)
    if pid != c.room["host"]:
        raise ServiceError("not_host", "only the host can do that")
    return pid


def in_lobby(c: Change) -> None:
    if c.room["status"] != "lobby":
        raise ServiceError("already_started", "only possible in the lobby")


# ---------------------------------------------------------------- seats
def new_seat(pid: str, name: str, token_hash: str, bot: bool = False) -> dict:
    """A seat of the room data (`tokenHash` "" for bots: nobody can connect as one)."""
    return {"id": pid, "name": name, "tokenHash": token_hash, "ready": bot, "bot": bot}


def seat_of(room: dict, pid: Any) -> dict:
    for p in room["players"]:
        if p["id"] == pid:
            return p
    raise ServiceError("bad_target", f"no player {quote(pid)} in this room")


def next_player_id(room: dict) -> str:
    pid = f"p{room['nextId']}"
    room["nextId"] += 1
    return pid


def require_room_for(room: dict, name: str, status: int = 400) -> None:
    """Refuse a new seat when the room is full or the name is taken (`names.same`: case,
    look-alike letters and invisible characters do not make a name new)."""
    limit = preset_info(room["preset"])["maxPlayers"]
    if len(room["players"]) >= limit:
        raise ServiceError("room_full", f"the room is full ({limit} players)", status)
    if any(names.same(p["name"], name) for p in room["players"]):
        raise ServiceError("name_taken", f"the name {quote(name)} is taken in this room", status)


def _remove_player(c: Change, pid: str, code: str, message: str) -> None:
    room = c.room
    room["players"] = [p for p in room["players"] if p["id"] != pid]
    if room["host"] == pid:
        # The next person seated, never a bot: a bot cannot start the game or change anything,
        # so a bot host would leave the lobby stuck. No one left: the next to join is host.
        room["host"] = next((p["id"] for p in room["players"] if not p.get("bot")), None)
    _close_seat(c, pid, views.error_frame(None, code, message))


def _close_seat(c: Change, pid: str, farewell: bytes) -> None:
    conns = [k for k, v in c.snap.conns.items() if v == pid]
    c.conn_deletes.extend(conns)
    c.close.extend(conns)
    for k in conns:
        c.replies[k] = farewell


# ---------------------------------------------------------------- room operations
@operation(f.Sync)
def sync(c: Change, conn_id: str, frame: f.Sync) -> None:
    sender(c, conn_id)
    c.write = False
    c.sync_to = conn_id


@operation(f.Ready)
def ready(c: Change, conn_id: str, frame: f.Ready) -> None:
    pid = player(c, conn_id)
    in_lobby(c)
    seat = seat_of(c.room, pid)
    if bool(seat.get("ready")) == frame.ready:
        c.write = False
        return
    seat["ready"] = frame.ready


@operation(f.SetOptions)
def set_options(c: Change, conn_id: str, frame: f.SetOptions) -> None:
    host(c, conn_id)
    in_lobby(c)
    options = dict(frame.options)
    preset = options.pop("preset", None) or frame.preset or c.room["preset"]
    require_valid_options(preset, options, len(c.room["players"]))
    c.room["preset"] = preset
    c.room["options"] = options
    for p in c.room["players"]:
        p["ready"] = bool(p.get("bot"))  # a rule change clears every ready mark (bots stay ready)


@operation(f.Start)
def start(c: Change, conn_id: str, frame: f.Start) -> None:
    host_id = host(c, conn_id)
    in_lobby(c)
    room = c.room
    err = room_setup_error(room)
    if err:
        raise ServiceError(err["code"], err["message"] or "the game cannot start with this setup", 409)
    waiting = [p["name"] for p in room["players"] if p["id"] != host_id and not p.get("ready")]
    if waiting:
        raise ServiceError("not_ready", "waiting for: " + ", ".join(waiting), 409)
    aliases.deal(room, c.snap.conns, c.conn_puts)  # anonymous: shuffled seats, fresh ids, aliases
    ids = [p["id"] for p in room["players"]]
    try:
        c.state = me.new_game(
            players=ids, options={**room["options"], "preset": room["preset"]}, seed=room["seed"], now=c.now
        )
    except me.InvalidAction as exc:
        raise ServiceError(exc.code, tidy(str(exc)), 409) from exc
    room["status"] = "running"
    count("GamesStarted")  # the dashboard's "games" (template.yaml, OpsDashboard)
    present = set({**c.snap.conns, **c.conn_puts}.values())
    bots = {p["id"] for p in room["players"] if p.get("bot")}
    for pid in ids:
        if pid not in present and pid not in bots:  # bots never connect and are never absent
            presence(c, pid, False)


@operation(f.Nudge)
def nudge(c: Change, conn_id: str, frame: f.Nudge) -> None:
    sender(c, conn_id)
    if not running(c):
        raise ServiceError("not_running", "no phase to end")
    seq = me.phase_seq(c.state)
    if frame.phase is not None and frame.phase != seq:
        # That phase is over already: the new view is on its way (or was sent). Nothing to do.
        c.write = False
        return
    try:
        c.state = me.apply(c.state, {"type": "phaseTimeout", "phase": seq}, now=c.now)
    except me.InvalidAction:
        # Too early (clock skew, or a nudge at room.wakeAt for the bots): answer with the
        # current view, whose serverNow lets the client correct its countdown. Nothing is
        # written unless a bot tick passed; either way the sender gets exactly one view
        # frame (its changed view, or the same view again), so whether hidden bot actions
        # were due shows in no frame.
        c.write = False
        c.sync_to = conn_id


@operation(f.Kick)
def kick(c: Change, conn_id: str, frame: f.Kick) -> None:
    """Host: in the lobby the seat goes; in a running game the engine's `remove` eliminates the
    character (a public "removed by the host" line) and the seat's token stops working; after
    the end the seat only loses its token (and is gone at `newGame`). Either way the target's
    sockets get `kicked` and close, and a later connect with their token is refused `kicked`."""
    host_id = host(c, conn_id)
    if frame.target == host_id:
        raise ServiceError("bad_target", "the host cannot kick themselves")
    seat = seat_of(c.room, frame.target)
    if c.room["status"] == "lobby":
        _remove_player(c, frame.target, "kicked", "the host removed you from the room")
        _note_removed(c.room, frame.target)
        return
    if seat.get("left"):
        raise ServiceError("bad_target", f"{aliases.name_of(c.room, seat)} has already left the game")
    if running(c):
        try:
            c.state = me.apply(c.state, {"type": "remove", "player": frame.target}, now=c.now)
        except me.InvalidAction as exc:
            raise ServiceError(exc.code, tidy(str(exc))) from exc
        count("Removals")
    seat["kickedHash"], seat["tokenHash"] = seat["tokenHash"], ""
    seat["left"] = seat["kicked"] = True
    _note_removed(c.room, frame.target)
    _close_seat(c, frame.target, views.error_frame(None, "kicked", "the host removed you from the game"))


def _note_removed(room: dict, pid: str) -> None:
    """Remember that the host removed seat `pid` (the summary's `removed`): a device that missed
    the `kicked` frame (asleep, offline, a closed tab) and is then refused at connect learns
    from the public summary that its seat was removed, not just gone. Ids only: the table saw
    the removal (the lobby list, the public "removed by the host" line)."""
    room["removed"] = [*[p for p in room.get("removed", []) if p != pid], pid][-REMOVED_KEPT:]


@operation(f.Leave)
def leave(c: Change, conn_id: str, frame: f.Leave) -> None:
    pid = player(c, conn_id)
    if c.room["status"] == "lobby":
        _remove_player(c, pid, "left", "you left the room")
        return
    # A running game keeps the seat; the engine eliminates the character (and may decide
    # the game at once), and the seat's token stops working so it cannot come back.
    seat = seat_of(c.room, pid)
    seat["tokenHash"] = ""
    seat["left"] = True
    _close_seat(c, pid, views.error_frame(frame.id, "left", "you left the game"))
    if c.room["status"] == "running":
        if "leave" in me.ACTION_TYPES:
            try:
                c.state = me.apply(c.state, {"type": "leave", "player": pid}, now=c.now)
            except me.InvalidAction:
                presence(c, pid, False)
        else:
            presence(c, pid, False)
    if c.room["host"] == pid:
        nxt = [p["id"] for p in c.room["players"] if not p.get("left") and not p.get("bot")]
        if nxt:
            c.room["host"] = nxt[0]


@operation(f.AddBot)
def add_bot(c: Change, conn_id: str, frame: f.AddBot) -> None:
    host(c, conn_id)
    in_lobby(c)
    room = c.room
    name = frame.name or bot_name(room)
    require_room_for(room, name)
    room["players"].append(new_seat(next_player_id(room), name, "", bot=True))


def bot_name(room: dict) -> str:
    """"Bot N" in the room's language ("봇 N", "Бот N") with N the seat the bot takes, so that
    its tile reads "8 · Bot 8", not "8 · Bot 7"; if a seat holds that name, the next free N
    (then the first free). The name the table reads on the bot's tile and in the bots' chat
    lines. Nothing recognises a bot by its name (the seat's `bot` flag does), so any word
    works; free means no seat's name is the same (`names.same`)."""
    word = BOT_WORD.get(room.get("lang") or "en", BOT_WORD["en"])
    seat = len(room["players"]) + 1
    order = [*range(seat, 100), *range(1, seat)]
    return next(
        f"{word} {i}" for i in order if not any(names.same(p["name"], f"{word} {i}") for p in room["players"])
    )


@operation(f.NewGame)
def new_game(c: Change, conn_id: str, frame: f.NewGame) -> None:
    host(c, conn_id)
    if c.room["status"] != "ended":
        raise ServiceError("not_ended", "a new game can start once this one has ended")
    room = c.room
    room["players"] = [p for p in room["players"] if not p.get("left")]
    for p in room["players"]:
        p["ready"] = bool(p.get("bot"))
    room.update(status="lobby", seed=secrets.randbits(31), timer=None)
    room.pop("botPlan", None)
    c.state = None


@operation(f.TakeHost)
def take_host(c: Change, conn_id: str, frame: f.TakeHost) -> None:
    pid = player(c, conn_id)
    room = c.room
    if room["host"] == pid:
        c.write = False
        return
    away = room.get("hostAwaySince")
    if away is None or c.now - away < HOST_AWAY_SECONDS:
        raise ServiceError("host_present", f"the host has not been away for {HOST_AWAY_SECONDS} s")
    room["host"] = pid


# ---------------------------------------------------------------- engine actions
def engine_action(c: Change, conn_id: str, frame: f.EngineFrame) -> None:
    """An engine action: who may send it is its engine model's `sender` (mafia_engine/actions.py)."""
    pid = player(c, conn_id)
    kind, sent_by = frame.action, frame.model.sender
    if sent_by == "server":
        raise ServiceError("forbidden_action", f"'{kind}' is sent by the server only")
    if sent_by == "room":  # applied by the room layer for a room operation: `player` would be the sender
        raise ServiceError("forbidden_action", frame.model.hint)
    if sent_by == "host" and pid != c.room["host"]:
        raise ServiceError("not_host", f"only the host can {kind}")
    if c.state is None or c.room["status"] == "lobby":
        raise ServiceError("not_started", "the game has not started")
    if kind == "chat" and c.room["status"] == "ended":
        chat_archive.after_end_chat(c)
    try:
        c.state = me.apply(c.state, frame.engine_action(pid), now=c.now)  # actor from the connection
    except me.InvalidAction as exc:
        raise ServiceError(exc.code, tidy(str(exc))) from exc
    # a chat line: its channel's archive batch may be written in its writer's request
    c.wrote = getattr(frame, "channel", None)
    count("Actions")


# ---------------------------------------------------------------- the phase timer
def phase_timeout(phase: int, rearm: Callable[[float], None]) -> Callable[[Change], None]:
    """A Scheduler delivery: end phase `phase` if it is due; too early re-arms at the deadline."""

    def change(c: Change) -> None:
        if not running(c):
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
                    rearm(deadline)

    return change
