"""Views for the frame byte tests and `bench/views.py`: a lobby, a night, an ended game and a
spectator's view of a game, built by the engine and `viewframes.view_of` (no AWS, no handler)."""

from __future__ import annotations

import mafia_engine as me
from service.room import viewframes

IDS = [f"p{i}" for i in range(1, 9)]


def room(status: str = "playing") -> dict:
    return {
        "code": "ABCD",
        "host": "p1",
        "status": status,
        "preset": "classic",
        "options": {"kidSafeChat": False},
        "scores": {"p2": 1},
        "players": [
            {"id": p, "name": f"Player {p}", "ready": i % 2 == 0, "bot": p == "p8"} for i, p in enumerate(IDS)
        ],
    }


def _timeout(state: dict) -> dict:
    now = state["phase"]["endsAt"] or 0.0
    return me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)


def _until(state: dict, kind: str) -> dict:
    for _ in range(40):
        if state["phase"]["kind"] == kind:
            return state
        state = _timeout(state)
    raise AssertionError(f"never reached {kind}")


def states() -> dict[str, dict]:
    state = me.new_game(IDS, {"preset": "classic", "kidSafeChat": False}, seed=7, now=0.0)
    night = _until(state, "night")
    ended = night
    for _ in range(200):
        kind = ended["phase"]["kind"]
        if kind == "ended":
            break
        alive = [p for p in ended["players"] if p["alive"]]
        mafia = [p["id"] for p in alive if p["role"] == "mafia"]
        town = [p["id"] for p in alive if p["role"] != "mafia"]
        now = ended["phase"]["endsAt"] or 0.0
        acts = []
        if kind == "night":
            acts = [{"type": "mafiaTarget", "player": m, "target": town[0]} for m in mafia]
        elif kind == "vote":
            acts = [{"type": "vote", "player": p, "target": mafia[0]} for p in town]
        elif kind == "confirm":
            acts = [{"type": "confirm", "player": p, "choice": "yes"} for p in town]
        for a in acts:
            try:
                ended = me.apply(ended, a, now - 1)
            except me.InvalidAction:
                pass
        ended = _timeout(ended)
    assert ended["phase"]["kind"] == "ended"
    return {"night": night, "ended": ended}


def samples() -> dict[str, dict]:
    """name -> the view dict as `viewframes.view_of` builds it for one viewer."""
    s = states()
    connected = set(IDS[:6])
    lobby = room("lobby")
    return {
        "lobby": viewframes.view_of(lobby, None, connected, "p2", None),
        "lobby-spectator": viewframes.view_of(lobby, None, connected, None, None),
        "night": viewframes.view_of(room(), s["night"], connected, "p3"),
        "night-spectator": viewframes.view_of(room(), s["night"], connected, None),
        "ended": viewframes.view_of(room("ended"), s["ended"], connected, "p1"),
    }
