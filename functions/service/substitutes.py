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
- *at risk*: the engine's absence rule would eliminate it at the end of this day (alive, away
  now, one absent day already: the engine's `absentDays`, which only a preset with an absence
  rule counts). Computed from the state, never stored; it closes when the player comes back or
  the rule eliminates them at the day's end, as today.

The pipeline calls `expire` after the bots' due ticks (a due vacancy makes the request
write), and `next_due` joins the phase deadline when the timer is armed, so the Scheduler
path ends a vacancy like a phase.
"""

from __future__ import annotations

from typing import Any

import mafia_engine as me

from . import auth, names
from .change import Context, Effects, Outcome
from .errors import ServiceError
from .lifecycle import presence, running
from .quoting import tidy
from .server_frames import ErrorFrame, SeatFrame, encode

VACANCY_SECONDS = 60  # game time a vacated seat waits for a substitute (docs/rules.md)
NOTICES_KEPT = 8  # the room's last "seat N has a new player" notices
# what expiry does to a vacated character: exactly what happened without the option
EXPIRY_ACTION = {"left": "leave", "removed": "remove"}


def enabled(state: Any) -> bool:
    """Whether this game offers given-up seats to substitutes (the host's option)."""
    return bool(state and (state.get("options") or {}).get("substitutes"))


def _engine_player(state: Any, pid: str) -> dict | None:
    return next((p for p in state["players"] if p["id"] == pid), None)


def at_risk(room: dict, state: Any) -> list[str]:
    """Seats the absence rule would eliminate at this day's end unless someone comes: alive,
    away (no connection), one absent day already. Bots are never absent."""
    if not (running(room, state) and enabled(state)):
        return []
    bots = {p["id"] for p in room["players"] if p.get("bot")}
    return [
        p["id"]
        for p in state["players"]
        if p["alive"] and not p.get("connected") and p.get("absentDays", 0) >= 1 and p["id"] not in bots
    ]


def open_seats(room: dict, state: Any) -> dict[str, dict]:
    """Every seat a substitute may take now: id -> {"until": game time or None}."""
    if not (running(room, state) and enabled(state)):
        return {}
    out: dict[str, dict] = {pid: {"until": None} for pid in at_risk(room, state)}
    for pid, v in (room.get("vacant") or {}).items():
        out[pid] = {"until": v["until"]}
    return out


def vacate(c: Context, state: Any, pid: str, reason: str) -> Any:
    """The seat `pid` is given up (`reason`: left | removed) in a running game with the option
    on: it is offered for `VACANCY_SECONDS`, its character stays in, absent. The caller has
    voided the old token and closed its sockets."""
    c.room.setdefault("vacant", {})[pid] = {"reason": reason, "until": c.now + VACANCY_SECONDS}
    return presence(c.room, state, pid, False, c.now)


def should_vacate(c: Context, pid: str) -> bool:
    """Whether `pid`'s leave or removal opens the seat to a substitute instead: the game runs
    with the option on, the character is still alive (a dead seat has nothing to hand on) and
    the seat is a person's."""
    if not (c.running and enabled(c.state)):
        return False
    p = _engine_player(c.state, pid)
    bot = any(s.get("bot") for s in c.room["players"] if s["id"] == pid)  # a bot's seat is not handed on
    return bool(p and p["alive"]) and not bot


def expire(room: dict, state: Any, now: float) -> tuple[Any, bool]:
    """Vacancies whose time is up (or whose character died meanwhile) end: the engine's
    `leave`/`remove` applies as it would have without the option. (state, whether anything changed)."""
    vacant = room.get("vacant")
    if not vacant or state is None:
        return state, False
    changed = False
    for pid in sorted(vacant, key=lambda k: (vacant[k]["until"], k)):
        p = _engine_player(state, pid)
        alive = bool(p and p["alive"])
        if alive and now < vacant[pid]["until"] and running(room, state):
            continue
        v = vacant.pop(pid)
        changed = True
        if alive and running(room, state):
            try:
                state = me.apply(state, {"type": EXPIRY_ACTION[v["reason"]], "player": pid}, now=now)
            except me.InvalidAction:
                pass  # the game moved past it (ended): nothing to apply
    if not vacant:
        room.pop("vacant", None)
    return state, changed


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


def retire_token(seat: dict) -> None:
    """The seat's token stops working; its hash is kept (`formerHashes`), so the browser that
    held it cannot take a seat of this game back as a substitute (`_barred`)."""
    if seat.get("tokenHash"):
        seat["formerHashes"] = [*seat.get("formerHashes", []), seat["tokenHash"]][-8:]
    seat["tokenHash"] = ""


def take_seat(c: Context, conn_id: str, sender: str | None, frame: Any) -> Outcome:
    """`takeSeat {seat, name, former?}` from a connection holding no seat: the seat is theirs
    whole (the engine's seat id is unchanged), with a new token sent to this connection only
    (`SeatFrame`); the old token stops working; the room sees only the new name and the notice
    "seat N has a new player"."""
    if sender is not None:
        raise ServiceError("seated", "you already hold a seat in this game")
    if not c.running:
        raise ServiceError("not_running", "seats are taken over only while a game runs")
    if not enabled(c.state):
        raise ServiceError("no_substitutes", "this game does not take substitutes")
    pid = frame.seat
    if pid not in open_seats(c.room, c.state):
        raise ServiceError("seat_not_open", "that seat is not open to a substitute")
    if _barred(c.room, c.state, frame.former):
        raise ServiceError("not_eligible", "a player who died, left or was removed cannot come back")
    name = frame.name
    if any(names.same(p["name"], name) for p in c.room["players"] if p["id"] != pid):
        raise ServiceError("name_taken", "that name is taken in this room")
    seat = next(p for p in c.room["players"] if p["id"] == pid)
    was = seat["name"]  # the end screen credits them too (`room_facts`, once the game has ended)
    token = auth.new_token()
    # the holder's token stops working (a removed holder's `kickedHash` stays: refused `kicked`)
    retire_token(seat)
    seat.update(name=name, tokenHash=auth.hash_token(token), left=False, kicked=False)
    (c.room.get("vacant") or {}).pop(pid, None)
    if not c.room.get("vacant"):
        c.room.pop("vacant", None)
    engine_seat = _engine_player(c.state, pid)["seat"]
    c.room["substituted"] = [
        *c.room.get("substituted", [])[-(NOTICES_KEPT - 1) :],
        {"seat": engine_seat, "player": pid, "at": c.now, "was": was},
    ]
    # the old holder's sockets (an absent seat has none; a vacated seat's were closed)
    old_conns = tuple(k for k, v in c.snap.conns.items() if v == pid)
    state = presence(c.room, c.state, pid, True, c.now)
    given = encode(SeatFrame(id=frame.id, player=pid, token=token, room=c.room["code"]))
    farewell = encode(ErrorFrame(id=None, code="replaced", message=tidy("a substitute took this seat")))
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


def room_facts(room: dict, state: Any) -> dict:
    """What the `room` block of every view says about substitutes (the same for every viewer):
    the open seats `[{player, seat, until}]` and the recent notices `[{seat, player, at}]`; once
    the game has ended each notice also names who played the seat before (`was`: the end screen
    credits both; while it runs, a masked game's names stay hidden)."""
    if state is None:
        return {"openSeats": [], "substituted": []}
    seats = {p["id"]: p["seat"] for p in state["players"]}
    ended = state["phase"]["kind"] == "ended"
    notes = [{k: v for k, v in n.items() if k != "was" or ended} for n in room.get("substituted") or []]
    return {
        "openSeats": [
            {"player": pid, "seat": seats[pid], "until": v["until"]}
            for pid, v in sorted(open_seats(room, state).items(), key=lambda kv: seats[kv[0]])
        ],
        "substituted": notes,
    }
