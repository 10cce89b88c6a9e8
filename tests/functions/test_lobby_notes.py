"""The lobby tells the host when a switched-on option changes no role at this player count
(docs/rules.md, original, "the expansion at 8 or 10 seats")."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def test_lobby_says_when_the_expansion_deals_the_base_set(api):
    api.create("Host", preset="original", options={"expansion": True})
    api.connect("cp1", "p1")
    for _ in range(7):  # 8 seats: docs/rulebooks/003-original.txt's expansion table is the base set
        api.send("cp1", {"action": "addBot"})
    assert api.errors("cp1") == []
    assert api.gw.last("cp1")["view"]["room"]["idleOptions"] == ["expansion"]
    api.send("cp1", {"action": "addBot"})  # 9 seats: the madman comes in
    assert api.gw.last("cp1")["view"]["room"]["idleOptions"] == []
    api.send("cp1", {"action": "setOptions", "options": {"expansion": False}})
    assert api.gw.last("cp1")["view"]["room"]["idleOptions"] == []


def test_options_that_never_touch_the_deal_are_not_called_idle(api):
    api.create("Host", preset="classic")
    api.connect("cp1", "p1")
    for _ in range(4):
        api.send("cp1", {"action": "addBot"})
    room = api.gw.last("cp1")["view"]["room"]
    assert room["idleOptions"] == []  # kidSafeChat and the like are on, and change no role
