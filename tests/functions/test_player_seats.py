"""Seats as a player's device sees them: bot seats named in the room's language, and a seat the
host removed (or the player gave up) that a refused device can recognise from the public summary."""

from __future__ import annotations

import pytest

from service.protocol import names
from service.room.operations import BOT_WORD

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

BOT_NAMES = {"en": "Bot", "ko": "봇", "ru": "Бот"}


def summary(api) -> dict:
    status, body = api.rest("GET", f"/rooms/{api.code}")
    assert status == 200, body
    return body


@pytest.mark.parametrize("lang", ["en", "ko", "ru"])
def test_bots_are_named_in_the_rooms_language(api, lang):
    """A bot seat's default name reads in the room's language ("봇 3", "Бот 3") and carries the
    number of the seat it takes (seat 3: "Bot 3"), stays unique next to a human who took the
    next name, and is a valid name under the name rule."""
    word = BOT_NAMES[lang]
    api.create("Host", lang=lang)
    api.connect("cp1", "p1")
    api.join(f"{word} 4")  # seat 2: a person holds the fourth seat's bot name: that bot skips it
    for _ in range(3):
        api.send("cp1", {"action": "addBot"})
    assert api.errors("cp1") == []
    players = api.gw.last("cp1")["view"]["players"]
    bots = [p["name"] for p in players if p["bot"]]
    assert bots == [f"{word} 3", f"{word} 5", f"{word} 6"]
    for name in bots:
        assert names.clean(name) == name
    keys = [names.key(p["name"]) for p in players]
    assert len(set(keys)) == len(keys)
    # the summary every device reads says the same
    assert [p["name"] for p in summary(api)["players"] if p["bot"]] == bots


def test_every_room_language_has_a_bot_word():
    from typing import get_args

    from service.protocol.models import Lang

    assert set(get_args(Lang)) == set(BOT_WORD)


def test_a_bot_name_in_the_rooms_language_does_not_clash_with_look_alikes(api):
    """Names compare by `names.key` (Cyrillic look-alikes read as Latin): a human "Бот 3"
    spelled with a Latin "o" is the same name, so the bot of seat 3 takes "Бот 4"."""
    api.create("Host", lang="ru")
    api.connect("cp1", "p1")
    api.join("Бot 3")  # Latin o, t
    api.send("cp1", {"action": "addBot"})
    assert [p["name"] for p in api.gw.last("cp1")["view"]["players"] if p["bot"]] == ["Бот 4"]


def test_a_removed_seat_is_named_in_the_summary_lobby_and_game(api):
    """A device that missed the `kicked` frame is refused at connect (no body reaches a browser):
    the public summary's `removed` tells it that its seat was removed. Ids only."""
    pids = api.lobby(4)
    assert summary(api)["removed"] == []
    api.send("cp1", {"action": "kick", "target": "p4"})  # in the lobby: the seat goes
    body = summary(api)
    assert body["removed"] == ["p4"]
    assert "p4" not in [p["id"] for p in body["players"]]
    assert api.connect("again4", "p4") == 403
    for _ in range(4):
        api.send("cp1", {"action": "addBot"})
    for pid in pids[1:3]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running"
    api.send("cp1", {"action": "kick", "target": "p3"})  # in the game: the seat stays, closed
    body = summary(api)
    assert body["removed"] == ["p4", "p3"]
    me = next(p for p in body["players"] if p["id"] == "p3")
    assert me["left"] is True
    assert api.connect("again3", "p3") == 403
    # a player who left by themselves is not "removed"
    api.send("cp2", {"action": "leave"})
    body = summary(api)
    assert body["removed"] == ["p4", "p3"]
    assert next(p for p in body["players"] if p["id"] == "p2")["left"] is True
    # nothing more about any seat than before: no token, no role, no reason beyond "removed"
    assert all(set(p) == {"id", "name", "ready", "host", "bot", "connected", "left", "alias"} for p in body["players"])
    assert "Hash" not in str(body) and api.tokens["p3"] not in str(body)
