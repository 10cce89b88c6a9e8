"""The chat archive (CHAT# items) keys messages by id: ids count per channel ("day:1",
"mafia:1"), so equal numbers in two channels are still two messages."""

from __future__ import annotations

from service import chat_archive


def msg(channel: str, n: int) -> dict:
    return {
        "id": f"{channel}:{n}",
        "channel": channel,
        "from": "p1",
        "text": f"{channel} {n}",
        "at": 0.0,
        "day": 1,
    }


def test_archive_keeps_each_channels_evicted_messages_once():
    room = {"status": "running"}
    before = {"chat": [msg("day", 1), msg("mafia", 1), msg("day", 2)]}
    after = {"chat": [msg("mafia", 1), msg("day", 2), msg("mafia", 2)]}
    assert chat_archive.collect(room, before, after) == []
    assert [m["id"] for m in room["archive"]["buffer"]] == ["day:1"]
    room["status"] = "ended"
    final = {"chat": [msg("day", 2), msg("mafia", 2)]}
    [(seq, messages)] = chat_archive.collect(room, after, final)
    assert seq == 1 and [m["id"] for m in messages] == ["day:1", "mafia:1"]
