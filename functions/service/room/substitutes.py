"""Substitutes (host option `substitutes`, off by default): a seat given up mid-game is first
offered to someone with the room link who holds no seat, instead of the character leaving.

The engine never learns of it: the seat id (and so its role, its results, the channels it
reads, its ballot) stays the same in the engine state; this module only changes who holds the
seat in the room data (its name and token). docs/rules.md, "Substitutes", says what happens in
each preset; the rulebooks' own rules (leaving eliminates, docs/rulebooks/001-city.txt; two
absent days eliminate, docs/rulebooks/000-classic.txt §8.5) apply when nobody takes the seat.

An open seat (`open_seats`) is either

- *vacated*: its player left (`leave`) or the host removed them (`kick`) while the game runs.
  The character stays in the game, absent, for `VACANCY_SECONDS` of game time
  (`room.vacant[pid] = {"reason", "until"}`); then `expire` applies the engine's `leave` or
  `remove` exactly as without the option. The old token stopped working at once.
- *idle* (`reason: afk`, room/afk.py): like a vacated seat, plus the private moment the room
  wakes for a bot to take it (`botAt`, `bot_moment`); the bot comes with that wake's delivery
  (`expire`, `waking`), a person any time before; its entry shows no end (docs/rules.md,
  "Idle seats").
- *at risk*: the engine's absence rule would eliminate it at the end of this day (alive, away
  now, one absent day already: the engine's `absentDays`, which only a preset with an absence
  rule counts). Computed from the state, never stored; it closes when the player comes back or
  the rule eliminates them at the day's end, as today.

One person, one seat (docs/rules.md, "Substitutes"): a substitute is someone who has not played
in this game. Without accounts "someone" is what the server can see: the connection (a seated
one is refused `seated`), the seat tokens this browser held (`former`, `_barred`) and the
device key the client keeps in its storage and sends with its connects and `takeSeat`
(`note_device`: each seat keeps the hashes of the devices that held it, `devices`). A seat a
substitute gave back is not offered again (`sub`). And unless the host switched it off
(`substituteApproval`), the host approves each newcomer with one tap (`ask`, `answer`): nobody
holds two living seats without the host's consent. A second browser profile is a new device:
only the host's tap stops it.

The pipeline calls `expire` after the bots' due ticks (a due vacancy makes the request
write), and `next_due` joins the phase deadline when the timer is armed, so the Scheduler
path ends a vacancy like a phase.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import math
from dataclasses import replace
from typing import Any

import mafia_engine as me

from ..features import aliases
from ..features.base import Feature, Step, ViewParts
from ..identity import persons
from ..infra import auth
from ..infra.errors import ServiceError
from ..protocol import names
from ..protocol.quoting import tidy
from ..protocol.server_frames import ErrorFrame, SeatFrame, SeatPending, encode
from .change import Context, Effects, Outcome
from .lifecycle import presence, running

VACANCY_SECONDS = 60  # game time a vacated seat waits for a substitute (docs/rules.md)
NOTICES_KEPT = 8  # the room's last "seat N has a new player" notices
DEVICES_KEPT = 8  # per seat: the hashes of the devices that held it in this game
SOCKET_ADDRS_KEPT = 4  # per seat: the hashes of the addresses its sockets came from lately
REQUESTS_KEPT = 8  # newcomers waiting for the host's tap (the oldest goes first)
# what expiry does to a vacated character: exactly what happened without the option
EXPIRY_ACTION = {"left": "leave", "removed": "remove"}
BOT_WORD = names.BOT_WORD  # a bot seat is "<word> N"


def enabled(state: Any) -> bool:
    """Whether this game offers given-up seats to substitutes (the host's option)."""
    return bool(state and (state.get("options") or {}).get("substitutes"))


def handed_on(state: Any) -> bool:
    """Whether a seat of this game may change hands (substitutes, or idle seats counted:
    `afkLimit`, room/afk.py): its views then carry the open seats and the notices."""
    return enabled(state) or bool((state.get("options") or {}).get("afkLimit"))


def approval(state: Any) -> bool:
    """Whether the host approves each substitute (`substituteApproval`, on by default)."""
    return enabled(state) and bool((state.get("options") or {}).get("substituteApproval", True))


def device_digest(device: str | None) -> str:
    """What the room keeps of a device key: its hash ("" for none), like a token's."""
    return auth.hash_token(device) if device else ""


def note_device(seat: dict, device: str | None) -> bool:
    """Remember that the device with key `device` holds seat `seat` (its hash, newest last):
    that device can take no other seat of this game. Whether anything changed."""
    return _note_digest(seat, device_digest(device))


def _note_digest(seat: dict, digest: str) -> bool:
    if not digest:
        return False
    held = seat.get("devices") or []
    if digest in held:
        return False
    seat["devices"] = [*held, digest][-DEVICES_KEPT:]
    return True


def note_socket_address(seat: dict, addr: str) -> bool:
    """Remember that a socket of seat `seat` came from the address whose digest is `addr`
    (`public.address_digest`; newest last): the address a seat's REST call came from
    (`seat.addr`) may differ from its socket's (CloudFront over IPv6, the WebSocket API over
    IPv4). Whether anything changed."""
    held = seat.get("sockAddrs") or []
    if not addr or addr in held:
        return False
    seat["sockAddrs"] = [*held, addr][-SOCKET_ADDRS_KEPT:]
    return True


def seat_addresses(seat: dict) -> set[str]:
    """The digests of the addresses seat `seat` was taken or used from."""
    return {a for a in (seat.get("addr"), *(seat.get("sockAddrs") or ())) if a}


def held_addresses(room: dict) -> set[str]:
    """The addresses of the seats a person holds now (a bot's, a vacated seat's, a departed or
    removed one's hold nobody): a newcomer from one of them is someone already at the table."""
    vacant = room.get("vacant") or {}
    return {
        a
        for seat in room["players"]
        if not (seat.get("bot") or seat.get("left") or seat.get("kicked") or seat["id"] in vacant)
        for a in seat_addresses(seat)
    }


def shares_address(room: dict, addr: str) -> bool:
    """Whether a newcomer from `addr` shares an address with any seat of the room (held now or
    not): what the host's request card says, never the address itself."""
    return bool(addr) and any(addr in seat_addresses(seat) for seat in room["players"])


def reset(room: dict) -> None:
    """A new game: no notices, no requests, no seat handed on yet (the devices that held a
    seat stay with it: they still hold it)."""
    room.pop("substituted", None)
    room.pop("seatRequests", None)
    for seat in room["players"]:
        seat.pop("sub", None)


def _engine_player(state: Any, pid: str) -> dict | None:
    return next((p for p in state["players"] if p["id"] == pid), None)


def at_risk(room: dict, state: Any) -> list[str]:
    """Seats the absence rule would eliminate at this day's end unless someone comes: alive,
    away (no connection), one absent day already. Bots are never absent."""
    if not (running(room, state) and enabled(state)):
        return []
    # a bot is never absent; a seat a substitute holds is never offered again
    closed = {p["id"] for p in room["players"] if p.get("bot") or p.get("sub")}
    return [
        p["id"]
        for p in state["players"]
        if p["alive"] and not p.get("connected") and p.get("absentDays", 0) >= 1 and p["id"] not in closed
    ]


def open_seats(room: dict, state: Any) -> dict[str, dict]:
    """Every seat a substitute may take now: id -> {"until": game time or None}."""
    if not (running(room, state) and enabled(state)):
        return {}
    out: dict[str, dict] = {pid: {"until": None} for pid in at_risk(room, state)}
    for pid, v in (room.get("vacant") or {}).items():
        # an idle seat stays open until a person or its bot comes (`expire`): no public end
        out[pid] = {"until": None if "botAt" in v else v["until"]}
    return out


def vacate(c: Context, state: Any, pid: str, reason: str) -> Any:
    """The seat `pid` is given up (`reason`: left | removed | afk) in a running game with the
    option on: it is offered for `VACANCY_SECONDS`, its character stays in, absent. The caller
    has voided the old token and closed its sockets. An idle seat (`afk`) also gets the private
    moment a bot takes it if no person came first (`botAt`, `bot_moment`)."""
    vacancy: dict[str, Any] = {"reason": reason, "until": c.now + VACANCY_SECONDS}
    if reason == "afk":
        vacancy["botAt"] = bot_moment(c.room, pid, me.phase_seq(state), c.now)
    c.room.setdefault("vacant", {})[pid] = vacancy
    return presence(c.room, state, pid, False, c.now)


def bot_moment(room: dict, pid: str, seq: int, opened: float) -> float:
    """When the room wakes for a bot to take idle seat `pid` opened at `opened`: a moment drawn
    uniformly inside the open window (to the millisecond) from the bots' key
    (`features/botplay.bot_key`, label `bots` of the game's secret), never shown to anyone;
    the bot comes when that wake is delivered (`expire`), a person any time before. A bot
    that always came at the window's public end (`openSeats.until`) was named by its notice's
    time (docs/rules.md, "Idle seats")."""
    from mafia_engine import rng

    from ..features import botplay

    label = f"seat:{pid}:{seq}".encode()  # one key per seat and phase, from the bots' key
    draw = rng.stream(hmac.new(bytes.fromhex(botplay.bot_key(room)), label, hashlib.sha256).hexdigest())
    _, ms = rng.below(draw, int(VACANCY_SECONDS * 1000))
    return round(opened + ms / 1000, 3)


def should_vacate(c: Context, pid: str) -> bool:
    """Whether `pid`'s leave or removal opens the seat to a substitute instead: the game runs
    with the option on, the character is still alive (a dead seat has nothing to hand on), the
    seat is a person's, and no substitute gave it back (a seat is handed on once)."""
    if not (c.running and enabled(c.state)):
        return False
    p = _engine_player(c.state, pid)
    # a bot's seat is not handed on, nor a seat a substitute held
    closed = any(s.get("bot") or s.get("sub") for s in c.room["players"] if s["id"] == pid)
    return bool(p and p["alive"]) and not closed


def expire(room: dict, state: Any, now: float, wake: int | None = None) -> tuple[Any, bool]:
    """Vacancies whose time is up (or whose character died meanwhile) end: the engine's
    `leave`/`remove` applies as it would have without the option; requests for seats no longer
    open go. An idle seat's bot takes it when the room's wake for its moment is delivered
    (`wake`: the delivery's second, `waking`; Scheduler delivers inside that second's minute,
    and that delivery is the moment, published as it happens), or at any write once
    `BOT_LATE` seconds passed its moment (a delivery lost). (state, whether anything changed)."""
    vacant = room.get("vacant") or {}
    if state is None or not (vacant or room.get("seatRequests")):
        return state, False
    changed = False
    # one delivery brings one bot (the earliest moment due): each comes with a delivery of its own
    woken = min(
        (k for k in vacant if "botAt" in vacant[k] and _ends(vacant[k], now, wake)),
        key=lambda k: vacant[k].get("botAt", 0.0),
        default=None,
    )
    for pid in sorted(vacant, key=lambda k: (vacant[k]["until"], k)):
        p = _engine_player(state, pid)
        alive = bool(p and p["alive"])
        late = "botAt" in vacant[pid] and now >= vacant[pid]["botAt"] + BOT_LATE
        due = pid == woken if "botAt" in vacant[pid] and not late else _ends(vacant[pid], now, wake)
        if alive and running(room, state) and not due:
            continue
        v = vacant.pop(pid)
        changed = True
        if alive and running(room, state) and v["reason"] == "afk":
            state = bot_takes(room, state, pid, now)  # an idle seat nobody took (docs/rules.md, "Idle seats")
        elif alive and running(room, state):
            try:
                state = me.apply(state, {"type": EXPIRY_ACTION[v["reason"]], "player": pid}, now=now)
            except me.InvalidAction:
                pass  # the game moved past it (ended): nothing to apply
    if not vacant:
        room.pop("vacant", None)
    if room.get("seatRequests"):
        still = [r for r in room["seatRequests"] if r["player"] in open_seats(room, state)]
        changed = changed or len(still) != len(room["seatRequests"])
        _keep_requests(room, still)
    return state, changed


BOT_LATE = 120  # seconds after its moment an idle seat's bot comes at any write (its wake lost)


def _ends(vacancy: dict, now: float, wake: int | None) -> bool:
    """Whether a vacancy ends now: an idle seat's (`botAt`) when its wake is delivered (or
    `BOT_LATE` after its moment), any other at its `until`."""
    if "botAt" not in vacancy:
        return now >= vacancy["until"]
    due = math.ceil(vacancy["botAt"] - 1e-9)  # the second its wake was armed for (`timers.fire_second`)
    return (wake is not None and wake >= due) or now >= vacancy["botAt"] + BOT_LATE


def next_due(room: dict) -> float | None:
    """The earliest end of a vacancy (the timer arms it like a phase deadline), or None."""
    vacant = room.get("vacant") or {}
    return min((v["until"] for v in vacant.values()), default=None)


def _barred(room: dict, state: Any, former: str | None) -> bool:
    """Whether `former` (a token this browser once held in this room) is a seat's that cannot
    come back: a dead seat's, a seat that left or was removed (its `kickedHash`, `formerHashes`)."""
    if not former:
        return False
    digest = auth.hash_token(former)
    dead = {p["id"] for p in state["players"] if not p["alive"]}
    for seat in room["players"]:
        hashes = [seat.get("kickedHash", ""), *seat.get("formerHashes", [])]
        if seat["id"] in dead:
            hashes.append(seat.get("tokenHash", ""))
        if any(h and h == digest for h in hashes):
            return True
    return False


def played(room: dict, device: str | None) -> bool:
    """Whether the device with key `device` held a seat of this game (any seat: living, dead,
    removed, departed, or handed on)."""
    return _played_digest(room, device_digest(device))


def _played_digest(room: dict, digest: str) -> bool:
    return bool(digest) and any(digest in (seat.get("devices") or ()) for seat in room["players"])


def _name_taken(room: dict, pid: str, name: str) -> bool:
    """Whether a newcomer may not use `name` for seat `pid`. While an anonymous game runs the
    table reads aliases, so the name is checked against the aliases only (every language),
    never against a real name: the answer is the same for a seated player's real name as for
    any unused name (docs/rules.md, "Anonymous games")."""
    if aliases.masked(room):
        return any(
            names.same(word, name)
            for p in room["players"]
            for word in (aliases.alias_of(room, p["id"]) or {}).values()
        )
    return any(names.same(p["name"], name) for p in room["players"] if p["id"] != pid)


def retire_token(seat: dict) -> None:
    """The seat's token stops working; its hash is kept (`formerHashes`), so the browser that
    held it cannot take a seat of this game back as a substitute (`_barred`)."""
    if seat.get("tokenHash"):
        seat["formerHashes"] = [*seat.get("formerHashes", []), seat["tokenHash"]][-8:]
    seat["tokenHash"] = ""


def _check(c: Context, pid: str, name: str, former: str | None, device: str) -> None:
    """Refuse (ServiceError, nothing written) a newcomer who may not take seat `pid` now
    (`device`: the hash of its device key, "" for none)."""
    if not c.running:
        raise ServiceError("not_running", "seats are taken over only while a game runs")
    if persons.ranked(c.room):  # one person, one seat by identity: a socket names nobody
        raise ServiceError(*persons.SUBSTITUTE_SIGN_IN)
    if not enabled(c.state):
        raise ServiceError("no_substitutes", "this game does not take substitutes")
    if pid not in open_seats(c.room, c.state):
        raise ServiceError("seat_not_open", "that seat is not open to a substitute")
    if _barred(c.room, c.state, former) or _played_digest(c.room, device):
        raise ServiceError("not_eligible", "someone who played in this game cannot take another seat")
    if not device and not approval(c.state):
        # without the host's tap the device key is the one check left: a client must send it
        raise ServiceError("no_device", "this browser sent no device key: reload the page")
    if _name_taken(c.room, pid, name):
        raise ServiceError("name_taken", "that name is taken in this room")


ADDRESS_SEATED = ("address_seated", "someone at this address already holds a seat in this game")


def take_seat(c: Context, conn_id: str, sender: str | None, frame: Any, addr: str = "") -> Outcome:
    """`takeSeat {seat, name, former?, device?}` from a connection holding no seat, from the
    address whose digest is `addr`. A public room refuses an address that holds a seat
    (`address_seated`: one person, one seat, whatever device key the frame names). With the
    host's approval on (the default), the request waits for the host's tap (`seatPending` to
    this connection; `answer`); otherwise the seat is theirs at once (`_hand_over`)."""
    if sender is not None:
        raise ServiceError("seated", "you already hold a seat in this game")
    device = device_digest(frame.device)
    _check(c, frame.seat, frame.name, frame.former, device)
    if (c.room.get("options") or {}).get("public") and addr and addr in held_addresses(c.room):
        raise ServiceError(*ADDRESS_SEATED, 409)
    if not approval(c.state):
        return _hand_over(c, conn_id, frame.seat, frame.name, device, frame.id, addr)
    number = int(c.room.get("nextRequest", 1))
    c.room["nextRequest"] = number + 1
    request = {
        "request": f"r{number}",
        "player": frame.seat,
        "conn": conn_id,
        "name": frame.name,
        "device": device,  # its hash, as a seat keeps it
        "addr": addr,  # its address's digest, as a seat keeps it ("" unknown)
        "at": c.now,
    }
    # one request per connection: asking again replaces the last one
    mine = [r for r in c.room.get("seatRequests", []) if r["conn"] != conn_id]
    _keep_requests(c.room, [*mine, request][-REQUESTS_KEPT:])
    pending = encode(SeatPending(id=frame.id, request=request["request"], player=frame.seat))
    return c.changed(effects=Effects(replies={conn_id: pending}))


def answer(c: Context, host_conn: str, request_id: str, approve: bool) -> Outcome:
    """The host's tap on a newcomer's request: approve hands the seat over (the checks of
    `takeSeat` again, now), refuse tells the newcomer `seat_refused`; either way the request
    goes, and a refused seat stays open."""
    requests = c.room.get("seatRequests") or []
    request = next((r for r in requests if r["request"] == request_id), None)
    if request is None:
        raise ServiceError("no_request", "that request is no longer open")
    _keep_requests(c.room, [r for r in requests if r is not request])
    conn = request["conn"]
    here = conn in c.snap.conns and c.snap.conns[conn] is None  # still in the room, still seatless
    if not approve or not here:
        told = {conn: _error_frame("seat_refused", "the host did not give you the seat")} if here else {}
        if approve:  # the newcomer went away meanwhile: the host is told, the seat stays open
            told[host_conn] = _error_frame("request_gone", "that newcomer has left the room")
        return c.changed(effects=Effects(replies=told))
    addr = request.get("addr", "")
    if addr and addr in held_addresses(c.room):
        # a host never gives a second seat to someone at the table (its own address included)
        told = {
            conn: _error_frame("seat_refused", "the host did not give you the seat"),
            host_conn: _error_frame("newcomer_seated", "this newcomer is on a network that holds a seat here"),
        }
        return c.changed(effects=Effects(replies=told))
    _check(c, request["player"], request["name"], None, request["device"])
    return _hand_over(c, conn, request["player"], request["name"], request["device"], None, addr)


def _error_frame(code: str, message: str) -> bytes:
    """An error frame sent to a connection other than the sender of the frame being answered."""
    return encode(ErrorFrame(id=None, code=code, message=tidy(message)))


def _keep_requests(room: dict, requests: list[dict]) -> None:
    if requests:
        room["seatRequests"] = requests
    else:
        room.pop("seatRequests", None)


def _hand_over(
    c: Context, conn_id: str, pid: str, name: str, device: str, frame_id: Any, addr: str = ""
) -> Outcome:
    """Seat `pid` becomes `conn_id`'s whole (the engine's seat id is unchanged), with a new
    token sent to this connection only (`SeatFrame`); the old token stops working; the room
    sees only the new name and the notice "seat N has a new player"."""
    seat = next(p for p in c.room["players"] if p["id"] == pid)
    was = seat["name"]  # the end screen credits them too (`room_facts`, once the game has ended)
    token = auth.new_token()
    # the holder's token stops working (a removed holder's `kickedHash` stays: refused `kicked`)
    retire_token(seat)
    seat.update(name=name, tokenHash=auth.hash_token(token), left=False, kicked=False, sub=True)
    _note_digest(seat, device)
    seat.pop("sockAddrs", None)  # the addresses are the newcomer's from now on
    if addr:
        seat["addr"] = addr
    else:
        seat.pop("addr", None)
    (c.room.get("vacant") or {}).pop(pid, None)
    if not c.room.get("vacant"):
        c.room.pop("vacant", None)
    # the newcomer's other requests, and everyone's for this seat, are answered by this
    _keep_requests(
        c.room, [r for r in c.room.get("seatRequests", []) if r["conn"] != conn_id and r["player"] != pid]
    )
    engine_seat = _engine_player(c.state, pid)["seat"]
    c.room["substituted"] = [
        *c.room.get("substituted", [])[-(NOTICES_KEPT - 1) :],
        {"seat": engine_seat, "player": pid, "at": c.now, "was": was},
    ]
    # the old holder's sockets (an absent seat has none; a vacated seat's were closed)
    old_conns = tuple(k for k, v in c.snap.conns.items() if v == pid)
    state = presence(c.room, c.state, pid, True, c.now)
    given = encode(SeatFrame(id=frame_id, player=pid, token=token, room=c.room["code"]))
    farewell = encode(ErrorFrame(id=None, code="handed_on", message=tidy("a substitute took this seat")))
    return c.changed(
        state,
        Effects(
            puts={conn_id: pid},
            deletes=old_conns,
            closes=old_conns,
            replies={k: farewell for k in old_conns},
            full_view=conn_id,  # the seat's view first, then its token (`last`: replies replace views)
            last={conn_id: given},
        ),
    )


def room_facts(room: dict, state: Any, viewer: str | None = None) -> dict:
    """What the `room` block of every view says about substitutes: the open seats
    `[{player, seat, until}]` and the recent notices `[{seat, player, at}]` (the same for
    every viewer; once the game has ended each notice also names who played the seat before,
    `was`: the end screen credits both; while it runs, a masked game's names stay hidden), and
    in the host's view only the newcomers waiting for its tap
    `seatRequests: [{request, player, seat, name, at, sharesAddress}]` (empty for everyone
    else; `sharesAddress`: the newcomer's address is one a seat of this room was taken or used
    from, a boolean only)."""
    if state is None:
        return {"openSeats": [], "substituted": [], "seatRequests": []}
    seats = {p["id"]: p["seat"] for p in state["players"]}
    offered = open_seats(room, state)
    host = viewer is not None and viewer == room.get("host")
    ended = state["phase"]["kind"] == "ended"
    notes = [{k: v for k, v in n.items() if k != "was" or ended} for n in room.get("substituted") or []]
    if aliases.masked(room) and not enabled(state):
        # an anonymous game in which only a bot can take a seat: a notice would name a bot
        # (docs/rules.md, "Anonymous games"); the end screen lists them
        notes = []
    return {
        "openSeats": [
            {"player": pid, "seat": seats[pid], "until": v["until"]}
            for pid, v in sorted(offered.items(), key=lambda kv: seats[kv[0]])
        ],
        "substituted": notes,
        "seatRequests": [
            {
                "request": r["request"],
                "player": r["player"],
                "seat": seats[r["player"]],
                "name": r["name"],
                "at": r["at"],
                # the newcomer shares an address with a seat of this room: a boolean, never the address
                "sharesAddress": shares_address(room, r.get("addr", "")),
            }
            for r in (room.get("seatRequests") or [])
            if host and r["player"] in offered
        ],
    }


def bot_takes(room: dict, state: Any, pid: str, now: float, at: float | None = None) -> Any:
    """A bot plays seat `pid` from now on (the engine's seat, role and knowledge unchanged; the
    bot reads only that seat's view): an idle seat (functions/service/room/afk.py) nobody took. The
    room sees "seat N has a new player" (`at`: the moment it was taken, now by default) and its
    name, "Bot N" with N the seat's number."""
    seat = next(s for s in room["players"] if s["id"] == pid)
    number = next(p["seat"] for p in state["players"] if p["id"] == pid)
    word = BOT_WORD.get(room.get("lang") or "en", BOT_WORD["en"])
    name = f"{word} {number}"
    if any(names.same(p["name"], name) for p in room["players"] if p["id"] != pid):
        name = next(
            f"{word} {i}"
            for i in range(100, 200)
            if not any(names.same(p["name"], f"{word} {i}") for p in room["players"])
        )
    was = seat["name"]
    retire_token(seat)
    seat.update(name=name, bot=True, ready=True, sub=True)
    room["substituted"] = [
        *room.get("substituted", [])[-(NOTICES_KEPT - 1) :],
        {"seat": number, "player": pid, "at": now if at is None else at, "was": was},
    ]
    plan = room.get("botPlan")
    if plan and plan.get("seq") == me.phase_seq(state):
        room.pop("botPlan")  # planned without this seat: the phase is planned again with it
    return presence(room, state, pid, True, now)  # a bot is never absent


# ---------------------------------------------------------------- the feature (features/base.py)
waking: contextvars.ContextVar[int | None] = contextvars.ContextVar("waking", default=None)
"""The second of the Scheduler delivery being handled (`RoomService.timeout`), None otherwise."""


def _expire_step(c: Context) -> Step:
    """Before the command: the open seats whose time is up (a due one makes the request write)."""
    state, due = expire(c.room, c.state, c.now, waking.get())
    return Step(state, writes=due)


def _room_facts(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """A game's `room.openSeats`, `room.substituted`, `room.seatRequests` (when seats change hands)."""
    if state is None or not handed_on(state):
        return parts
    return replace(parts, block={**parts.block, **room_facts(room, state, viewer)})


FEATURE = Feature("substitutes", before=_expire_step, view=_room_facts)
