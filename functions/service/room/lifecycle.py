"""The room's life-cycle steps, each named, run by the pipeline around every command.

Order (`pipeline.Pipeline.run`): the features' `before` hooks (room/featureset.py: the bots'
ticks are one), the command, the features' `after` hooks, then on a write `end_game_if_decided`
(status + scores), `track_host_presence`, the features' `on_write` hooks, the view diff, and
`timer_to_arm`. Each step changes the attempt's room document and returns
what it decided. `presence` and `drop_connections` feed the engine's absence rule from
connection changes.
"""

from __future__ import annotations

from typing import Any

import mafia_engine as me

from ..features import away, scoring
from . import displays
from .change import ChangeFn, Context, Effects, Outcome, Write


def running(room: dict, state: Any) -> bool:
    """A game is on (started, not ended)."""
    return state is not None and room["status"] == "running"


def end_game_if_decided(room: dict, state: Any, now: float) -> None:
    """Once the engine has a result, the room is `ended` and the winners score."""
    if running(room, state):
        result = me.result(state)
        if result is not None:
            room["status"] = "ended"
            room["endedAt"] = now  # after-game chat closes a fixed time after it (chat_archive)
            scoring.award(room, result)


def track_host_presence(room: dict, conns: dict[str, str | None], now: float) -> None:
    """Note since when the host has had no connection (`takeHost` waits for it)."""
    if room.get("host") in {p for p in conns.values() if p}:
        room.pop("hostAwaySince", None)
    elif room.get("hostAwaySince") is None:
        room["hostAwaySince"] = now


def timer_to_arm(room: dict, state: Any) -> tuple[int, float] | None:
    """The phase timeout to schedule, if the phase or its deadline changed: (seq, deadline)."""
    if not running(room, state):
        return None
    seq, deadline = me.phase_seq(state), me.deadline(state)
    vacancy = room.get("vacant") and min(v["until"] for v in room["vacant"].values())
    if vacancy and (deadline is None or vacancy < deadline):
        # an open seat's end (functions/service/room/substitutes.py) rides on the phase's timer:
        # the delivery is `too_early` for the phase, the pipeline's expiry step ends the seat
        deadline = vacancy
    timer = [seq, deadline]
    arm = (seq, deadline) if deadline is not None and timer != room.get("timer") else None
    room["timer"] = timer
    return arm


def presence(room: dict, state: Any, pid: str, connected: bool, now: float) -> Any:
    """The engine state once told a player's first connection came or last one went (absence rule)."""
    if not running(room, state):
        return state
    try:
        return me.apply(state, {"type": "presence", "player": pid, "connected": connected}, now=now)
    except me.InvalidAction:
        return state  # e.g. a dead player's presence does not matter to the engine


def forget(c: Context, state: Any, gone: list[str]) -> Outcome:
    """The outcome of connections `gone` leaving (from `state`): their items deleted, and a
    player's last one going fed to `presence`; only connection items are written when no
    player's connection went (spectators)."""
    remaining = {k: v for k, v in c.snap.conns.items() if k not in gone}
    players = {c.snap.conns[x] for x in gone} - {None}
    for pid in sorted(players - set(remaining.values())):
        state = presence(c.room, state, pid, False, c.now)
        away.left(c.room, state, pid)  # the seat's "while you were away" starts here (away.py)
    screens = set(gone) & set(displays.connected(c))
    if screens:
        displays.count(c, leaving=tuple(screens))  # the public `room.screens` (views.room_block)
    write = Write.ROOM if players or screens else Write.CONNECTIONS
    return Outcome(state, write, Effects(deletes=tuple(gone)))


def drop_connections(conn_ids: list[str]) -> ChangeFn:
    """A change that forgets connections; a player's last one going feeds `presence`."""

    def change(c: Context) -> Outcome:
        gone = [x for x in conn_ids if x in c.snap.conns]
        return forget(c, c.state, gone) if gone else c.unchanged()

    return change
