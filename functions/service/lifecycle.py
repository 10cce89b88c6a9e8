"""The room's life-cycle steps, each named, run by the unit of work around every change.

Order in one unit of work: `drain_bots` (before the request's own change), the change,
`plan_bots`, then on a write `end_game_if_decided` (status + scores), `track_host_presence`,
the view diff, and `timer_to_arm`. `presence` and `drop_connections` feed the engine's
absence rule from connection changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mafia_engine as me

from . import botplay, scoring

if TYPE_CHECKING:
    from .unitofwork import Change, ChangeFn


def running(c: Change) -> bool:
    """A game is on (started, not ended)."""
    return c.state is not None and c.room["status"] == "running"


def drain_bots(c: Change) -> None:
    """Apply the bot actions of the public ticks passed before this request (docs/architecture.md,
    "Bots"): a request that passes a tick writes, whatever the bots had to do then."""
    if c.state is not None:
        c.state, c.drained = botplay.drain(c.room, c.state, c.now)


def plan_bots(c: Change) -> None:
    """Plan the bots' actions for the phase the change ended in (if it is a new one)."""
    if running(c):
        botplay.replan(c.room, c.state, c.now)


def end_game_if_decided(c: Change) -> None:
    """Once the engine has a result, the room is `ended` and the winners score."""
    if running(c):
        result = me.result(c.state)
        if result is not None:
            c.room["status"] = "ended"
            c.room["endedAt"] = c.now  # after-game chat closes a fixed time after it (chat_archive)
            scoring.award(c.room, result)


def track_host_presence(c: Change, conns: dict[str, str | None]) -> None:
    """Note since when the host has had no connection (`takeHost` waits for it)."""
    room = c.room
    if room.get("host") in {p for p in conns.values() if p}:
        room.pop("hostAwaySince", None)
    elif room.get("hostAwaySince") is None:
        room["hostAwaySince"] = c.now


def timer_to_arm(c: Change) -> tuple[int, float] | None:
    """The phase timeout to schedule, if the phase or its deadline changed: (seq, deadline)."""
    if not running(c):
        return None
    seq, deadline = me.phase_seq(c.state), me.deadline(c.state)
    timer = [seq, deadline]
    arm = (seq, deadline) if deadline is not None and timer != c.room.get("timer") else None
    c.room["timer"] = timer
    return arm


def presence(c: Change, pid: str, connected: bool) -> None:
    """Tell the engine a player's first connection came or last one went (absence rule)."""
    if not running(c):
        return
    try:
        c.state = me.apply(c.state, {"type": "presence", "player": pid, "connected": connected}, now=c.now)
    except me.InvalidAction:
        pass  # e.g. a dead player's presence does not matter to the engine


def drop_connections(conn_ids: list[str]) -> ChangeFn:
    """A change that forgets connections; a player's last one going feeds `presence`."""

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
            presence(c, pid, False)

    return change
