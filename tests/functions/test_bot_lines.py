"""Bot chat through the room layer: every line a phrase (an id, the player it names by id, a
variant) that each phone draws in its own language, whatever the room's; a person's phrase
reaches the views in the same shape (docs/protocol.md, "Chat messages"; docs/rules.md,
"Anonymous games")."""

from __future__ import annotations

import re

import pytest

from mafia_engine.bots import phrases

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

ROOMS = {
    # lang: (host, bots)
    "ru": ("Анна", ("Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна")),
    "ko": ("민준", ("서연", "지호", "하은", "도윤", "수아", "예준")),
}
SCRIPT = {"ru": re.compile(r"[А-Яа-яЁё]"), "ko": re.compile(r"[가-힣]"), "en": re.compile(r"[A-Za-z]")}
LINE_KEYS = {"id", "channel", "from", "phrase", "args", "variant", "at", "day"}


def step(api) -> dict:
    """Move the clock to the next wake (a bot's private one or the phase's deadline), deliver
    what is due and nudge as the host's client does; the host's last view."""
    view = api.gw.last("cp1")["view"]
    wake, ends = api.next_wake(), view["phase"]["endsAt"]
    api.clock.t = max(api.clock.t, min(t for t in (wake, ends) if t is not None)) + 0.01
    api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
    api.send("cp1", {"action": "nudge", "phase": view["phase"]["seq"]})
    return api.gw.last("cp1")["view"]


def bot_room(api, lang: str, preset: str = "classic", **options) -> None:
    host, bots = ROOMS[lang]
    api.create(host, preset=preset, lang=lang, **options)
    api.connect("cp1", "p1")
    for name in bots:
        api.send("cp1", {"action": "addBot", "name": name})
    api.send("cp1", {"action": "start"})


def play_to_the_end(api, lang: str, preset: str = "classic") -> tuple[dict, list[dict]]:
    """An all-bot table (the host only watches and nudges at the deadline, as the client does;
    the server's timers wake the bots); returns the final snapshot's room and every chat line
    the bots said, in order, each once (as stored)."""
    bot_room(api, lang, preset)
    said: list[dict] = []
    seen: set[str] = set()
    for _ in range(600):
        snap = api.snapshot()
        for m in snap.state["chat"]:
            if m["from"] not in (None, "p1") and m["id"] not in seen:
                seen.add(m["id"])
                said.append(m)
        if snap.room["status"] != "running":
            break
        step(api)
    return api.snapshot().room, said


@pytest.mark.parametrize("lang", sorted(ROOMS))
def test_bots_chat_in_phrases_that_every_language_reads_whatever_the_rooms(api, lang):
    """A bot's line carries no language: a phrase id, the player it names by id and a variant;
    drawn in ru, ko or en it reads in that language's script with the player's name ("p2 looks
    suspicious to me" in a Russian room, and Korean lines on a Russian phone, were the bugs)."""
    room, said = play_to_the_end(api, lang)
    assert room["status"] == "ended"
    assert len(said) >= 5, said
    ids = {p["id"] for p in room["players"]}
    display = {p["id"]: p["name"] for p in room["players"]}
    for m in said:
        assert "text" not in m and m["phrase"] in phrases.LINES, m
        assert set(m["args"].values()) <= ids and 0 <= m["variant"] < phrases.VARIANTS
        for reader, script in SCRIPT.items():
            assert script.search(phrases.render(m, reader, display).replace(display.get(m["args"].get("target"), "@"), ""))
    assert [m for m in said if m["args"].get("target")], "some line names a player (by id)"
    assert len({(m["phrase"], m["variant"] % 2) for m in said}) >= 4, "several phrases and wordings"


def test_a_persons_phrase_reaches_the_views_in_the_same_shape_as_a_bots(api):
    """People may send the bots' phrases (the chat box's quick phrases): a phrase line in any
    view is the same set of fields, whoever said it, so a phrase marks no one."""
    bot_room(api, "ko")
    for _ in range(200):
        view = step(api)
        if view["phase"]["kind"] == "discussion" and any(m.get("phrase") for m in view["chat"] if m["from"] != "p1"):
            break
    assert view["phase"]["kind"] == "discussion"
    target = next(p["id"] for p in view["players"] if p["id"] != "p1")
    api.send("cp1", {"action": "chat", "channel": "day", "phrase": "suspect", "args": {"target": target}, "variant": 5})
    view = api.gw.last("cp1")["view"]
    mine = [m for m in view["chat"] if m["from"] == "p1"]
    theirs = [m for m in view["chat"] if m["from"] not in (None, "p1") and m.get("phrase")]
    assert mine and theirs
    assert set(mine[-1]) == LINE_KEYS and all(set(m) == LINE_KEYS for m in theirs)
    assert (mine[-1]["phrase"], mine[-1]["args"], mine[-1]["variant"]) == ("suspect", {"target": target}, 5)
    assert {type(v) for m in [mine[-1], *theirs] for v in (m["args"], m["variant"])} == {dict, int}


def test_a_bad_phrase_is_refused_with_its_code_and_the_room_unchanged(api):
    bot_room(api, "ru")
    for _ in range(200):
        if step(api)["phase"]["kind"] == "discussion":
            break
    before = api.snapshot().state["chat"]
    api.send("cp1", {"action": "chat", "channel": "day", "phrase": "shout", "args": {}})
    assert api.gw.last("cp1", "error")["code"] == "unknown_phrase"
    api.send("cp1", {"action": "chat", "channel": "day", "phrase": "trust", "args": {"target": "p99"}})
    assert api.gw.last("cp1", "error")["code"] == "bad_phrase_args"
    assert api.snapshot().state["chat"] == before
