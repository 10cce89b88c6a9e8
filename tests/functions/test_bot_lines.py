"""Bot chat through the room layer: every line in the room's language, naming players by the
names the table sees (docs/architecture.md, "Bots"), never by internal ids."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

ROOMS = {
    # lang: (host, bots, the script every bot line is written in)
    "ru": ("Анна", ("Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна"), re.compile(r"[А-Яа-яЁё]")),
    "ko": ("민준", ("서연", "지호", "하은", "도윤", "수아", "예준"), re.compile(r"[가-힣]")),
}
RAW_ID = re.compile(r"(?<![0-9A-Za-z_])p\d+(?![0-9A-Za-z_])")
LATIN = re.compile(r"[A-Za-z]")


def play_to_the_end(api, lang: str, preset: str = "classic") -> tuple[dict, list[tuple[str, str]]]:
    """An all-bot table (the host only watches and nudges at the deadline, as the client does; the server's timers wake the bots);
    returns the final snapshot's room and every chat line the bots said, in order, each once."""
    host, bots, _ = ROOMS[lang]
    api.create(host, preset=preset, lang=lang)
    api.connect("cp1", "p1")
    for name in bots:
        api.send("cp1", {"action": "addBot", "name": name})
    api.send("cp1", {"action": "start"})
    said: list[tuple[str, str]] = []
    seen: set[tuple] = set()
    for _ in range(600):
        snap = api.snapshot()
        for m in snap.state["chat"]:
            key = (m["from"], m["channel"], m["at"], m["text"])
            if m["from"] not in (None, "p1") and key not in seen:
                seen.add(key)
                said.append((m["from"], m["text"]))
        if snap.room["status"] != "running":
            break
        view = api.gw.last("cp1")["view"]
        wake, ends = api.next_wake(), view["phase"]["endsAt"]
        api.clock.t = max(api.clock.t, min(t for t in (wake, ends) if t is not None)) + 0.01
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        api.send("cp1", {"action": "nudge", "phase": view["phase"]["seq"]})
    return api.snapshot().room, said


@pytest.mark.parametrize("lang", sorted(ROOMS))
def test_bots_chat_in_the_rooms_language_and_name_players_by_their_names(api, lang):
    """Bot lines use player names and the room's language, with several natural variants per
    language ("p2 looks suspicious to me" in a Russian room was the bug)."""
    room, said = play_to_the_end(api, lang)
    assert room["status"] == "ended"
    host, bots, script = ROOMS[lang]
    assert len(said) >= 5, said
    for pid, text in said:
        assert script.search(text), (pid, text)
        assert not LATIN.search(text), (pid, text)  # no English line, no raw id, no preset id
        assert not RAW_ID.search(text), (pid, text)
    names = (host, *bots)
    named = [text for _, text in said if any(n in text for n in names)]
    assert named, "some line names a player (by name)"
    assert len({text for _, text in said}) >= 4, "several variants, not one line repeated"


def test_the_names_bots_use_are_the_rooms_display_names(api):
    """The room hands the bots the display names: a line about a player carries that player's
    name exactly as the table sees it, and the text stored in chat is the final text."""
    room, said = play_to_the_end(api, "ru")
    display = {p["id"]: p["name"] for p in room["players"]}
    for _, text in said:
        for pid, name in display.items():
            if name in text:
                assert pid not in text
