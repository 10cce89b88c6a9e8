"""No one chooses the deal, through the handlers (docs/rules.md, "Randomness"): the lobby
publishes a commitment to the room's secret, phones commit to values of their own
(`dealCommit`), the start asks for them (`room.deal.revealUntil`), each reveals (`dealReveal`)
and the game is dealt from the secret mixed with them (sha256/mafia-deal-v3). A phone that
never reveals cannot hold the start: its value is dropped when the wait is over, and the
game's public record shows that it was. Bad input gets a code and changes nothing.
"""

from __future__ import annotations

import hashlib
import json

import pytest

import mafia_engine as me
from service.features import fairness
from service.room.operations import LOBBY_PHASE

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def value_of(pid: str) -> str:
    """A phone's value (16+ random bytes as hex; fixed here so a failure replays)."""
    return hashlib.sha256(f"value of {pid}".encode()).hexdigest()[:32]


def commit_of(pid: str) -> str:
    return hashlib.sha256(f"mafia-deal-v3-client:{value_of(pid)}".encode()).hexdigest()


def lobby_ready(api, n: int) -> list[str]:
    pids = api.lobby(n)
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    return pids


def commit(api, pids) -> None:
    for pid in pids:
        api.send(f"c{pid}", {"action": "dealCommit", "commitment": commit_of(pid), "id": f"k{pid}"})


def reveal(api, pid: str, value: str | None = None) -> None:
    api.send(f"c{pid}", {"action": "dealReveal", "value": value or value_of(pid), "id": f"r{pid}"})


def deal_fact(api, conn: str = "cp1") -> dict:
    return api.gw.last(conn)["view"]["room"]["deal"]


def test_the_lobby_commits_to_the_secret_before_any_value_is_revealed(api):
    api.lobby(5)
    room = api.snapshot().room
    fact = deal_fact(api)
    assert fact == {
        "scheme": "sha256/mafia-deal-v3",
        "serverCommitment": me.fairness.server_commitment(room["seed"], room["deal"]["salt"]),
        "commitments": [],
        "revealed": [],
        "revealUntil": None,
    }
    assert room["seed"] not in json.dumps(api.gw.sent) and room["deal"]["salt"] not in json.dumps(api.gw.sent)


def test_three_phones_values_are_mixed_into_the_deal(api):
    """Three of five seats commit; the start waits for their values, the last one deals, and
    the game's record holds the lobby's commitment to the secret and every value."""
    pids = lobby_ready(api, 5)
    secret = api.snapshot().room["seed"]
    server = deal_fact(api)["serverCommitment"]
    commit(api, pids[:3])
    assert deal_fact(api, "cp5")["commitments"] == sorted(commit_of(p) for p in pids[:3])
    api.send("cp1", {"action": "start", "id": "start"})
    assert api.snapshot().room["status"] == "lobby" and api.state() is None
    until = deal_fact(api, "cp4")["revealUntil"]
    assert until == api.clock.t + fairness.REVEAL_SECONDS
    reveal(api, "p1")
    reveal(api, "p2")
    assert deal_fact(api)["revealed"] == sorted([commit_of("p1"), commit_of("p2")])
    assert api.snapshot().room["status"] == "lobby"
    reveal(api, "p3")
    snap = api.snapshot()
    assert snap.room["status"] == "running"
    parts = sorted(
        ({"commitment": commit_of(p), "value": value_of(p)} for p in pids[:3]), key=lambda c: c["commitment"]
    )
    f = api.gw.last("cp5")["view"]["fairness"]
    assert f["scheme"] == "sha256/mafia-deal-v3" and f["serverCommitment"] == server
    assert f["contributions"] == parts and f["seed"] is None
    mixed = me.fairness.mix(secret, parts)
    assert snap.room["seed"] == mixed  # the room's later draws (bots, aliases) come from it too
    assert [p["role"] for p in snap.state["players"]] == [
        p["role"] for p in me.new_game(pids, snap.state["options"], seed=mixed)["players"]
    ]


def test_a_phone_that_never_reveals_cannot_hold_the_start_and_its_drop_is_public(api):
    pids = lobby_ready(api, 5)
    commit(api, pids[:3])
    api.send("cp1", {"action": "start"})
    reveal(api, "p1")
    reveal(api, "p3")  # p2 never reveals
    assert api.snapshot().room["status"] == "lobby"
    api.clock.advance(fairness.REVEAL_SECONDS - 1)
    assert api.fire(LOBBY_PHASE)["outcome"] == "too_early"
    assert api.snapshot().room["status"] == "lobby"
    api.clock.advance(1)
    assert api.fire(LOBBY_PHASE)["outcome"] == "started"
    assert api.snapshot().room["status"] == "running"
    f = api.gw.last("cp4")["view"]["fairness"]
    dropped = [c for c in f["contributions"] if c["value"] is None]
    assert dropped == [{"commitment": commit_of("p2"), "value": None}]
    assert len(f["contributions"]) == 3


def test_a_seat_without_a_connection_is_not_waited_for(api):
    pids = lobby_ready(api, 5)
    commit(api, pids[:2])
    api.disconnect("cp2")
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "lobby"  # p1 can reveal: the start asks it
    reveal(api, "p1")
    assert api.snapshot().room["status"] == "running"  # p2 cannot: dropped at once
    contributions = api.state()["fairness"]["contributions"]
    assert {c["commitment"]: c["value"] for c in contributions} == {
        commit_of("p1"): value_of("p1"),
        commit_of("p2"): None,
    }


def test_no_phone_commits_the_game_is_dealt_from_the_secret_alone(api):
    lobby_ready(api, 5)
    api.send("cp1", {"action": "start"})
    state = api.state()
    assert api.snapshot().room["status"] == "running"
    assert state["fairness"]["scheme"] == "sha256/mafia-deal-v2"


def test_bots_contribute_nothing_and_a_late_joiner_cannot_commit_once_the_start_asks(api):
    api.lobby(3)
    for _ in range(2):
        api.send("cp1", {"action": "addBot"})
    api.send("cp2", {"action": "ready"})
    api.send("cp3", {"action": "ready"})
    commit(api, ["p1", "p2"])
    api.send("cp1", {"action": "start"})
    late = api.join("Late")
    assert api.connect("clate", late) == 200
    api.send("clate", {"action": "dealCommit", "commitment": commit_of(late), "id": "late"})
    assert api.errors("clate")[-1]["code"] == "revealing"
    reveal(api, "p1")
    reveal(api, "p2")
    state = api.state()
    assert len(state["fairness"]["contributions"]) == 2  # two people; the bots and p3 gave none


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"action": "dealCommit", "commitment": "AB" * 32}, "bad_commitment"),
        ({"action": "dealCommit", "commitment": "ab" * 31}, "bad_commitment"),
        ({"action": "dealCommit", "commitment": 7}, "bad_commitment"),
        ({"action": "dealCommit"}, "bad_commitment"),
        ({"action": "dealReveal", "value": "0f" * 8}, "bad_reveal"),
        ({"action": "dealReveal", "value": "0F" * 16}, "bad_reveal"),
        ({"action": "dealReveal", "value": "0f" * 16}, "not_revealing"),
    ],
)
def test_bad_commit_or_reveal_frames_are_refused_and_change_nothing(api, frame, code):
    lobby_ready(api, 5)
    commit(api, ["p2"])
    before = api.item()
    api.send("cp2", {**frame, "id": "bad"})
    err = api.errors("cp2")[-1]
    assert err["code"] == code and err["id"] == "bad" and err["message"]
    assert api.item() == before


def test_a_wrong_reveal_is_refused_and_a_copied_commitment_too(api):
    pids = lobby_ready(api, 5)
    commit(api, pids[:2])
    api.send("cp3", {"action": "dealCommit", "commitment": commit_of("p2"), "id": "copy"})
    assert api.errors("cp3")[-1]["code"] == "bad_commitment"
    api.send("cp1", {"action": "start"})
    before = api.item()
    reveal(api, "p2", value_of("p1"))  # another seat's value
    assert api.errors("cp2")[-1]["code"] == "bad_reveal"
    reveal(api, "p3")  # committed to nothing
    assert api.errors("cp3")[-1]["code"] == "no_commitment"
    api.send("cp1", {"action": "start", "id": "again"})
    assert api.errors("cp1")[-1]["code"] == "revealing"
    assert api.item() == before
    reveal(api, "p2")
    api.send("cp2", {"action": "dealReveal", "value": "77" * 16, "id": "twice"})
    assert api.errors("cp2")[-1]["code"] == "already_revealed"


def test_a_commitment_can_be_replaced_until_the_start_and_a_spectator_cannot_commit(api):
    lobby_ready(api, 5)
    api.send("cp2", {"action": "dealCommit", "commitment": "ab" * 32})
    commit(api, ["p2"])
    assert deal_fact(api)["commitments"] == [commit_of("p2")]
    api.connect("s1")
    api.send("s1", {"action": "dealCommit", "commitment": "cd" * 32, "id": "spy"})
    assert api.errors("s1")[-1]["code"] == "spectator" and deal_fact(api)["commitments"] == [commit_of("p2")]


def test_changed_options_call_the_waiting_start_off_and_spend_its_values(api):
    pids = lobby_ready(api, 5)
    commit(api, pids[:2])
    api.send("cp1", {"action": "start"})
    reveal(api, "p1")
    api.send("cp1", {"action": "setOptions", "options": {"deathReveal": "none"}})
    fact = deal_fact(api)
    assert fact["commitments"] == [] and fact["revealUntil"] is None
    assert api.snapshot().room["status"] == "lobby"


def test_a_new_game_draws_a_new_secret_and_salt_for_its_lobby(api):
    pids = lobby_ready(api, 5)
    commit(api, pids[:1])
    api.send("cp1", {"action": "start"})
    reveal(api, "p1")
    first = api.state()["fairness"]
    assert api.snapshot().room.get("deal") is None
    snap = api.snapshot()
    for pid in pids[1:]:  # every other seat leaves: one side is left, the game is decided
        api.send(f"c{pid}", {"action": "leave"})
    assert api.snapshot().room["status"] == "ended"
    api.send("cp1", {"action": "newGame"})
    room = api.snapshot().room
    assert room["deal"]["salt"] != first["salt"] and room["seed"] != snap.room["seed"]
    assert room["deal"]["commitments"] == {}


def test_a_lobby_saved_before_room_version_3_gets_its_deal_salt_and_a_game_keeps_none():
    """The room's migration (service/infra/migrations.py): a lobby saved by the release before
    takes commitments from its next view on; a running game was dealt already."""
    from service.infra import migrations

    lobby = migrations.upgrade({"room": {"v": 2, "status": "lobby", "seed": "ab" * 32}, "state": None})
    deal = lobby["room"]["deal"]
    assert lobby["room"]["v"] == migrations.ROOM_VERSION == 3
    assert len(deal["salt"]) == 64 and int(deal["salt"], 16) >= 0
    assert deal["commitments"] == {} and deal["reveals"] == {} and deal["revealUntil"] is None
    running = migrations.upgrade({"room": {"v": 2, "status": "running", "seed": "ab" * 32}, "state": None})
    assert "deal" not in running["room"]


def test_a_public_lobby_that_starts_by_itself_asks_for_the_values_too(api):
    """A public lobby's countdown (service/room/public.py) ends: its start asks for the values
    like the host's, counts down no more while it waits, and the last value deals an anonymous
    game whose seat shuffle and aliases come from the mixed secret too."""
    from service.room import public

    api.create("P1", preset="classic", options={"public": True})
    pids = ["p1"] + [api.join(f"P{i}") for i in range(2, 5)]
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    commit(api, pids[:2])
    api.clock.advance(public.COUNTDOWN_SECONDS)
    # the countdown's delivery starts it: the start asks for the values, and the delivery is
    # armed again for the wait's end
    assert api.fire(public.LOBBY_PHASE)["outcome"] == "too_early"
    room = api.snapshot().room
    assert room["status"] == "lobby" and room["deal"]["revealUntil"] is not None
    assert "autoStartAt" not in room  # no countdown while the start waits
    assert room["timer"] == [public.LOBBY_PHASE, room["deal"]["revealUntil"]]
    secret = room["seed"]
    reveal(api, "p1")
    reveal(api, "p2")
    snap = api.snapshot()
    assert snap.room["status"] == "running" and snap.room.get("anon")
    parts = snap.state["fairness"]["contributions"]
    assert sorted(c["value"] for c in parts) == sorted([value_of("p1"), value_of("p2")])
    assert snap.room["seed"] == me.fairness.mix(secret, parts)
