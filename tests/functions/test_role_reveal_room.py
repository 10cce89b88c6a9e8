"""The role reveal through the room layer (docs/rules.md, "Room rules"): it ends once every player
has tapped "Tap to see your role" (`{"action": "seenRole"}`), bots counting as having seen
theirs."""

from __future__ import annotations

import pytest

import mafia_engine as me

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
    """A bot glances at its card as it is dealt (docs/rules.md, "Role reveal"): the reveal ends at
    the last person's tap, with no Scheduler wake waited for (one comes inside its minute)."""
    api.create("Host", preset="classic")
    api.connect("cp1", "p1")
    for _ in range(4):
        api.send("cp1", {"action": "addBot"})
    api.send("cp1", {"action": "start"})
    started = api.clock.t
    api.clock.advance(1.5)
    api.send("cp1", {"action": "seenRole"})
    assert kind(api) == "greeting" and api.clock.t == started + 1.5
    assert api.state()["phase"]["endsAt"] == api.clock.t + 60  # the 60-second greeting, from the tap


def test_the_bots_glances_change_no_view_and_the_reveal_waits_for_every_person(api):
    """The bots' glances lapse at the first request after the reveal begins (a person's sync
    here): nothing is pushed to the other person, whose view does not change, and the reveal goes
    on until both people have tapped."""
    api.create("Host", preset="classic")
    api.connect("cp1", "p1")
    api.connect("cp2", api.join("Bea"))
    for _ in range(3):
        api.send("cp1", {"action": "addBot"})
    api.send("cp2", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert kind(api) == "roleReveal"
    before = api.gw.last("cp2")
    api.clock.advance(2)
    api.gw.clear()
    api.send("cp1", {"action": "sync"})
    assert [c for c, _ in api.gw.sent] == ["cp1"]  # the sender's own answer, no one else's
    assert kind(api) == "roleReveal"
    bots = [p["id"] for p in api.snapshot().room["players"] if p.get("bot")]
    assert [me.view(api.state(), b)["private"]["task"] for b in bots] == ["done"] * 3
    api.send("cp2", {"action": "sync"})
    assert api.gw.last("cp2")["view"] == {**before["view"], "serverNow": api.gw.last("cp2")["view"]["serverNow"]}
    api.clock.advance(3)
    api.send("cp2", {"action": "seenRole"})
    assert kind(api) == "roleReveal"
    api.clock.advance(4)
    api.send("cp1", {"action": "seenRole"})
    assert kind(api) == "greeting" and api.state()["phase"]["endsAt"] == api.clock.t + 60


@pytest.mark.parametrize("sender", ["guest", "spectator"])
def test_a_refused_take_host_in_the_reveal_leaves_the_room_as_it_was(api, sender):
    """`takeHost` first asks API Gateway about the host's sockets (a run of its own); that
    check alone writes nothing when the host is there, even with the bots' glances due: a
    refused frame leaves the stored room as it was (the fuzz found a spectator's that did)."""
    api.create("Host", preset="classic")
    api.connect("cp1", "p1")
    api.connect("cp2", api.join("Bea"))
    for _ in range(3):
        api.send("cp1", {"action": "addBot"})
    api.send("cp2", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert kind(api) == "roleReveal"
    conn = "cp2" if sender == "guest" else "cs1"
    if sender == "spectator":
        assert api.connect("cs1") == 200
    api.clock.advance(1)
    before = api.item()
    api.send(conn, {"action": "takeHost", "id": 7})
    assert api.errors(conn)[-1]["id"] == 7 and api.errors(conn)[-1]["code"]
    assert api.item() == before
