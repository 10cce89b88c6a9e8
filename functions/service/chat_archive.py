"""The chat archive: messages that left the engine's bounded chat window, kept in CHAT# items."""

from __future__ import annotations

ARCHIVE_BATCH = 25  # chat messages per archive item


def collect(room: dict, before: dict | None, after: dict | None) -> list[tuple[int, list[dict]]]:
    """Buffer the messages the change evicted; return the archive items to write now
    (a full batch, or whatever is left once the game has ended) as (seq, messages)."""
    if not before or not after:
        return []
    kept = {m.get("id") for m in after.get("chat") or [] if isinstance(m, dict)}
    evicted = [m for m in before.get("chat") or [] if isinstance(m, dict) and m.get("id") not in kept]
    archive = room.setdefault("archive", {"seq": 0, "buffer": []})
    if evicted:
        archive["buffer"].extend(evicted)
    ended = room["status"] == "ended"
    if len(archive["buffer"]) >= ARCHIVE_BATCH or (ended and archive["buffer"]):
        archive["seq"] += 1
        items = [(archive["seq"], archive["buffer"])]
        archive["buffer"] = []
        return items
    return []
