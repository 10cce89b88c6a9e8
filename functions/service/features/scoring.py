"""The room's scoreboard (docs/rulebooks/000-classic.txt §6): one point to every player who won,
the dead too."""

from __future__ import annotations


def award(room: dict, result: dict) -> None:
    """Add this game's points to `room["scores"]` (kept in the room data, so it outlives
    `newGame`); a game without a winner scores nothing."""
    scores = room.setdefault("scores", {})
    for p in result.get("players") or ():
        scores.setdefault(p["id"], 0)
        if p.get("won"):
            scores[p["id"]] += 1
