"""The offline stack's room writer (`POST /_local/rooms`, local/rooms.py): a room at a chosen
phase, written through the real service, so a browser test starts at night 2, a defense or
the end without playing there. What it writes must be a room the handlers could have made:
a real deal from the room's secret, the bots planned, the phase timer armed, the seats'
tokens good for a connect, and nothing written for a room it refuses."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import boto3
import pytest

import mafia_engine as me
from local import rooms

REPO = Path(__file__).resolve().parents[2]
CLASSIC_FIVE = [
    {"name": "Ann", "role": "police"},
    {"name": "Bob", "role": "mafia"},
    {"name": "Cat", "role": "doctor"},
    {"name": "Dan", "bot": True},
    {"name": "Eve", "bot": True},
]


def write(svc, **spec) -> dict:
    return rooms.write_room(svc, {"seats": CLASSIC_FIVE, **spec})


def seat(out: dict, name: str) -> dict:
    return next(s for s in out["seats"] if s["name"] == name)


def stored_rooms(svc) -> int:
    items = boto3.client("dynamodb").scan(TableName=svc.store.table)["Items"]
    return sum(1 for it in items if it["sk"]["S"] == "STATE")


def test_a_room_is_written_at_the_phase_asked_with_the_roles_asked_from_a_real_deal(api, svc):
    out = write(svc, options={"firstPhase": "night"}, until={"phase": "night", "day": 2})
    assert (out["status"], out["phase"], out["day"]) == ("running", "night", 2)
    assert [s["role"] for s in out["seats"][:3]] == ["police", "mafia", "doctor"]
    assert sorted(s["role"] for s in out["seats"]) == sorted(
        Counter(me.roster({"preset": "classic"}, 5)).elements()
    )
    snap = svc.store.load(out["roomCode"])
    # the deal is the engine's own from the room's secret: the end's fair-deal check holds
    ids = [p["id"] for p in snap.state["players"]]
    replay = me.new_game(ids, {**snap.room["options"], "preset": "classic"}, seed=snap.room["seed"], now=0.0)
    assert [p["role"] for p in replay["players"]] == [p["role"] for p in snap.state["players"]]
    # people have tokens, bots none; the host is the first seat
    assert snap.room["host"] == seat(out, "Ann")["playerId"] == "p1"
    assert [bool(s["token"]) for s in out["seats"]] == [True, True, True, False, False]
    # the phase has its whole time ahead of the stack's clock, its timer armed, the bots planned
    assert snap.state["phase"]["endsAt"] > api.clock.t
    assert snap.room["timer"] == [snap.state["seq"], snap.state["phase"]["endsAt"]]
    assert snap.room["botPlan"]["seq"] == snap.state["seq"]
    schedules = boto3.client("scheduler").list_schedules(GroupName=svc.timers.group)["Schedules"]
    assert any(s["Name"].startswith(f"mafia-{out['roomCode']}-{snap.state['seq']}-") for s in schedules)
    # nobody is connected yet: the people are absent to the engine until their page comes
    connected = {p["id"]: p["connected"] for p in snap.state["players"]}
    assert connected == {"p1": False, "p2": False, "p3": False, "p4": True, "p5": True}


def test_a_seat_token_connects_to_its_own_seat_and_view(api, svc):
    out = write(svc, options={"firstPhase": "night"}, until={"phase": "discussion", "day": 2})
    api.code = out["roomCode"]
    ann = seat(out, "Ann")
    assert api.connect("c-ann", token=ann["token"]) == 200
    api.send("c-ann", {"action": "sync"})
    view = api.gw.last("c-ann")["view"]
    assert view["you"]["id"] == ann["playerId"] and view["you"]["role"] == "police"
    assert (view["phase"]["kind"], view["day"]) == ("discussion", 2)
    assert next(p for p in api.state()["players"] if p["id"] == "p1")["connected"] is True


def test_steps_name_seats_and_their_results_are_in_the_room(api, svc):
    out = write(
        svc,
        options={"firstPhase": "night"},
        steps=[
            "timeout",  # the role reveal
            {"type": "investigate", "player": "Ann", "target": "Bob"},
            {"type": "mafiaTarget", "player": "Bob", "target": "Cat"},
            "timeout",  # the night
        ],
    )
    assert (out["phase"], out["day"]) == ("discussion", 2)
    state = svc.store.load(out["roomCode"]).state
    assert [p["alive"] for p in state["players"]] == [True, True, False, True, True]
    police = me.view(state, "p1")["private"]["results"]
    assert [(r["target"], r["result"]) for r in police] == [("p2", "mafia")], police


def test_a_game_played_to_its_end_is_ended_and_scored(api, svc):
    town = ("Ann", "Dan", "Eve")
    out = write(
        svc,
        options={"firstPhase": "night"},
        steps=[
            "timeout",  # the role reveal
            {"type": "mafiaTarget", "player": "Bob", "target": "Cat"},
            {"until": {"phase": "vote"}},  # the night (Cat is killed), the discussion
            *({"type": "vote", "player": p, "target": "Bob"} for p in town),
            "timeout",  # the vote: Bob is accused
            "timeout",  # his defense
            *({"type": "confirm", "player": p, "choice": "yes"} for p in town),
        ],
        until={"phase": "ended"},
    )
    snap = svc.store.load(out["roomCode"])
    assert out["phase"] == "ended" and snap.room["status"] == "ended"
    assert me.result(snap.state)["winner"] == "town"
    assert snap.room["scores"]


def test_an_anonymous_room_keeps_each_person_on_their_role_and_token(api, svc):
    out = write(svc, options={"anonymous": True, "firstPhase": "night"}, until={"phase": "night"})
    snap = svc.store.load(out["roomCode"])
    assert snap.room.get("anon"), "no aliases dealt"
    ids = {p["name"]: p["id"] for p in snap.room["players"]}
    roles = {p["id"]: p["role"] for p in snap.state["players"]}
    for s in out["seats"]:
        assert s["playerId"] == ids[s["name"]] and s["role"] == roles[s["playerId"]]
    assert seat(out, "Ann")["role"] == "police" and seat(out, "Bob")["role"] == "mafia"
    api.code = out["roomCode"]
    assert api.connect("c-bob", token=seat(out, "Bob")["token"]) == 200
    api.send("c-bob", {"action": "sync"})
    assert api.gw.last("c-bob")["view"]["you"]["id"] == seat(out, "Bob")["playerId"]


def test_a_room_left_in_the_lobby_has_its_seats_and_tokens(api, svc):
    out = rooms.write_room(svc, {"seats": [{"name": "Ann"}, {"name": "Bob"}], "start": False})
    assert (out["status"], out["phase"]) == ("lobby", "lobby")
    api.code = out["roomCode"]
    assert api.connect("c-bob", token=seat(out, "Bob")["token"]) == 200
    api.send("c-bob", {"action": "sync"})
    assert [p["name"] for p in api.gw.last("c-bob")["view"]["players"]] == ["Ann", "Bob"]


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ({"seats": []}, "bad_request"),
        ({"seats": CLASSIC_FIVE, "preset": "chess"}, "bad_request"),
        ({"seats": [{"name": "Bot", "bot": True}, *CLASSIC_FIVE[1:]]}, "bad_request"),
        ({"seats": [*CLASSIC_FIVE[:4], {"name": "ANN"}]}, "name_taken"),
        ({"seats": [*CLASSIC_FIVE[:4], {"name": "   "}]}, "bad_name"),
        ({"seats": [*CLASSIC_FIVE[:4], {"name": " Fay "}]}, "bad_name"),
        ({"seats": [{"name": f"P{i}"} for i in range(40)], "start": False}, "room_full"),
        ({"seats": [{**CLASSIC_FIVE[0], "role": "godfather"}, *CLASSIC_FIVE[1:]]}, "bad_roles"),
        (
            {"seats": CLASSIC_FIVE, "steps": [{"type": "vote", "player": "Ann", "target": "Bob"}]},
            "wrong_phase",
        ),
        ({"seats": CLASSIC_FIVE, "until": {"phase": "night", "day": 500}}, "not_reached"),
        ({"seats": CLASSIC_FIVE, "until": {"phase": "speech"}}, "bad_request"),
        ({"seats": CLASSIC_FIVE, "steps": [{"until": {"phase": "speech"}}]}, "bad_request"),
        ({"seats": CLASSIC_FIVE, "steps": [{"until": {"phase": "vote"}, "type": "vote"}]}, "bad_request"),
        ({"seats": CLASSIC_FIVE, "start": False, "until": {"phase": "night"}}, "bad_request"),
        ({"seats": CLASSIC_FIVE, "colour": "red"}, "bad_request"),
    ],
)
def test_a_room_that_cannot_be_written_is_refused_with_a_reason_and_nothing_is_stored(svc, spec, code):
    before = stored_rooms(svc)
    with pytest.raises(rooms.SpecError) as err:
        rooms.write_room(svc, spec)
    assert err.value.code == code and err.value.message
    assert err.value.answer() == {"error": {"code": code, "message": err.value.message}}
    assert stored_rooms(svc) == before


def test_the_room_writer_exists_only_in_the_offline_stack():
    """Never deployed: no route of template.yaml reaches it, and no function imports it."""
    assert "_local" not in (REPO / "template.yaml").read_text()
    for tree in ("functions", "layers"):
        for path in (REPO / tree).rglob("*.py"):
            text = path.read_text()
            assert "local.rooms" not in text and "from local" not in text, path
