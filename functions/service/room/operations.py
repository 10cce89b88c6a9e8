"""The one registry of client frames' commands: a command per room frame model, and the
engine actions' one command.

A command gets the `Context` (the room document and engine state as read) and the `Request`
(the sender's connection, its player id once `access.actor` has checked who may send the
frame, the validated frame of `frames.py`); it refuses with `ServiceError` (nothing is
written) or returns an `Outcome` (change.py). The pipeline (`pipeline.py`) does the rest. A
command registers for its frame model (`@operation(f.Sync)`), so the registry's names are the
models' own; `ping` and `chatLog` are in it too (their work lives in `connections.py` and
`chat_archive.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mafia_engine as me

from ..features import aliases, away, fairness, turn
from ..infra.errors import ServiceError, quote
from ..infra.telemetry import count
from ..protocol import frames as f
from ..protocol import names, views
from ..protocol.quoting import tidy
from ..protocol.views import preset_info
from . import afk, chat_archive, connections, displays, substitutes
from .change import NO_EFFECTS, ChangeFn, Context, Effects, Outcome, Request
from .lifecycle import presence
from .setup import public_defaults, require_valid_options, room_setup_error

BOT_WORD = names.BOT_WORD  # a bot seat's default name: "<word> N"
REMOVED_KEPT = 32  # ids of seats the host removed, newest last, for the public summary
LOBBY_PHASE = -1  # the timer of a public lobby's countdown (service/room/public.py)
HOST_AWAY_SECONDS = 60  # city: another player may take the room over after the host is gone this long

Operation = Callable[[Context, Request], Outcome]
OPERATIONS: dict[str, Operation] = {}  # room frame's `action` -> its command


def operation(model: type[f.Frame]) -> Callable[[Operation], Operation]:
    """Register the command of the room frame `model`."""
    if issubclass(model, f.EngineFrame):
        raise ValueError(f"{model.__name__} is an engine action: `engine_action` answers it")

    def register(fn: Operation) -> Operation:
        OPERATIONS[model.tag()] = fn
        return fn

    return register


def command_for(frame: f.Frame) -> Operation:
    """The command that answers `frame`."""
    return engine_action if isinstance(frame, f.EngineFrame) else OPERATIONS[frame.action]


def in_lobby(c: Context) -> None:
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


def _remove_player(c: Context, pid: str, code: str, message: str) -> Effects:
    room = c.room
    room["players"] = [p for p in room["players"] if p["id"] != pid]
    if room["host"] == pid:
        # The next person seated, never a bot: a bot cannot start the game or change anything,
        # so a bot host would leave the lobby stuck. No one left: the next to join is host.
        room["host"] = next((p["id"] for p in room["players"] if not p.get("bot")), None)
    return _close_seat(c, pid, views.error_frame(None, code, message))


def _close_seat(c: Context, pid: str, farewell: bytes) -> Effects:
    """The seat's sockets: forgotten, told why (`farewell`) and closed."""
    conns = tuple(k for k, v in c.snap.conns.items() if v == pid)
    return Effects(deletes=conns, closes=conns, replies={k: farewell for k in conns})


# ---------------------------------------------------------------- room operations
@operation(f.Sync)
def sync(c: Context, req: Request) -> Outcome:
    return c.unchanged(Effects(full_view=req.conn_id))


@operation(f.Ready)
def ready(c: Context, req: Request) -> Outcome:
    in_lobby(c)
    seat = seat_of(c.room, req.actor)
    if bool(seat.get("ready")) == req.frame.ready:
        return c.unchanged()
    seat["ready"] = req.frame.ready
    return c.changed()


@operation(f.SetOptions)
def set_options(c: Context, req: Request) -> Outcome:
    in_lobby(c)
    frame = req.frame
    options = dict(frame.options)
    preset = options.pop("preset", None) or frame.preset or c.room["preset"]
    options = public_defaults(options, bool(c.room["options"].get("public")))
    require_valid_options(preset, options, len(c.room["players"]))
    c.room["preset"] = preset
    c.room["options"] = options
    fairness.cancel_reveals(c.room)  # a start that was waiting for values: it did not happen
    for p in c.room["players"]:
        p["ready"] = bool(p.get("bot"))  # a rule change clears every ready mark (bots stay ready)
    return c.changed()


@operation(f.Start)
def start(c: Context, req: Request) -> Outcome:
    in_lobby(c)
    room = c.room
    err = room_setup_error(room)
    if err:
        raise ServiceError(err["code"], err["message"] or "the game cannot start with this setup", 409)
    waiting = [p["name"] for p in room["players"] if p["id"] != req.actor and not p.get("ready")]
    if waiting:
        raise ServiceError("not_ready", "waiting for: " + ", ".join(waiting), 409)
    if fairness.revealing(room):
        raise ServiceError("revealing", "the start is waiting for the players' random values", 409)
    state, effects = begin(c)
    return c.changed(state, effects=effects)


def begin(c: Context) -> tuple[Any, Effects]:
    """Start the lobby's game (the host's `start`, or a public room's start by itself:
    service/room/public.py): first, while seated phones committed to values for the deal, ask
    for them (`fairness.open_reveals`: the state stays None, `reveals.py` deals once they are
    in or their time is up); else deal (`deal`)."""
    if fairness.open_reveals(c.room, set(c.snap.conns.values()), c.now):
        return None, NO_EFFECTS
    return deal(c)


def deal(c: Context) -> tuple[Any, Effects]:
    """Deal the lobby's game: the new engine state and the effects the start writes with it.
    With the clients' values (`fairness.contributions`) the game is dealt from the room's
    secret mixed with them (sha256/mafia-deal-v3), and every later draw of the room (an
    anonymous game's seats and aliases, the bots') derives from the mixed secret too."""
    room = c.room
    parts = fairness.contributions(room)
    secret = room["seed"]
    try:
        if parts is not None:
            salt = room["deal"]["salt"]  # the one the lobby's commitment to the secret was made with
            mixed = me.fairness.mix(secret, parts)
        else:
            salt, mixed = fairness.new_salt(), secret  # no client committed: the secret alone (v2)
        room["seed"] = mixed  # before the anonymous deal: its seat shuffle draws from it
        moved = aliases.deal(room, c.snap.conns)  # anonymous: shuffled seats, fresh ids, aliases
        ids = [p["id"] for p in room["players"]]
        state = me.new_game(
            players=ids,
            options={**room["options"], "preset": room["preset"]},
            seed=secret,
            now=c.now,
            salt=salt,  # every view carries the deal's commitment (docs/rules.md)
            contributions=parts,
        )
    except me.InvalidAction as exc:
        raise ServiceError(exc.code, tidy(str(exc)), 409) from exc
    room.pop("deal", None)  # the record is the game's now (state["fairness"])
    room["status"] = "running"
    away.reset(room)  # markers of the last game's absences mean nothing in this one
    afk.reset(room)  # nor the last game's missed turns
    count("GamesStarted")  # the dashboard's "games" (template.yaml, OpsDashboard)
    present = set({**c.snap.conns, **moved}.values())
    bots = {p["id"] for p in room["players"] if p.get("bot")}
    for pid in ids:
        if pid not in present and pid not in bots:  # bots never connect and are never absent
            state = presence(room, state, pid, False, c.now)
    # an anonymous deal moved the seats' sockets to their fresh ids (a socket that asked for
    # patches keeps asking: service/protocol/patches.py)
    return state, Effects(puts=moved, patched=frozenset(k for k in moved if k in c.snap.conn_patches))


@operation(f.Nudge)
def nudge(c: Context, req: Request) -> Outcome:
    if c.room["status"] == "lobby" and c.room.get("autoStartAt") is not None:
        # a public lobby's countdown not yet over (service/room/public.py starts it once it is, in
        # the pipeline, before this): the current view corrects the sender's countdown
        return c.unchanged(Effects(full_view=req.conn_id))
    if not c.running:
        raise ServiceError("not_running", "no phase to end")
    seq = me.phase_seq(c.state)
    if req.frame.phase is not None and req.frame.phase != seq:
        # That phase is over already: the new view is on its way (or was sent). Nothing to do.
        return c.unchanged()
    try:
        return c.changed(me.apply(c.state, {"type": "phaseTimeout", "phase": seq}, now=c.now))
    except me.InvalidAction:
        # Too early (clock skew): answer with the
        # current view, whose serverNow lets the client correct its countdown. Nothing is
        # written unless a bot tick passed; either way the sender gets exactly one view
        # frame (its changed view, or the same view again), so whether hidden bot actions
        # were due shows in no frame.
        return c.unchanged(Effects(full_view=req.conn_id))


@operation(f.Kick)
def kick(c: Context, req: Request) -> Outcome:
    """Host: in the lobby the seat goes; in a running game the engine's `remove` eliminates the
    character (a public "removed by the host" line) and the seat's token stops working; after
    the end the seat only loses its token (and is gone at `newGame`). Either way the target's
    sockets get `kicked` and close, and a later connect with their token is refused `kicked`."""
    target = req.frame.target
    if target == req.actor:
        raise ServiceError("bad_target", "the host cannot kick themselves")
    seat = seat_of(c.room, target)
    if c.room["status"] == "lobby":
        closed = _remove_player(c, target, "kicked", "the host removed you from the room")
        _note_removed(c.room, target)
        return c.changed(effects=closed)
    if seat.get("left"):
        raise ServiceError("bad_target", f"{aliases.name_of(c.room, seat)} has already left the game")
    state = c.state
    if substitutes.should_vacate(c, target):  # the host's option: the seat is offered first
        state = substitutes.vacate(c, state, target, "removed")
    elif c.running:
        try:
            state = me.apply(state, {"type": "remove", "player": target}, now=c.now)
        except me.InvalidAction as exc:
            raise ServiceError(exc.code, tidy(str(exc))) from exc
        count("Removals")
    seat["kickedHash"], seat["tokenHash"] = seat["tokenHash"], ""
    seat["left"] = seat["kicked"] = True
    _note_removed(c.room, target)
    return c.changed(
        state, _close_seat(c, target, views.error_frame(None, "kicked", "the host removed you from the game"))
    )


def _note_removed(room: dict, pid: str) -> None:
    """Remember that the host removed seat `pid` (the summary's `removed`): a device that missed
    the `kicked` frame (asleep, offline, a closed tab) and is then refused at connect learns
    from the public summary that its seat was removed, not just gone. Ids only: the table saw
    the removal (the lobby list, the public "removed by the host" line)."""
    room["removed"] = [*[p for p in room.get("removed", []) if p != pid], pid][-REMOVED_KEPT:]


@operation(f.Leave)
def leave(c: Context, req: Request) -> Outcome:
    pid = req.actor
    if c.room["status"] == "lobby":
        return c.changed(effects=_remove_player(c, pid, "left", "you left the room"))
    # A running game keeps the seat; the engine eliminates the character (and may decide
    # the game at once), and the seat's token stops working so it cannot come back.
    seat = seat_of(c.room, pid)
    substitutes.retire_token(seat)  # it stops working, and can never take a seat back
    seat["left"] = True
    closed = _close_seat(c, pid, views.error_frame(req.frame.id, "left", "you left the game"))
    state = c.state
    if substitutes.should_vacate(c, pid):  # the host's option: the seat is offered first
        state = substitutes.vacate(c, state, pid, "left")
    elif c.room["status"] == "running":
        try:
            # a preset without a `leave` of its own refuses it: the seat is then only absent
            state = me.apply(state, {"type": "leave", "player": pid}, now=c.now)
        except me.InvalidAction:
            state = presence(c.room, state, pid, False, c.now)
    if c.room["host"] == pid:
        nxt = [p["id"] for p in c.room["players"] if not p.get("left") and not p.get("bot")]
        if nxt:
            c.room["host"] = nxt[0]
    return c.changed(state, closed)


@operation(f.AddBot)
def add_bot(c: Context, req: Request) -> Outcome:
    in_lobby(c)
    room = c.room
    name = req.frame.name or bot_name(room)
    require_room_for(room, name)
    room["players"].append(new_seat(next_player_id(room), name, "", bot=True))
    return c.changed()


def add_bot_seat(room: dict) -> None:
    """A bot in the next seat, named as `addBot` names it (a public room filling its seats)."""
    room["players"].append(new_seat(next_player_id(room), bot_name(room), "", bot=True))


def bot_name(room: dict) -> str:
    """ "Bot N" in the room's language ("봇 N", "Бот N") with N the seat the bot takes, so that
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


@operation(f.DealCommit)
def deal_commit(c: Context, req: Request) -> Outcome:
    """A seat's commitment to its value for the deal (docs/rules.md, "Randomness"), until the
    start asks for the values; a new one replaces the seat's own."""
    in_lobby(c)
    deal = c.room.get("deal")
    if not deal:
        raise ServiceError("no_client_values", "this room's deal takes no values from the players", 409)
    if fairness.revealing(c.room):
        raise ServiceError("revealing", "the start has begun: commitments are closed", 409)
    seat_of(c.room, req.actor)
    mine = req.frame.commitment
    if deal["commitments"].get(req.actor) == mine:
        return c.unchanged()
    if mine in fairness.commitments(c.room).values():
        raise ServiceError("bad_commitment", "another seat committed to this value: draw a fresh one")
    deal["commitments"][req.actor] = mine
    return c.changed()


@operation(f.DealReveal)
def deal_reveal(c: Context, req: Request) -> Outcome:
    """A seat's value, once the start asks for it: it must hash to the seat's commitment. The
    last one the start waits for deals the game."""
    in_lobby(c)
    room = c.room
    if not fairness.revealing(room):
        raise ServiceError("not_revealing", "values are revealed when the game starts, not before", 409)
    mine = fairness.commitments(room).get(req.actor)
    if mine is None:
        raise ServiceError("no_commitment", "you committed to no value before the start", 409)
    value = req.frame.value
    known = room["deal"]["reveals"].get(req.actor)
    if known is not None:
        if known == value:
            return c.unchanged()
        raise ServiceError("already_revealed", "you revealed your value already", 409)
    if me.fairness.client_commitment(value) != mine:
        raise ServiceError("bad_reveal", "this value does not hash to your commitment")
    room["deal"]["reveals"][req.actor] = value
    if fairness.waiting_for(room, set(c.snap.conns.values())):
        return c.changed()
    state, effects = deal(c)  # every value the start waited for is in
    return c.changed(state, effects=effects)


@operation(f.NewGame)
def new_game(c: Context, req: Request) -> Outcome:
    if c.room["status"] != "ended":
        raise ServiceError("not_ended", "a new game can start once this one has ended")
    room = c.room
    room["players"] = [p for p in room["players"] if not p.get("left")]
    for p in room["players"]:
        p["ready"] = bool(p.get("bot"))
    room.update(status="lobby", seed=fairness.new_secret(), deal=fairness.new_deal(), timer=None)
    room.pop("botPlan", None)
    substitutes.reset(room)  # the last game's notices, requests and handed-on seats
    return c.changed(None)


@operation(f.TakeHost)
def take_host(c: Context, req: Request) -> Outcome:
    """Take the room over; the pipeline first asks API Gateway about the host's sockets
    (`frames.TakeHost.asks_gateway`, `connections.check_host`)."""
    room = c.room
    if room["host"] == req.actor:
        return c.unchanged()
    away = room.get("hostAwaySince")
    if away is None or c.now - away < HOST_AWAY_SECONDS:
        raise ServiceError("host_present", f"the host has not been away for {HOST_AWAY_SECONDS} s")
    room["host"] = req.actor
    return c.changed()


@operation(f.TakeSeat)
def take_seat(c: Context, req: Request) -> Outcome:
    """A substitute takes an open seat (`substitutes.take_seat`)."""
    return substitutes.take_seat(c, req.conn_id, req.actor, req.frame, req.addr)


@operation(f.ApproveSeat)
def approve_seat(c: Context, req: Request) -> Outcome:
    """Host: one tap on a newcomer's request for an open seat (`substitutes.answer`)."""
    return substitutes.answer(c, req.conn_id, req.frame.request, req.frame.approve)


@operation(f.Display)
def display(c: Context, req: Request) -> Outcome:
    """Host: the display key, its revocation, the screens' narrator (`displays.answer`)."""
    return displays.answer(c, req.conn_id, req.frame.id, req.frame.revoke, req.frame.narrator)


@operation(f.IceServers)
def ice_servers(c: Context, req: Request) -> Outcome:
    """Voice: this connection's TURN credential and transport policy (`turn.answer`), to it alone."""
    reply = turn.answer(c.snap, c.room, req.conn_id, req.actor, req.frame.id, c.now)
    return c.unchanged(Effects(last={req.conn_id: reply}))


@operation(f.Ping)
def ping(c: Context, req: Request) -> Outcome:
    """The heartbeat (`connections.heartbeat`), answered with `pong` once everything else is sent."""
    out = connections.heartbeat(c, req.ports.gateway, req.conn_id)
    return out.also(Effects(last={req.conn_id: connections.pong(req.frame.id)}))


@operation(f.ChatLog)
def chat_log(c: Context, req: Request) -> Outcome:
    """One page of the ended game's chat (`chat_archive.chat_log`: it reads archive items too)."""
    return chat_archive.chat_log(c, req.ports.store, req.conn_id, req.frame)


# ---------------------------------------------------------------- engine actions
def engine_action(c: Context, req: Request) -> Outcome:
    """An engine action; who may send it (its model's `sender`) was checked by `access.actor`."""
    frame = req.frame
    if c.state is None or c.room["status"] == "lobby":
        raise ServiceError("not_started", "the game has not started")
    if frame.phase is not None and frame.phase != me.phase_seq(c.state):
        # made in another phase's view (a double tap, a frame resent after a reconnect)
        raise ServiceError("stale_phase", f"that was for phase {frame.phase}; the game is at phase {me.phase_seq(c.state)}")
    if frame.action == "chat" and c.room["status"] == "ended":
        chat_archive.after_end_chat(c)
    try:
        state = me.apply(c.state, frame.engine_action(req.actor), now=c.now)  # actor from the connection
    except me.InvalidAction as exc:
        raise ServiceError(exc.code, tidy(str(exc))) from exc
    count("Actions")
    # a chat line: its channel's archive batch may be written in its writer's request
    return c.changed(state, wrote=getattr(frame, "channel", None))


# ---------------------------------------------------------------- the phase timer
def phase_timeout(phase: int, rearm: Callable[[float], None]) -> ChangeFn:
    """A Scheduler delivery: end phase `phase` if it is due; too early re-arms at the deadline
    (a bots' wake is answered by the bots' own step before it: features/botplay.py)."""

    def change(c: Context) -> Outcome:
        if phase == LOBBY_PHASE:  # a public lobby's countdown (service/room/public.py)
            at = c.room.get("autoStartAt") or fairness.reveal_until(c.room)  # or the start's wait
            if c.room["status"] == "lobby" and at is not None:
                rearm(at)  # fired inside the minute before the second: the pipeline starts it later
                return c.unchanged(result="too_early")
            return c.unchanged(result="started" if c.running else "not_due")
        if not c.running:
            return c.unchanged(result="not_running")
        try:
            return c.changed(
                me.apply(c.state, {"type": "phaseTimeout", "phase": phase}, now=c.now), result="applied"
            )
        except me.InvalidAction as exc:
            if exc.code == "too_early" and me.phase_seq(c.state) == phase:
                deadline = me.deadline(c.state)
                if deadline is not None:  # fired inside the minute but before the second
                    rearm(deadline)
            return c.unchanged(result=exc.code)

    return change
