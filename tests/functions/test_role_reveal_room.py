"""The role reveal through the room layer (docs/rules.md, "Room rules"): it ends once every player
has tapped "Tap to see your role" (`{"action": "seenRole"}`), bots counting as having seen
theirs."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def kind(api) -> str:
    return api.state()["phase"]["kind"]


def test_role_reveal_ends_once_every_player_has_tapped_their_card(api):
    pids = api.start(4)
    limit = api.state()["phase"]["endsAt"]
    assert kind(api) == "roleReveal" and limit - api.clock.t == 60
    for pid in pids:
        assert kind(api) == "roleReveal"
        api.clock.advance(2)
        api.gw.clear()
        api.send(f"c{pid}", {"action": "seenRole", "id": pid})
        assert api.errors(f"c{pid}") == []
    assert kind(api) == "greeting" and api.clock.t < limit
    api.send("cp1", {"action": "seenRole"})
    assert api.errors("cp1")[-1]["code"] == "wrong_phase"


def test_a_second_tap_is_refused_and_the_others_see_nothing_of_it(api):
    api.start(4)
    api.send("cp1", {"action": "seenRole"})
    before = api.item()
    api.gw.clear()
    api.send("cp1", {"action": "seenRole"})
    assert api.errors("cp1")[-1]["code"] == "already_ready"
    assert api.item() == before
    assert [c for c, _ in api.gw.sent] == ["cp1"]  # nothing pushed to anyone else


def test_bots_count_as_having_seen_their_card(api):
    api.create("Host", preset="classic")
    api.connect("cp1", "p1")
    for _ in range(4):
        api.send("cp1", {"action": "addBot"})
    api.send("cp1", {"action": "start"})
    limit = api.state()["phase"]["endsAt"]
    api.send("cp1", {"action": "seenRole"})
    for _ in range(10):  # the room's timer wakes the bots; their taps fall due early
        if kind(api) != "roleReveal":
            break
        view = api.gw.last("cp1")["view"]
        api.clock.t = max(api.clock.t, api.next_wake()) + 0.01
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        api.send("cp1", {"action": "nudge", "phase": view["phase"]["seq"]})
    assert kind(api) == "greeting"
    assert api.clock.t < limit - 30, "the table waited for nobody"
