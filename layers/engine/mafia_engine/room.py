"""The room-level actions: pause, resume, endGame, leave and remove, the same in every preset
(docs/rules.md, "Room rules"). The room layer checks host rights; the engine applies them in
any phase but the end.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidAction
from .game import Game

ROOM_ACTIONS = frozenset({"pause", "resume", "endGame", "leave", "remove"})
# What may still happen while the host has paused the game
WHILE_PAUSED = frozenset({"chat", "presence", *ROOM_ACTIONS})


def apply(g: Game, a: Any) -> None:
    """pause / resume / endGame / leave / remove: the same in every preset (docs/rules.md, "Room rules").

    ``remove`` is the host taking ``player`` out of a running game: the same as that player's
    ``leave`` (same win check), with ``diedBy: "removed"`` and a public line saying so.
    """
    s = g.s
    ph = s["phase"]
    g.player(a.player)
    if a.type == "pause":
        if s.get("paused"):
            raise InvalidAction("already_paused", "the game is already paused")
        left = None if ph["endsAt"] is None else max(0.0, ph["endsAt"] - g.now)
        s["paused"] = {"left": left, "by": a.player}
        ph["endsAt"] = None
        g.event("paused", phase=ph["kind"])
        g.system("The game is paused.")
    elif a.type == "resume":
        paused = s.get("paused")
        if not paused:
            raise InvalidAction("not_paused", "the game is not paused")
        s["paused"] = None
        if paused["left"] is not None:
            ph["endsAt"] = float(g.now + paused["left"])
        g.event("resumed", phase=ph["kind"])
        g.system("The game goes on.")
    elif a.type == "endGame":
        s["paused"] = None
        g.preset.finish(g, "none", "host")
    else:  # leave, remove
        p = g.player(a.player)
        seq = s["seq"]
        if not p["alive"]:
            # already out of the game: nothing changes in it, but the phase may be waiting on
            # this player (original: an executed player's last word)
            g.preset.after_dead_leave(g, p)
        else:
            if a.type == "remove":
                g.kill(p, "removed", phase=ph["kind"])
                g.system(f"{p['id']} was removed from the game by the host.")
            else:
                g.kill(p, "left", phase=ph["kind"])
                g.system(f"{p['id']} left the game.")
            g.preset.after_leave(g, p)
        if s["phase"]["kind"] == "ended":
            s["paused"] = None
        elif s.get("paused") and s["seq"] != seq:
            # the leave moved the game on while paused: the new phase waits, frozen, too
            ends = s["phase"]["endsAt"]
            s["paused"] = {**s["paused"], "left": None if ends is None else max(0.0, ends - g.now)}
            s["phase"]["endsAt"] = None
